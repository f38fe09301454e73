"""Reading a model's ``config.json`` as hostile input: a regular file only, size-capped.

The descriptor is opened non-blocking and checked before anything is read, so a FIFO or a
device (``/dev/zero``) is refused at once instead of hanging; a file larger than the cap is
refused, and so is one that grows past it while it is read. Every fault is one
:class:`MemoryInputError` line naming the path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from quizcoll.memory.errors import MemoryInputError


def read_small_text(path: Path, *, limit: int, what: str) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``limit`` bytes of it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise MemoryInputError(f"{path}: no such file") from None
    except OSError as exc:
        raise MemoryInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise MemoryInputError(f"{path}: is {_kind(info.st_mode)}, expected a {what}")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise MemoryInputError(f"{path}: larger than a {what} may be ({limit:,} bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MemoryInputError(f"{path}: not UTF-8 text (offset {exc.start})") from None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a folder" if stat.S_ISDIR(mode) else "not a regular file"
