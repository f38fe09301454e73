"""Files the program reads and writes, checked where the path enters.

Reading (:func:`read_bytes`, :func:`read_text`): only a regular file is read, with a byte
cap. The file is opened non-blocking and its type checked on the open descriptor, so a
FIFO, ``/dev/zero`` or a terminal is refused at once instead of being read forever.

Writing (:func:`write_text`, :func:`write_bytes`): the target must be a regular file or
not exist yet; a symbolic link, device, FIFO, socket or folder is refused, never replaced.
The data goes to a temporary file in the same folder, is ``fsync``'d, renamed over the
target, and the folder is ``fsync``'d: a failure (a full disk, no permission) leaves the old
file whole and raises one :class:`PathError` line. A replaced file keeps its permissions.

Folders (:func:`output_dir`, :func:`child`): an output folder is a folder (or is created);
a file name placed in it is one plain path component, so text from a card can never
lead a write out of the folder.

The review database (:func:`database_path`): a regular file, or absent (with no dangling
symbolic link in its place); never a device, FIFO or folder.

Every fault is a :class:`PathError` (a :class:`~deck.base.errors.DeckError`): one line, exit 2.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import uuid
from collections.abc import Callable
from pathlib import Path

from deck.base.errors import DeckError


class PathError(DeckError):
    """A path that cannot be read or written as asked; the message is one line."""


# -- naming a path ------------------------------------------------------------------------


def expand(text: str | os.PathLike[str], what: str = "path") -> Path:
    """``text`` as a path, with ``~`` and ``~user`` expanded; refused if it cannot be one."""
    raw = os.fspath(text)
    if "\x00" in raw:
        raise PathError(f"{what} {raw!r} contains a NUL character")
    if not raw:
        raise PathError(f"{what} is empty")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        # A name no one types: it would reach messages and the files we write verbatim.
        raise PathError(f"{what} {raw!r} contains a control character")
    if raw.startswith("~"):
        user = raw[1:].split(os.sep, 1)[0]
        expanded = os.path.expanduser(raw)
        if expanded == raw:
            who = f"user {user!r}" if user else "the home folder"
            raise PathError(f"{raw}: cannot expand '~': {who} is unknown")
        raw = expanded
    return Path(raw)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _reason(exc: OSError) -> str:
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


# -- reading ------------------------------------------------------------------------------


def read_bytes(path: str | os.PathLike[str], *, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    A FIFO, a device, a folder or a larger file is refused with a :class:`PathError`,
    without waiting on it (the descriptor is opened non-blocking and checked first).
    """
    p = expand(path, what)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise PathError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise PathError(f"{p}: is a folder, expected a {what}") from None
    except OSError as exc:
        raise PathError(f"{p}: cannot read: {_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PathError(f"{p}: is {_kind(info.st_mode)}, expected a {what}")
        if info.st_size > limit:
            raise PathError(
                f"{p}: {info.st_size:,} bytes is larger than a {what} may be ({limit:,} bytes)"
            )
        chunks: list[bytes] = []
        got = 0
        while got <= limit:  # the size can change while we read: the cap is on what we read
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise PathError(f"{p}: larger than a {what} may be ({limit:,} bytes)")
        return b"".join(chunks)
    except OSError as exc:
        raise PathError(f"{p}: cannot read: {_reason(exc)}") from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], *, limit: int, what: str = "file") -> str:
    """:func:`read_bytes` decoded as UTF-8 (a BOM is dropped); bad bytes name their offset."""
    data = read_bytes(path, limit=limit, what=what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PathError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


# -- writing ------------------------------------------------------------------------------


def check_output(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """``path`` as a file we may replace: a regular file, or nothing yet (its folder may be
    missing: writing creates it). Refuses symbolic links and special files."""
    p = expand(path, what)
    try:
        info = os.lstat(p)
    except FileNotFoundError:
        return p
    except OSError as exc:
        raise PathError(f"{p}: cannot use as {what}: {_reason(exc)}") from None
    if stat.S_ISLNK(info.st_mode):
        raise PathError(
            f"{p}: is a symbolic link; name the file itself (a link is never written through)"
        )
    if not stat.S_ISREG(info.st_mode):
        raise PathError(f"{p}: is {_kind(info.st_mode)}, not a regular file; nothing written")
    return p


def write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    what: str = "output file",
    check: Callable[[Path], None] | None = None,
) -> Path:
    """Replace (or create) the file at ``path`` with ``text`` in UTF-8; see :func:`write_bytes`."""
    return write_bytes(path, text.encode("utf-8"), what=what, check=check)


def write_bytes(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    what: str = "output file",
    check: Callable[[Path], None] | None = None,
) -> Path:
    """Replace (or create) the file at ``path`` with ``data``, atomically and durably.

    ``check(tmp)`` may inspect the written temporary file and raise to keep the old file.
    Returns the path written.
    """
    p = check_output(path, what)
    folder = p.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PathError(f"{p}: cannot create the folder {folder}: {_reason(exc)}") from None
    existed = os.path.lexists(p)
    mode = os.stat(p).st_mode & 0o7777 if existed else None
    tmp = folder / f".{p.name[:80]}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    kept = "the old file is unchanged" if existed else "nothing written"
    try:
        fd = os.open(tmp, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if check is not None:
            check(tmp)
        check_output(p, what)  # once more: the target may have changed while we wrote
        os.replace(tmp, p)
    except OSError as exc:
        raise PathError(f"{p}: cannot write: {_reason(exc)}; {kept}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _fsync_dir(folder)
    return p


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable (POSIX); a platform without folder fsync just skips it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def output_dir(path: str | os.PathLike[str], what: str = "output folder") -> Path:
    """A folder to write files into: created if missing; refused if something else is there."""
    p = expand(path, what)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise PathError(f"{p}: exists and is not a folder; nothing written") from None
    except OSError as exc:
        raise PathError(f"{p}: cannot create the folder: {_reason(exc)}") from None
    return p


def child(folder: Path, name: str) -> Path:
    """``folder / name`` where ``name`` must be one plain file name (no separator, no
    ``..``, no NUL, not hidden): text from a card can never point outside ``folder``."""
    bad = (
        not name
        or name in (".", "..")
        or name.startswith(".")
        or "\x00" in name
        or "/" in name
        or (os.altsep is not None and os.altsep in name)
        or os.sep in name
    )
    if bad:
        raise PathError(f"{name!r} is not a plain file name; nothing written outside {folder}")
    return folder / name


# -- the review database ------------------------------------------------------------------


def database_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a review database location: a regular file (a symbolic link to one is
    fine), or nothing yet. A device, FIFO, folder or a link to nothing is refused."""
    p = expand(path, "review database path")
    try:
        info = os.stat(p)  # follows links: the target is what SQLite opens
    except FileNotFoundError:
        if os.path.islink(p):
            raise PathError(
                f"{p}: is a symbolic link to nothing; the review database is never created "
                "through a link"
            ) from None
        return p
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathError(f"{p}: too many levels of symbolic links") from None
        raise PathError(f"{p}: cannot use as the review database: {_reason(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise PathError(f"{p}: is a folder, not a review database")
    if not stat.S_ISREG(info.st_mode):
        raise PathError(f"{p}: is {_kind(info.st_mode)}, not a review database; left unchanged")
    return p
