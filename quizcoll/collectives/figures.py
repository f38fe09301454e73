"""The published link figures of ``quizcoll/data/links.yaml``, read by the presets that use them.

Each record there is ``{name, printed, …, source, quote}``: ``printed`` is the figure in the
source's own unit and ``quote`` the source's text that prints it, which ``check`` holds the
figure to. :func:`printed` gives a record's figure by name, so a preset table such as
:data:`quizcoll.collectives.hardware.PCIE` keeps no copy of its own: each figure lives once, in
the data file, with its second record beside it. The file is package data, read once through a
size cap; a missing or malformed record is a fault of the distribution (:class:`FiguresError`).
"""

from __future__ import annotations

import functools
import math
from importlib import resources

import yaml

# PyYAML's C parser where the install has it (the pure-Python one is 10x slower here).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DATA_BYTES = 1024 * 1024
_FILE = "links.yaml"


class FiguresError(ValueError):
    """A link figure the shipped data file lacks or does not hold as a number."""


@functools.cache
def _records() -> dict[str, float]:
    raw = resources.files("quizcoll").joinpath("data", _FILE).read_bytes()
    if len(raw) > MAX_DATA_BYTES:
        raise FiguresError(f"quizcoll/data/{_FILE}: larger than {MAX_DATA_BYTES:,} bytes")
    doc = yaml.load(raw.decode("utf-8"), Loader=_LOADER)
    items = doc.get("figures") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise FiguresError(f"quizcoll/data/{_FILE}: expected a mapping with a 'figures' list")
    out: dict[str, float] = {}
    for r in items:
        name, value = (r.get("name"), r.get("printed")) if isinstance(r, dict) else (None, None)
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not isinstance(name, str) or not ok or not math.isfinite(value):
            raise FiguresError(f"quizcoll/data/{_FILE}: a record without a name and number: {r!r}")
        out[name] = float(value)
    return out


def printed(name: str) -> float:
    """The figure of record ``name`` as its source prints it (in the record's unit)."""
    try:
        return _records()[name]
    except KeyError:
        raise FiguresError(f"quizcoll/data/{_FILE} has no figure {name!r}") from None
