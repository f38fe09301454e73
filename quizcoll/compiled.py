"""The compiled-collection cache: a loaded :class:`~deck.cards.model.Collection` remembered
between runs, so ``list``, ``show``, ``stats``, ``grade`` and the home screen do not parse
and validate every card file again (that is most of their time at 500 cards).

The key is made as the proof cache's is (:mod:`deck.proving.proofcache`): a hash of the
content of every card file (path and bytes), of the code that validates them (every module
and data file of ``deck`` and ``quizcoll`` — by path, size and modification time, which
any edit, checkout or install changes, so that a hit reads no source — Python's version
and numpy's installed files), and of how the files are named in messages and which folder
overrides built-in cards. Any change is a miss, never a stale collection.

The cache is a cache, not user data: one pickle per key in ``collections/`` of the user
cache directory, written atomically (:mod:`deck.base.safeio`), read through a size cap; a
file that is unreadable, too large, truncated, of another format or not a Collection is a
miss and is replaced. At most :data:`MAX_FILES` keys are kept (the oldest are removed).
The folder is the user's own (like ``__pycache__``): a file there is trusted as much as
the code the user runs. ``QUIZCOLL_NO_CACHE=1`` turns the cache off.

Beside each collection the cache keeps its *card index* (``KEY.index``): the id, deck and
tags of every card in order, which is all the review queue and the statistics read. The
home screen counts from it while the whole collection is still being read (:func:`read_index`,
same key, so it describes exactly the collection the key names).

The registry is built lazily (:class:`quizcoll.lazyregistry.LazyRegistry`): a cache hit for a
command that runs no executable (``list``, ``stats``) never imports the simulators and
calculators, and one that runs a card imports only that card's executables.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # the card model is imported only when a collection is read or built
    from deck.cards.model import Collection

FORMAT = b"quizcoll-collection-2\n"
INDEX_FORMAT = b"quizcoll-card-index-1\n"
MAX_INDEX_BYTES = 4 * 1024 * 1024  # 500 cards index in about 30 kB
MAX_CACHE_BYTES = 64 * 1024 * 1024  # 500 cards pickle to about 2 MB
MAX_FILES = 4  # the default collection, and a few --cards selections
DATA_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".csv")


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("quizcoll", appauthor=False)) / "collections"


CARD_FILE_SUFFIXES = (".yaml", ".yml")  # deck.cards.loader's (a test holds them equal)
MAX_CARD_FILE_BYTES = 32 * 1024 * 1024  # deck.cards.yamlsource's cap (likewise)


class CardRef(NamedTuple):
    """What the review queue, the statistics and the home screen read of a card."""

    id: str
    deck: str
    tags: tuple[str, ...]


def card_files(paths: Sequence[Path]) -> list[Path]:
    """The card files under ``paths`` in the loader's order, without importing the loader."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(
                sorted(f for f in p.rglob("*") if f.suffix in CARD_FILE_SUFFIXES and f.is_file())
            )
        else:
            out.append(p)
    return out


def _stat_line(path: Path) -> bytes:
    stat = path.stat()
    return f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode("utf-8", "surrogatepass")


def code_signature(h: Any) -> None:
    """Feed ``h`` the code and data the loader's result depends on (module docstring)."""
    import importlib.util
    import sys

    import deck
    import quizcoll

    h.update(f"{sys.version}\0".encode())
    for root in (Path(deck.__file__).parent, Path(quizcoll.__file__).parent):
        _feed_tree(h, str(root))
    spec = importlib.util.find_spec("numpy")
    if spec is not None and spec.origin:
        for path in (Path(spec.origin), Path(spec.origin).parent / "version.py"):
            if path.is_file():
                h.update(_stat_line(path))


SOURCE_SUFFIXES = (".py", *DATA_SUFFIXES)


def _feed_tree(h: Any, folder: str) -> None:
    """Feed ``h`` the path, size and mtime of every source and data file under ``folder``
    (sorted, ``__pycache__`` left out): one ``scandir`` per folder, one ``stat`` per file."""
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=True):
            if entry.name != "__pycache__":
                _feed_tree(h, entry.path)
        elif entry.name.endswith(SOURCE_SUFFIXES):
            stat = entry.stat()
            line = f"{entry.path}\0{stat.st_size}\0{stat.st_mtime_ns}\0"
            h.update(line.encode("utf-8", "surrogatepass"))


