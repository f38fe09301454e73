"""Block sizes and block orders of every collective: how a rank's buffer becomes blocks.

:func:`block_elems` gives the element count of every block slot of every rank, cheaply
(a broadcast view when every rank has the same sizes, so 131,072 ranks cost one row);
it is all that counting needs. :func:`layout_for` adds which slots every rank's input
fills and which make up its output, for running and tracing at bounded sizes.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.layout import Layout, balanced
from quizcoll.collectives.schedules.recursive import Fold
from quizcoll.collectives.semantics import Collective, even_splits

C = Collective


def block_count(collective: Collective, algorithm: str, ranks: int) -> int:
    """Block slots per rank the algorithm cuts the data into (all_to_all adds N receive
    slots to these)."""
    if collective in (C.BROADCAST, C.REDUCE, C.ALL_REDUCE):
        if algorithm == "rabenseifner":
            return Fold(ranks).power
        return {
            "scatter_allgather": ranks,
            "reduce_scatter_gather": ranks,
            "ring": ranks,
            "hierarchical": ranks,
            "double_binary_tree": 2,
            "nccl_tree": 2,
        }.get(algorithm, 1)
    return ranks  # the per-rank pieces


def slot_count(collective: Collective, algorithm: str, ranks: int) -> int:
    """Block slots per rank, receive slots included."""
    blocks = block_count(collective, algorithm, ranks)
    return blocks + ranks if collective is C.ALL_TO_ALL else blocks


def block_elems(
    collective: Collective,
    algorithm: str,
    ranks: int,
    count: int,
    *,
    split_sizes: np.ndarray | None = None,
) -> np.ndarray:
    """``(ranks, slots)`` element counts of every block slot, read-only; a broadcast of
    one row unless all_to_all has uneven ``split_sizes``. A clear error where ``count``
    does not split as the collective needs."""
    n = ranks
    nblocks = block_count(collective, algorithm, n)
    if collective in (C.BROADCAST, C.REDUCE, C.ALL_REDUCE):
        sizes = balanced(count, nblocks)
    elif collective is C.REDUCE_SCATTER:
        sizes = even_splits(count, n, "reduce_scatter")
    elif collective is C.SCATTER:
        sizes = even_splits(count, n, "scatter")
    elif collective in (C.GATHER, C.ALL_GATHER):
        sizes = np.full(n, count, dtype=np.int64)
    elif split_sizes is None:  # all_to_all, even: every send and receive slot alike
        sizes = np.concatenate([even_splits(count, n, "all_to_all")] * 2)
    else:
        elems = np.concatenate([split_sizes, split_sizes.T], axis=1).astype(np.int64)
        elems.setflags(write=False)
        return elems
    return np.broadcast_to(sizes, (n, len(sizes)))


def layout_for(
    collective: Collective,
    algorithm: str,
    ranks: int,
    count: int,
    *,
    root: int = 0,
    split_sizes: np.ndarray | None = None,
) -> Layout:
    """The block layout of ``algorithm`` for ``count`` elements per rank (the schedule of
    an algorithm does not depend on the count, so one schedule serves every size)."""
    elems = block_elems(collective, algorithm, ranks, count, split_sizes=split_sizes)
    return layout_of(collective, elems, ranks, root)


def layout_of(collective: Collective, elems: np.ndarray, ranks: int, root: int) -> Layout:
    """The layout with block sizes ``elems`` (from :func:`block_elems`)."""
    n = ranks
    nblocks = elems.shape[1] - (n if collective is C.ALL_TO_ALL else 0)
    all_blocks = np.arange(nblocks)
    none = np.zeros(0, dtype=np.int64)

    def everyone(blocks: np.ndarray) -> list[np.ndarray | None]:
        return [blocks] * n

    def only_root(blocks: np.ndarray) -> list[np.ndarray | None]:
        return [blocks if r == root else None for r in range(n)]

    own = list(np.arange(n)[:, None])
    if collective in (C.BROADCAST, C.REDUCE, C.ALL_REDUCE):
        inputs = [
            all_blocks if collective is not C.BROADCAST or r == root else none for r in range(n)
        ]
        outputs = only_root(all_blocks) if collective is C.REDUCE else everyone(all_blocks)
    elif collective is C.REDUCE_SCATTER:
        inputs, outputs = everyone(all_blocks), own
    elif collective is C.SCATTER:
        inputs, outputs = [all_blocks if r == root else none for r in range(n)], own
    elif collective in (C.GATHER, C.ALL_GATHER):
        inputs = own
        outputs = only_root(all_blocks) if collective is C.GATHER else everyone(all_blocks)
    else:  # all_to_all: slot N + s receives from rank s; a rank's own piece stays put
        slots = np.tile(n + np.arange(n), (n, 1))
        np.fill_diagonal(slots, np.arange(n))
        inputs, outputs = everyone(np.arange(n)), list(slots)
    return Layout(elems=elems, inputs=tuple(inputs), outputs=tuple(outputs))
