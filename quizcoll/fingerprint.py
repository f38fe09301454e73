"""A fingerprint of the code that proves cards, for the proof cache of ``quizcoll check``.

A remembered proof is valid only for the code that made it: the engine (``deck``), the
executables, simulators, calculators and declared constants (``quizcoll``), and the
versions of Python and numpy they run on. The fingerprint hashes all of it, source
bytes included, so an edited module, an upgraded numpy or another Python makes every
remembered proof a miss (see :mod:`deck.proving.proofcache`).
"""

from __future__ import annotations

import hashlib
import platform
import sys
from importlib import metadata
from pathlib import Path


def code_fingerprint() -> str:
    """A hex digest of every module of ``deck`` and ``quizcoll``, Python's and numpy's versions."""
    import deck
    import quizcoll

    h = hashlib.sha256()
    h.update(f"{sys.version}\0{platform.machine()}\0{_version('numpy')}\0".encode())
    for package in (deck, quizcoll):
        root = Path(package.__file__).resolve().parent
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode("utf-8", "surrogatepass") + b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def proof_cache_path() -> Path:
    """Where ``check`` remembers its proofs: the user cache directory (XDG on Linux)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("quizcoll", appauthor=False)) / "proofs.json"
