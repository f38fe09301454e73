"""Declared constants: definitions and published figures that cards refer to by name.

A card never types "2 bytes per fp16 value" or "an H100 reports 81,559 MiB": it shows
``{=fp16_bytes}`` or checks ``{~81,559 MiB=h100_80gb_reported}``, and its ``expect``
formulas use the same names. Each figure lives once, with its source: definitions (unit
prefixes, format widths) and the few sums of cited layouts in the subject modules
(``MODULES``, each with a ``CONSTANTS`` tuple), every published figure in
``quizcoll/data/*.yaml`` with its source's words as ``quote`` (``DATA``, read by
:mod:`.data`) and each catalog model's shape in its ``config.json`` (:mod:`.models`).
``quizcoll check --list-constants`` prints them.

Nothing here imports the calculators, the simulator or the executables: these constants
are what proofs hold that code to. Figures that code derives are declared by the
executables (``quizcoll.executables.constants``) and marked derived, so that no proof's
``expect`` can use them.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

from deck.cards.registry import Constant
from quizcoll.constants.base import TERMS as BASE_TERMS
from quizcoll.constants.data import figures
from quizcoll.constants.models import model_constants

MODULES: tuple[str, ...] = ("base", "training", "memory", "topics")
DATA: tuple[str, ...] = (
    "links",
    "nccl",
    "gpus",
    "memory",
    "quant-formats",
    "training",
    "parameter-counts",
    "pytorch",
    "serving",
    "recipes",
    "runs",
    "parallelism",
    "systems",
    "formats",
    "collective-formats",
)


def worked_examples() -> tuple[str, ...]:
    """The data files of published worked examples (``quizcoll/data/examples-*.yaml``): a
    paper's, a datasheet's or a tool's own inputs and the result it prints, which a card
    runs its executable on and holds to the printed result."""
    from importlib import resources

    folder = resources.files("quizcoll").joinpath("data")
    names = (e.name for e in folder.iterdir() if e.name.endswith(".yaml"))
    return tuple(sorted(n[: -len(".yaml")] for n in names if n.startswith("examples-")))


# Words that start with a digit but name things (the catalog GPUs' names are added by the
# executables, which read the catalog).
TERMS: tuple[str, ...] = BASE_TERMS

# The subject modules' constants whose source text prints the figure itself ("a byte is 8
# bits"): that text is their quote, which ``check`` holds the value to
# (deck.proving.provenance). Only definitions stay in the modules; published figures carry
# their source's own words as ``quote`` in the data files.
QUOTED_IN_SOURCE: frozenset[str] = frozenset({"bits_per_byte", "seconds_per_hour"})

__all__ = ["DATA", "MODULES", "QUOTED_IN_SOURCE", "TERMS", "all_constants"]


def all_constants() -> tuple[Constant, ...]:
    """Every cited constant: the subject modules', the data files', the model configs'."""
    out: list[Constant] = []
    for name in MODULES:
        for c in importlib.import_module(f"quizcoll.constants.{name}").CONSTANTS:
            quoted = c.name in QUOTED_IN_SOURCE and not c.quote
            out.append(replace(c, quote=c.source) if quoted else c)
    for name in (*DATA, *worked_examples()):
        out.extend(figures(name))
    return (*out, *model_constants())
