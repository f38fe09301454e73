"""Mapping a function over items in forked worker processes, results in the items' order.

Loading and proving a collection are CPU-bound Python: threads would share one
interpreter lock, so the work is shared among processes instead. Workers are forked
with the caller's state already in memory (the registry, the loaded cards): a task is
only an item (a file's path, a card's index) and only the small results are pickled
back. Where ``fork`` is not available (Windows, macOS's default) or one worker would
do, the map runs in this process: the results are the same either way.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# The function of the map being run, set before the workers fork so that they inherit it
# (a closure over the caller's state cannot be pickled; an index can).
_TASK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _run(index: int) -> tuple[int, Any]:
    assert _TASK is not None
    function, items = _TASK
    return index, function(items[index])


def can_fork() -> bool:
    """Whether worker processes can be forked here."""
    return "fork" in multiprocessing.get_all_start_methods()


def forked_map(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    *,
    on_result: Callable[[int, int, int], Any] | None = None,
    chunksize: int = 1,
) -> list[R]:
    """``[function(item) for item in items]``, shared among ``workers`` forked processes.

    ``on_result(done, total, index)`` is called in this process as each result arrives
    (in completion order, for progress). ``function``'s results must pickle. Not to be
    called from a process with threads that hold locks (a running TUI): fork copies
    only the calling thread."""
    global _TASK
    total = len(items)
    if workers <= 1 or total <= 1 or not can_fork():
        out: list[R] = []
        for index, item in enumerate(items):
            out.append(function(item))
            if on_result is not None:
                on_result(index, total, index)
        return out
    if _TASK is not None:
        raise RuntimeError("forked_map does not nest")
    _TASK = (function, items)
    results: dict[int, R] = {}
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, total)) as pool:
            for done, (index, result) in enumerate(
                pool.imap_unordered(_run, range(total), chunksize=chunksize)
            ):
                results[index] = result
                if on_result is not None:
                    on_result(done, total, index)
    finally:
        _TASK = None
    return [results[i] for i in range(total)]
