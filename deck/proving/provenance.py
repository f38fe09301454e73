"""Provenance of the declared constants: a cited figure must be the one its source prints.

A cited constant (:class:`deck.cards.registry.Constant`) may carry ``quote``, the figure as
its source prints it (a line of NCCL's ``tuning.cc``, a key of a model's ``config.json``, a
datasheet's table row). That quote is a second record of the figure, typed apart from the
value: :func:`check_constants` requires that some number the quote prints equals the value,
expressed in the constant's display unit (``6.6`` for 6.6 µs) or in base units. An edited
value, or a quote of another figure, fails ``check`` at the record's ``PATH:LINE``.

A cell of a published table is held by position instead: :func:`listed_numbers` reads the
numbers a quoted initializer lists, in order (comments dropped, ``2*141.0`` read as one
number), and the cell must be the one at its ``quote_index``. Two cells swapped, or a cell
set to another figure of its own row, fail where "some number of the quote" would not.

:func:`provenance_counts` counts cited (with and without a quote) and derived constants
for reports.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from deck import units
from deck.cards.model import Location
from deck.cards.registry import Constant, Registry
from deck.proving.failures import Failure

# A number as sources print it: 143771, 143,771, 6.6, 1.25e-3, 0.92 (no sign: "−" varies).
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+|(?=\.\d))(\.\d+)?(?:[eE]([-+]?\d+))?")
# A product as source code prints a size: 1024 * 1024, 16 * 1024 * 1024, 2 × 1024.
_PRODUCT = re.compile(r"(?<![\w.])\d+(?:\s*[*×]\s*\d+)+(?![\w.])")
_BOOLEAN = re.compile(r"\b(true|false)\b")  # JSON's booleans: a config's flags are figures too
_REL = 1e-9
MAX_QUOTE_CHARS = 2000


def printed_numbers(quote: str) -> list[float]:
    """Every number ``quote`` prints, in order (thousands separators read as such), then
    the value of each product of integers it prints (``1024 * 1024``, as source code writes
    a size), then JSON's ``true``/``false`` as 1/0."""
    out = []
    text = quote[:MAX_QUOTE_CHARS]
    for m in _NUMBER.finditer(text):
        digits = (m.group(1).replace(",", "") or "0") + (m.group(2) or "")
        exponent = m.group(3)
        out.append(float(digits) * (10.0 ** int(exponent) if exponent else 1.0))
    for m in _PRODUCT.finditer(text):
        factors = re.split(r"\s*[*×]\s*", m.group(0))
        if all(len(f) <= 12 for f in factors):  # a size, not a digit string to overflow on
            out.append(float(math.prod(int(f) for f in factors)))
    out += [1.0 if m.group(1) == "true" else 0.0 for m in _BOOLEAN.finditer(text)]
    return out


# Source-code comments, which print numbers that are no table's cells (``/* N1/N2/N4 */``).
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
# An initializer's number: 6.8, .9, 0.85f, 2*141.0 (a product is one cell); not the digits of
# a name (X86, sm90SpeedArray).
_LISTED = re.compile(
    r"(?<![\w.])((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fF]?"
    r"(?:\s*\*\s*((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fF]?)?(?![\w.])"
)


def listed_numbers(quote: str) -> list[float]:
    """The numbers a quoted table lists, in order: C comments dropped, a product of two
    numbers (``2*141.0``) read as its value, a float suffix (``0.85f``) ignored."""
    text = _COMMENT.sub(" ", quote[:MAX_QUOTE_CHARS])
    return [
        float(m.group(1)) * (float(m.group(2)) if m.group(2) else 1.0)
        for m in _LISTED.finditer(text)
    ]


def _scales(constant: Constant) -> list[float]:
    """What one printed unit is in base units: the display unit's factor, and 1."""
    scales = [1.0]
    if constant.unit:
        try:
            unit = units.lookup_unit(constant.unit)
        except units.UnitError:
            unit = None
        if unit is not None and unit.dim is constant.dimension:
            scales.insert(0, unit.factor)
    if constant.dimension is units.Dim.RATIO:
        scales.append(0.01)  # a percentage: "92%"
    return scales


def _quoted(constant: Constant) -> list[float]:
    """The numbers of the quote the constant may be: the one at its place for a table
    cell, any for a figure."""
    if constant.quote_index is None:
        return printed_numbers(constant.quote)
    listed = listed_numbers(constant.quote)
    i = constant.quote_index
    return listed[i : i + 1] if 0 <= i < len(listed) else []


def quote_prints_value(constant: Constant) -> bool:
    """True when the constant's quote prints its value in one of its scales: some number of
    it, or for a table cell the number at the cell's place."""
    numbers = _quoted(constant)
    for scale in _scales(constant):
        for n in numbers:
            v = n * scale
            if math.isclose(v, constant.value, rel_tol=_REL, abs_tol=1e-300):
                return True
    return False


def _location(where: str) -> Location | None:
    path, _, line = where.rpartition(":")
    if not path or not line.isdigit():
        return None
    return Location(path, int(line), 1)


def check_constants(constants: Iterable[Constant]) -> tuple[Failure, ...]:
    """A failure for each quoted constant whose quote does not print its value."""
    out = []
    for c in constants:
        if c.quote and not quote_prints_value(c):
            out.append(
                Failure(
                    c.name,
                    _location(c.where),
                    "provenance",
                    f"the quote {c.quote!r} ({c.source}) does not print this value",
                    expected=f"{c.value:g}{' (shown in ' + c.unit + ')' if c.unit else ''}",
                    actual=", ".join(f"{n:g}" for n in _quoted(c)) or "no number",
                    subject="constant",
                )
            )
    return tuple(out)


def provenance_counts(registry: Registry) -> dict[str, int]:
    """How many constants are cited with a quote, cited without one, and derived."""
    cs = list(registry.constants.values())
    return {
        "constants": len(cs),
        "cited_quoted": sum(1 for c in cs if c.cited and c.quote),
        "cited_unquoted": sum(1 for c in cs if c.cited and not c.quote),
        "derived": sum(1 for c in cs if not c.cited),
    }
