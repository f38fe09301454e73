"""Declared constants: definitions and published figures that cards refer to by name.

A card never types "2 bytes per fp16 value" or "an H100 reports 81,559 MiB": it shows
``{=fp16_bytes}`` or checks ``{~81,559 MiB=h100_80gb_reported}``, and its ``expect``
formulas use the same names. Each figure lives here once, with its source (``quizcoll
check --list-constants`` prints them); figures the calculators already hold are taken from
them. One module per subject, each with a ``CONSTANTS`` tuple, listed in ``MODULES``.
"""

from __future__ import annotations

import importlib

from deck.registry import Constant
from quizcoll.constants.base import TERMS, gpu_constants

MODULES: tuple[str, ...] = (
    "base",
    "collectives",
    "parallelism",
    "parallelism_systems",
    "inference",
    "hardware",
    "training",
)

__all__ = ["MODULES", "TERMS", "all_constants"]


def all_constants() -> tuple[Constant, ...]:
    """Every declared constant of every subject module, in order."""
    out: list[Constant] = []
    for name in MODULES:
        out.extend(importlib.import_module(f"quizcoll.constants.{name}").CONSTANTS)
    return (*out, *gpu_constants())
