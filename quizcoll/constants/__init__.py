"""Declared constants: definitions and published figures that cards refer to by name.

A card never types "2 bytes per fp16 value" or "an H100 reports 81,559 MiB": it shows
``{=fp16_bytes}`` or checks ``{~81,559 MiB=h100_80gb_reported}``, and its ``expect``
formulas use the same names. Each figure lives here once, with its source (``quizcoll
check --list-constants`` prints them); figures the calculators already hold are taken from
them. One module per subject, each with a ``CONSTANTS`` tuple, listed in ``MODULES``.
"""

from __future__ import annotations

import importlib

from deck.cards.registry import Constant
from quizcoll.constants.base import TERMS as BASE_TERMS
from quizcoll.constants.base import gpu_constants
from quizcoll.constants.memory import TERMS as MEMORY_TERMS

MODULES: tuple[str, ...] = (
    "base",
    "collectives",
    "parallelism",
    "parallelism_systems",
    "inference",
    "hardware",
    "training",
    "memory",
    "published",
    "topics",
)

# Words that start with a digit but name things, from every subject module that has some.
TERMS: tuple[str, ...] = (*BASE_TERMS, *MEMORY_TERMS)

__all__ = ["MODULES", "TERMS", "all_constants"]


def all_constants() -> tuple[Constant, ...]:
    """Every declared constant of every subject module, in order."""
    out: list[Constant] = []
    for name in MODULES:
        out.extend(importlib.import_module(f"quizcoll.constants.{name}").CONSTANTS)
    return (*out, *gpu_constants())
