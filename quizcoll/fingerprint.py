"""A fingerprint of everything that proves cards, for the proof cache of ``quizcoll check``.

A remembered proof is valid only for what made it: the engine (``deck``), the executables,
simulators, calculators and declared constants (``quizcoll``) — their Python source *and*
every data file they load (the bundled model ``config.json`` files, the tables of published
figures, any ``.json``/``.yaml``/``.csv``/``.toml`` package data) — and the versions of
Python, numpy, sympy and mpmath they run on. The fingerprint hashes all of it, bytes
included, so an edited module, an edited config, an upgraded library or another Python
makes every remembered proof a miss (see :mod:`deck.proving.proofcache`).

The cards themselves are not part of it: each proof's key holds its own card (every field,
its place in its file included), so an edited card re-proves that card only. The folder
of the built-in collection (``quizcoll/cards``) is therefore left out here.
"""

from __future__ import annotations

import hashlib
import platform
import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

# What proving may read: source and every kind of data file the packages ship.
SUFFIXES: frozenset[str] = frozenset({".py", ".json", ".yaml", ".yml", ".csv", ".toml", ".txt"})
# Libraries whose behaviour the proofs depend on (numerics, symbolic equivalence).
LIBRARIES: tuple[str, ...] = ("numpy", "sympy", "mpmath")
# The built-in collection (keyed card by card) and byte-code caches are not hashed.
_COLLECTION = ("quizcoll", "cards")
_CACHES = "__pycache__"


def code_fingerprint(roots: Iterable[Path] | None = None) -> str:
    """A hex digest of the source and data files of ``deck`` and ``quizcoll`` (or of
    ``roots``), and the versions of Python and of :data:`LIBRARIES`."""
    if roots is None:
        import deck
        import quizcoll

        roots = [Path(p.__file__).resolve().parent for p in (deck, quizcoll)]
    h = hashlib.sha256()
    versions = "\0".join(f"{name}={_version(name)}" for name in LIBRARIES)
    h.update(f"{sys.version}\0{platform.machine()}\0{versions}\0".encode())
    for root in roots:
        h.update(root.name.encode("utf-8", "surrogatepass") + b"\0\0")
        for path in proving_files(root):
            h.update(str(path.relative_to(root)).encode("utf-8", "surrogatepass") + b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


def proving_files(root: Path) -> list[Path]:
    """The files under ``root`` that proving may read, in a stable order."""
    out = []
    for path in root.rglob("*"):
        rel = path.relative_to(root).parts
        if _CACHES in rel or (root.name, *rel[:1]) == _COLLECTION or not path.is_file():
            continue
        if path.suffix.lower() in SUFFIXES:
            out.append(path)
    return sorted(out)


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def proof_cache_path() -> Path:
    """Where ``check`` remembers its proofs: the user cache directory (XDG on Linux)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("quizcoll", appauthor=False)) / "proofs.json"
