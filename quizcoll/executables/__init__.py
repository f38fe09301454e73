"""The collection's executables, registered with the engine's registry.

Each submodule has ``register(registry)``; :func:`build_registry` runs them all once.
Cards reach these functions only by name (``run: collectives.cost``).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from deck.cards.registry import ArgumentError, Registry

# Submodules of quizcoll.executables, each with register(registry).
MODULES: tuple[str, ...] = (
    "units",
    "memory",
    "memory_measured",
    "collectives",
    "primitives",
    "pipeline",
    "training",
    "compute",
    "serving",
    "serving_kv",
    "serving_vllm",
    "parallel",
    "moe_serving",
    "checkpoint",
    "layout",
    "overlap",
    "numerics",
    "estimates",
    "nccl",
    "hardware",
    "inference",
    "collectives_extra",
    "collectives_practice",
    "kernels",
    "fabric",
    "training_systems",
    "mistakes",
    "constants",
    "labels",
)


@functools.cache
def calculator_refusals() -> tuple[type[Exception], ...]:
    """The error types the calculators raise for inputs they refuse (each a ValueError of its
    own: the calculators import nothing from the engine)."""
    from quizcoll.collectives.errors import CollectiveError
    from quizcoll.collectives.nccl.topology import NcclModelError
    from quizcoll.memory.errors import MemoryInputError
    from quizcoll.systems.errors import SystemsInputError

    return (CollectiveError, NcclModelError, MemoryInputError, SystemsInputError)


def witness_modules() -> tuple[str, ...]:
    """The ``witness_*`` submodules: each registers second methods (``witness.*``, see
    :mod:`quizcoll.witnesses`) and declares how they obtain their results."""
    import pkgutil

    return tuple(
        sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("witness_"))
    )


def build_registry() -> Registry:
    return build_indexed_registry()[0]


def build_indexed_registry() -> tuple[Registry, dict[str, str], tuple[str, ...]]:
    """The whole registry; which submodule registered each executable; and the submodules
    that register mistake detectors (the index that lets
    :class:`quizcoll.lazyregistry.LazyRegistry` import only what a command runs)."""
    registry = Registry(refusals=calculator_refusals)
    modules: dict[str, str] = {}
    detecting: list[str] = []
    for name in (*MODULES, *witness_modules()):
        detectors = len(registry.detectors)
        importlib.import_module(f"quizcoll.executables.{name}").register(registry)
        modules.update({n: name for n in registry.names() if n not in modules})
        if len(registry.detectors) > detectors:
            detecting.append(name)
    return registry, modules, tuple(detecting)


def refusals_as_argument_errors(
    function: Callable[..., Any],
    refusal: Callable[[], type[Exception] | tuple[type[Exception], ...]],
) -> Callable[..., Any]:
    """``function`` with its domain's refusals (the type or types ``refusal()`` returns,
    resolved at call time so the domain module is imported only when a card runs) reported
    as the registry's one-line :class:`ArgumentError`."""

    @functools.wraps(function)
    def wrapped(**kwargs: Any) -> Any:
        try:
            return function(**kwargs)
        except refusal() as exc:
            raise ArgumentError(str(exc)) from None

    return wrapped
