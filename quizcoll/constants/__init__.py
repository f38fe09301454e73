"""Declared constants: definitions and published figures that cards refer to by name.

A card never types "2 bytes per fp16 value" or "an H100 reports 81,559 MiB": it shows
``{=fp16_bytes}`` or checks ``{~81,559 MiB=h100_80gb_reported}``, and its ``expect``
formulas use the same names. Each figure lives once, with its source: definitions and
figures no table holds in the subject modules (``MODULES``, each with a ``CONSTANTS``
tuple), published tables in ``quizcoll/data/*.yaml`` (``DATA``, read by
:mod:`.data`) and each catalog model's shape in its ``config.json`` (:mod:`.models`).
``quizcoll check --list-constants`` prints them.

Nothing here imports the calculators, the simulator or the executables: these constants
are what proofs hold that code to. Figures that code derives are declared by the
executables (``quizcoll.executables.constants``) and marked derived, so that no proof's
``expect`` can use them.
"""

from __future__ import annotations

import importlib

from deck.cards.registry import Constant
from quizcoll.constants.base import TERMS as BASE_TERMS
from quizcoll.constants.data import figures
from quizcoll.constants.models import model_constants

MODULES: tuple[str, ...] = (
    "base",
    "collectives",
    "parallelism",
    "parallelism_systems",
    "inference",
    "hardware",
    "training",
    "memory",
)
DATA: tuple[str, ...] = (
    "links",
    "nccl",
    "gpus",
    "memory",
    "quant-formats",
    "training",
    "parameter-counts",
)

# Words that start with a digit but name things (the catalog GPUs' names are added by the
# executables, which read the catalog).
TERMS: tuple[str, ...] = BASE_TERMS

__all__ = ["DATA", "MODULES", "TERMS", "all_constants"]


def all_constants() -> tuple[Constant, ...]:
    """Every cited constant: the subject modules', the data files', the model configs'."""
    out: list[Constant] = []
    for name in MODULES:
        out.extend(importlib.import_module(f"quizcoll.constants.{name}").CONSTANTS)
    for name in DATA:
        out.extend(figures(name))
    return (*out, *model_constants())
