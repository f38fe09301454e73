"""The review database on its own thread.

``sqlite3`` connections belong to the thread that opened them, and the interface
must never wait on the disk, so one worker thread opens the :class:`~deck.review.store.Store`
and runs every call against it in order. Screens ``await db.call(fn, ...)``: the
function runs as ``fn(store, ...)`` on that thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from deck.review.store import Store

P = ParamSpec("P")
T = TypeVar("T")


class Database:
    """A :class:`Store` owned by one thread; open lazily on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="quizcoll-db")
        self._store: Store | None = None

    def _store_here(self) -> Store:
        if self._store is None:
            self._store = Store.open(self.path)
            self._store.hold_session()  # `quizcoll rename` waits for the app to close (F14)
        return self._store

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
        return fn(self._store_here(), *args, **kwargs)

    def open_soon(self) -> None:
        """Open (or create) the store on its thread now, ahead of the first call: a new
        database's creation, and its fsync, then overlap whatever the caller does next."""
        self._executor.submit(self._store_here)

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``fn(store, *args, **kwargs)`` on the database thread."""
        return self._executor.submit(self._run, fn, args, kwargs)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Await ``fn(store, *args, **kwargs)`` run on the database thread."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    def close(self) -> None:
        """Close the store (on its thread) and stop the thread; waits for pending calls."""

        def _close() -> None:
            if self._store is not None:
                self._store.close()
                self._store = None

        self._executor.submit(_close).result()
        self._executor.shutdown(wait=True)
