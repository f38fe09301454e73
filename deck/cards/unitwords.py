"""A unit printed twice: ``{n} GPUs`` when ``n`` already renders as ``8 GPUs``.

A parameter with a unit is shown with it (``296 GPUs``, ``1,024 MiB``), so text that writes
the unit again after the placeholder reads "296 GPUs GPUs". :func:`repeated_units` finds
each placeholder immediately followed (after a space or a hyphen) by its own unit word,
singular or plural ("params-parameter" too), for the loader to report at its position.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from deck import units
from deck.cards.model import ParamSpec

_NEXT = re.compile(r"(?<![A-Za-z}^_\\{])\{([A-Za-z_][\w]*)\}[\s\u00a0-]+([^\s,.;:?!)\-]+)")


def _stem(word: str) -> str:
    w = word.lower()
    return w[:-1] if w.endswith("s") and len(w) > 2 else w


def repeated_units(text: str, params: Sequence[ParamSpec]) -> Iterator[tuple[int, str]]:
    """(offset, message) for every ``{param}`` whose rendered unit the text repeats."""
    unit_of = {p.name: p.unit for p in params if p.unit}
    for m in _NEXT.finditer(text):
        unit = unit_of.get(m.group(1))
        if not unit:
            continue
        shown = units.lookup_unit(unit).symbol if units.is_unit(unit) else unit.split()[-1]
        a, b = _stem(shown), _stem(m.group(2))
        if a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a))):
            yield (
                m.start(),
                (
                    f"{{{m.group(1)}}} already shows its unit ({shown!r}); "
                    f"the text repeats it ({m.group(2)!r}): drop one"
                ),
            )