def collection_key(
    files: Sequence[Path], *, display_root: Path | None, overrides: Path | None
) -> str:
    """The cache key for loading ``files`` (see the module docstring)."""
    from deck.base.safeio import PathError, read_bytes

    h = hashlib.sha256(FORMAT)
    code_signature(h)
    h.update(f"{display_root}\0{overrides}\0".encode("utf-8", "surrogatepass"))
    for path in files:
        h.update(str(path).encode("utf-8", "surrogatepass") + b"\0")
        try:  # through the loader's own cap: never a device, a FIFO or an endless file
            h.update(hashlib.sha256(read_bytes(path, limit=MAX_CARD_FILE_BYTES)).digest())
        except (PathError, OSError) as exc:  # the loader reports it; the key says so
            h.update(f"error {exc}".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def read(key: str, folder: Path | None = None) -> Collection | None:
    """The remembered collection for ``key``; None on a miss of any kind."""
    from deck.base.safeio import PathError, read_bytes
    from deck.cards.model import Collection

    path = (folder or cache_dir()) / f"{key[:32]}.pickle"
    try:
        data = read_bytes(path, limit=MAX_CACHE_BYTES, what="collection cache")
    except (PathError, OSError):
        return None
    head = FORMAT + key.encode() + b"\n"
    if not data.startswith(head):
        return None
    try:
        collection = pickle.loads(data[len(head) :])
    except Exception:  # junk of any kind in a cache file is a miss
        return None
    return collection if isinstance(collection, Collection) else None


def write(key: str, collection: Collection, folder: Path | None = None) -> bool:
    """Remember ``collection`` under ``key``; False when it cannot be (never raises)."""
    from deck.base.safeio import PathError, write_bytes

    folder = folder or cache_dir()
    try:
        data = FORMAT + key.encode() + b"\n" + pickle.dumps(collection, protocol=5)
        if len(data) > MAX_CACHE_BYTES:
            return False
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes(folder / f"{key[:32]}.pickle", data, what="collection cache")
        write_index(key, collection, folder)
        from quizcoll.cardshelf import write_shelf

        write_shelf(key, collection, folder)
        _prune(folder)
    except (PathError, OSError, pickle.PicklingError, TypeError, AttributeError):
        return False
    return True


def _index_path(key: str, folder: Path | None) -> Path:
    return (folder or cache_dir()) / f"{key[:32]}.index"


def read_index(key: str, folder: Path | None = None) -> tuple[CardRef, ...] | None:
    """The card index remembered with the collection for ``key``; None on a miss of any
    kind (a missing, foreign, truncated or malformed file)."""
    from deck.base.safeio import PathError, read_bytes

    try:
        data = read_bytes(_index_path(key, folder), limit=MAX_INDEX_BYTES, what="card index")
    except (PathError, OSError):
        return None
    head = INDEX_FORMAT + key.encode() + b"\n"
    if not data.startswith(head):
        return None
    try:
        rows = marshal.loads(data[len(head) :])
        refs = tuple(CardRef(i, d, t) for i, d, t in rows)
    except Exception:  # junk of any kind in a cache file is a miss
        return None
    if not all(_is_ref(r) for r in refs):
        return None
    return refs


def _is_ref(ref: CardRef) -> bool:
    return (
        type(ref.id) is str
        and type(ref.deck) is str
        and type(ref.tags) is tuple
        and all(type(t) is str for t in ref.tags)
    )


def write_index(key: str, collection: Collection, folder: Path | None = None) -> bool:
    """Remember ``collection``'s card index under ``key``; False when it cannot be."""
    from deck.base.safeio import PathError, write_bytes

    rows = tuple((c.id, c.deck, tuple(c.tags)) for c in collection.cards)
    try:
        data = INDEX_FORMAT + key.encode() + b"\n" + marshal.dumps(rows)
        (folder or cache_dir()).mkdir(parents=True, exist_ok=True)
        write_bytes(_index_path(key, folder), data, what="card index")
    except (PathError, OSError, ValueError):
        return False
    return True


def _prune(folder: Path) -> None:
    files = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[MAX_FILES:]:
        old.unlink(missing_ok=True)
    kept = {p.stem for p in files[:MAX_FILES]}
    for pattern in ("*.index", "*.cards"):
        for side in folder.glob(pattern):
            if side.stem not in kept:
                side.unlink(missing_ok=True)


def enabled() -> bool:
    return os.environ.get("QUIZCOLL_NO_CACHE", "") in ("", "0")


def cached_load(
    files: Sequence[Path],
    load: Callable[[], Collection],
    *,
    display_root: Path | None,
    overrides: Path | None,
    on_file: Callable[[int, int, Path], Any] | None = None,
    key: str | None = None,
) -> Collection:
    """``load()``'s collection, from the cache when ``files`` and the code are unchanged.

    ``key``: the key already computed for ``files`` (whose index was shown); it is used to
    read only: a miss computes the key afresh, so files edited since are never stored
    under the old content's key."""
    if not enabled():
        return load()
    key = key or collection_key(files, display_root=display_root, overrides=overrides)
    collection = read(key)
    if collection is not None:
        if on_file is not None and files:
            on_file(len(files), len(files), files[-1])
        if not _index_path(key, None).is_file():  # a cache written before the index was
            write_index(key, collection)
        from quizcoll.cardshelf import shelf_path, write_shelf

        if not shelf_path(key, cache_dir()).is_file():  # or before the shelf was
            write_shelf(key, collection, cache_dir())
        return collection
    key = collection_key(files, display_root=display_root, overrides=overrides)
    collection = load()
    write(key, collection)
    return collection
