"""Review sessions announce themselves, so that ``rename`` never splits a card's history.

A session (the app, ``review --plain``) that loaded a card under its old id would keep
writing its ratings under that id after ``quizcoll rename OLD NEW`` in another terminal:
one review under each id, and no command to merge them (review 3, F14). So every review
session holds a *shared* ``flock`` on ``DB.sessions`` beside the database for as long as it
is open, and :meth:`~deck.review.store.Store.rename_card` takes the lock *exclusively*
without waiting: while any session is open it refuses in one line. The kernel drops a lock
when its process ends, however it ends, so a crashed session never blocks a rename.

The lock file is opened like every file we touch: ``O_NOFOLLOW``, non-blocking, and refused
unless it is a regular file. Where ``flock`` does not exist (Windows) there is no lock.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from deck.base.errors import DeckError


class SessionBusy(DeckError):
    """Another review session has the database open."""


def lock_path(db: Path) -> Path:
    return db.with_name(db.name + ".sessions")


class SessionLock:
    """A ``flock`` on :func:`lock_path` of a database: shared for a session, exclusive for
    a rename. :meth:`release` (or the end of the process) lets it go."""

    def __init__(self, db: Path, *, exclusive: bool) -> None:
        self.path = lock_path(db)
        self._fd: int | None = None
        if fcntl is None:
            return
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as exc:
            raise DeckError(
                f"{self.path}: cannot use as the session lock: {exc.strerror}"
            ) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise DeckError(f"{self.path}: not a regular file; remove it (the session lock)")
            mode = fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH
            try:
                fcntl.flock(fd, mode)
            except BlockingIOError:
                raise SessionBusy(
                    f"{db}: a review session (the app or review --plain) has this database "
                    "open; finish it first, so that its next rating is not stored under the "
                    "old id"
                ) from None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None
