"""The application's registry, built only as far as a command needs it.

Building the whole registry imports every calculator and simulator (numpy among them) and
reads every published figure: a quarter of a second that ``show`` and ``grade`` would pay
to run one card's two or three executables. :class:`LazyRegistry` stands in for it:

- with no index remembered, the first use builds the whole registry and remembers, in the
  user cache directory, which ``quizcoll.executables`` module registers each executable and
  the declared constants (the *registry index*);
- with the index, :meth:`LazyRegistry.get`, :meth:`LazyRegistry.call` and
  :attr:`LazyRegistry.constants` fill a partial registry: the constants from the index, and
  for each executable asked for, its own module's registrations only;
- any other use (listing executables, derivations, terms, labels) builds the whole registry.

The index is keyed like the compiled-collection cache (:func:`quizcoll.compiled.code_signature`:
every module and data file of ``deck`` and ``quizcoll``, Python's and numpy's versions), so an
edit, checkout or install is a miss, never a stale index. It is a cache, not user data: read
through a size cap, written atomically, and any unreadable or foreign file is a miss.
``QUIZCOLL_NO_CACHE=1`` turns it off (every use then builds the whole registry).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck.cards.registry import Constant, Executable, Registry, Result

FORMAT = b"quizcoll-registry-index-1\n"
MAX_INDEX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class RegistryIndex:
    """Which executables module registers each executable, the modules that register mistake
    detectors, and the declared constants."""

    modules: Mapping[str, str]
    detector_modules: tuple[str, ...]
    constants: tuple[Constant, ...]


@functools.cache
def index_key() -> str:
    from quizcoll.compiled import code_signature

    h = hashlib.sha256(FORMAT)
    code_signature(h)
    return h.hexdigest()


def index_path() -> Path:
    from quizcoll.compiled import cache_dir

    return cache_dir().parent / "registry" / f"{index_key()[:32]}.pickle"


def read_index() -> RegistryIndex | None:
    """The remembered index for this code; None on a miss of any kind."""
    from deck.base.safeio import PathError, read_bytes

    try:
        data = read_bytes(index_path(), limit=MAX_INDEX_BYTES, what="registry index")
    except (PathError, OSError):
        return None
    head = FORMAT + index_key().encode() + b"\n"
    if not data.startswith(head):
        return None
    try:
        index = pickle.loads(data[len(head) :])
    except Exception:  # junk of any kind in a cache file is a miss
        return None
    return index if isinstance(index, RegistryIndex) else None


def write_index(index: RegistryIndex) -> bool:
    """Remember ``index`` for this code (old indexes are removed); never raises."""
    from deck.base.safeio import PathError, write_bytes

    path = index_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob("*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)
        data = FORMAT + index_key().encode() + b"\n" + pickle.dumps(index, protocol=5)
        write_bytes(path, data, what="registry index")
    except (PathError, OSError, pickle.PicklingError, TypeError, AttributeError):
        return False
    return True


class LazyRegistry:
    """The application's registry, built as far as it is used (see the module docstring)."""

    def __init__(self) -> None:
        self._built: Registry | None = None
        self._partial: Registry | None = None
        self._index: RegistryIndex | None = None
        self._registered: set[str] = set()

    def real(self) -> Registry:
        """The whole registry, built once; remembers the index for the next run."""
        if self._built is None:
            from quizcoll import compiled
            from quizcoll.executables import build_indexed_registry

            self._built, modules, detecting = build_indexed_registry()
            if compiled.enabled():
                constants = tuple(self._built.constants.values())
                write_index(RegistryIndex(modules, detecting, constants))
        return self._built

    def _partial_for(self, name: str | None) -> Registry | None:
        """The partial registry holding ``name`` (None: just the constants), or None when
        there is no index or it does not know the name."""
        if self._built is not None:
            return None
        if self._partial is None:
            from quizcoll import compiled

            index = read_index() if compiled.enabled() else None
            if index is None:
                return None
            from quizcoll.executables import calculator_refusals

            partial = Registry(refusals=calculator_refusals)
            for constant in index.constants:
                partial.add_constant(constant)
            self._index, self._partial = index, partial
        assert self._index is not None
        if name is None:
            return self._partial
        module = self._index.modules.get(name)
        if module is None:
            return None
        self._register(module)
        return self._partial

    def _register(self, module: str) -> None:
        if module not in self._registered:
            self._registered.add(module)
            importlib.import_module(f"quizcoll.executables.{module}").register(self._partial)

    def get(self, name: str) -> Executable:
        partial = self._partial_for(name)
        return (partial if partial is not None else self.real()).get(name)

    def call(self, name: str, args: Mapping[str, Any]) -> Result:
        partial = self._partial_for(name)
        return (partial if partial is not None else self.real()).call(name, args)

    @property
    def constants(self) -> Mapping[str, Constant]:
        partial = self._partial_for(None)
        return (partial if partial is not None else self.real()).constants

    @property
    def detectors(self) -> tuple[Any, ...]:
        partial = self._partial_for(None)
        if partial is None:
            return self.real().detectors
        assert self._index is not None
        for module in self._index.detector_modules:
            self._register(module)
        return partial.detectors

    def __bool__(self) -> bool:  # a registry, however empty so far (never a build to find out)
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)

    def __contains__(self, name: object) -> bool:
        return name in self.real()

    def __iter__(self) -> Any:
        return iter(self.real())

    def __len__(self) -> int:
        return len(self.real())
