"""The collection's executables, registered with the engine's registry.

Each submodule has ``register(registry)``; :func:`build_registry` runs them all once.
Cards reach these functions only by name (``run: collectives.cost``).
"""

from __future__ import annotations

import functools
import importlib

from deck.registry import Registry

# Submodules of quizcoll.executables, each with register(registry).
MODULES: tuple[str, ...] = ("units", "memory", "collectives")


@functools.cache
def build_registry() -> Registry:
    registry = Registry()
    for name in MODULES:
        importlib.import_module(f"quizcoll.executables.{name}").register(registry)
    return registry
