"""Reading a number with a unit: :func:`parse_quantity` (into a :class:`Quantity` in base
units, both readings for an ambiguous bare ``G``), :func:`parse_count` (``6.74B``,
``70 billion``), and the exact number splitter the checked readers of
:mod:`deck.units.numbers` build on. Every reading is finite and within
:data:`~deck.units.base.MAX_MAGNITUDE`. Callers import these from :mod:`deck.units`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation

from deck.units.base import (
    COUNT_SUFFIXES,
    MAX_MAGNITUDE,
    MAX_TEXT_MAGNITUDE,
    UNITS,
    Dim,
    RangeError,
    UnitError,
    lookup_unit,
)

# Bare prefixes after a byte amount ("14G"): decimal and binary readings.
_BINARY_PREFIX = re.compile(r"[KMGTP]i")
_AMBIGUOUS_BYTE_PREFIX = {"K": 1, "k": 1, "M": 2, "m": 2, "G": 3, "g": 3, "T": 4, "t": 4}

_NUMBER = re.compile(
    r"""^\s*(?P<sign>[-+−])?\s*
    (?P<num>(?:\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*)(?:\.\d*)?|\.\d+)
    (?:\s*(?:[eE](?P<exp>[-+]?\d+)|\s*[x×*]\s*10\s*(?:\^|\*\*)\s*(?P<exp10>[-+−]?\d+)))?
    \s*(?P<rest>.*?)\s*$""",
    re.VERBOSE,
)

MAX_TEXT = 200


@dataclass(frozen=True)
class Quantity:
    """A parsed amount in base units (bytes, bytes/s, seconds, plain count, ratio).

    ``candidates`` holds every plausible reading: one value normally, two for an
    ambiguous bare ``G``/``M``/``K`` byte suffix (decimal first, binary second).
    """

    value: float
    dim: Dim | None
    unit: str
    candidates: tuple[float, ...]

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1


def _split_exact(text: str) -> tuple[Decimal, str]:
    """The number at the start of ``text``, exactly, and the rest (a unit, a label)."""
    if not isinstance(text, str):
        raise UnitError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise UnitError("that is too long to be a number")
    m = _NUMBER.match(text)
    if not m:
        raise UnitError(f"{_shown(text)} is not a number")
    if _NOT_DECIMAL.match(text):
        raise UnitError(f"{_shown(text)}: write numbers in decimal (no 0x, 0o or 0b prefix)")
    num = m.group("num").replace(",", "").replace("_", "")
    exp = m.group("exp") or (m.group("exp10") or "").replace("−", "-") or "0"
    try:
        value = Decimal(f"{num}e{exp}")  # exact: no float rounding, no overflow
    except InvalidOperation:
        raise UnitError(f"{_shown(text)} is not a number") from None
    # adjusted() is the decimal exponent, read without arithmetic (1e999999999 would trap)
    if value and (value.adjusted() > 30 or _EXACT.abs(value) > _MAX_DECIMAL):
        raise RangeError(
            f"{_shown(text)} is out of range (numbers are limited to ±{MAX_TEXT_MAGNITUDE})"
        )
    if m.group("sign") in ("-", "−"):
        value = _EXACT.minus(value)
    return value, m.group("rest")


_MAX_DECIMAL = Decimal(f"{MAX_MAGNITUDE:g}")
# Arithmetic on the parsed digits without rounding: a number is at most MAX_TEXT characters.
_EXACT = Context(prec=2 * MAX_TEXT)
_NOT_DECIMAL = re.compile(r"^\s*[-+−]?\s*0[xXoObB][0-9a-fA-F_]")


def _shown(text: str) -> str:
    """``text`` quoted for a message, shortened if long."""
    t = text.strip()
    return repr(t) if len(t) <= 40 else repr(t[:37] + "...")


def _split_number(text: str) -> tuple[float, str]:
    value, rest = _split_exact(text)
    return float(value), rest


def _bounded(value: float, text: str) -> float:
    """A value after unit scaling: still finite and within :data:`MAX_MAGNITUDE`."""
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise RangeError(
            f"{_shown(text)} is out of range (numbers are limited to ±{MAX_TEXT_MAGNITUDE} "
            "in base units)"
        )
    return value


def parse_count(text: str) -> float:
    """Parse ``4096``, ``4,096``, ``6.74B``, ``1.5e10``, ``70 billion`` into a number."""
    value, rest = _split_number(text)
    rest = rest.strip()
    if not rest:
        return value
    if rest in COUNT_SUFFIXES:
        return _bounded(value * COUNT_SUFFIXES[rest], text)
    if rest.lower() in COUNT_SUFFIXES:
        return _bounded(value * COUNT_SUFFIXES[rest.lower()], text)
    raise UnitError(f"unknown unit {_shown(rest)} for a count")


def parse_quantity(text: str, dim: Dim | None = None, *, label: str | None = None) -> Quantity:
    """Parse a number with an optional unit.

    ``dim`` is the expected dimension: a bare number is taken in base units of it,
    and a unit of another dimension is an error. ``label`` is a card's own unit word
    (``S``, ``GPUs``, ``tokens``) which may follow the number and is then ignored.
    Every reading is finite and within :data:`MAX_MAGNITUDE` in base units.
    """
    q = _quantity(text, dim, label)
    for value in q.candidates:
        _bounded(value, text)
    return q


_LABEL_SPELLINGS = (
    (re.compile(r"\s*(?:/|\bper\s+)(?:s|sec|secs|second)\b"), "/s"),
    (re.compile(r"^(?:tok|toks|token)\b"), "tokens"),
)


def _label_form(text: str) -> str:
    """A label as its common spellings share it: ``tok/s``, ``tokens/sec`` and ``tokens per
    second`` are all ``tokens/s``."""
    form = text.strip().lower()
    for pattern, replacement in _LABEL_SPELLINGS:
        form = pattern.sub(replacement, form)
    return form


def _quantity(text: str, dim: Dim | None, label: str | None) -> Quantity:
    value, rest = _split_number(text)
    rest = rest.strip()
    if label and rest.lower().endswith(" " + label.lower()):
        head = rest[: -len(label)].strip()
        if head in COUNT_SUFFIXES:  # "6.74B params": the suffix before the label counts
            rest = head
    if label:
        stripped = re.sub(r"^[x×*·]\s*", "", rest)
        if stripped == label or _label_form(stripped) == _label_form(label):
            return Quantity(value, dim, label, (value,))
        if stripped == "/s" and label.endswith("/s"):  # "327/s" for tokens/s
            return Quantity(value, dim, label, (value,))
        if dim in (None, Dim.COUNT, Dim.RATIO) and rest.lower().rstrip("s") == label.lower().rstrip(
            "s"
        ):
            return Quantity(value, dim, label, (value,))
    if not rest:
        return Quantity(value, dim, "", (value,))
    if dim is Dim.BYTES and _BINARY_PREFIX.fullmatch(rest):
        rest += "B"  # "4 Gi": a binary prefix says which unit; only a byte amount is asked
    if dim is Dim.BYTES and rest in _AMBIGUOUS_BYTE_PREFIX:
        power = _AMBIGUOUS_BYTE_PREFIX[rest]
        dec, binary = value * 1000.0**power, value * 1024.0**power
        return Quantity(dec, dim, rest, (dec, binary))
    if dim in (Dim.COUNT, Dim.RATIO, None) and (
        rest in COUNT_SUFFIXES or rest.lower() in COUNT_SUFFIXES
    ):
        factor = COUNT_SUFFIXES.get(rest, COUNT_SUFFIXES.get(rest.lower(), 1.0))
        if dim is not None or rest not in UNITS:
            return Quantity(value * factor, dim or Dim.COUNT, rest, (value * factor,))
    if label and dim is Dim.COUNT:
        raise UnitError(f"expected a number of {label}, got unit {rest!r}")
    unit = lookup_unit(rest)
    if dim is not None and unit.dim is not dim:
        raise UnitError(f"{rest!r} is a unit of {unit.dim.value}, expected {dim.value}")
    return Quantity(value * unit.factor, unit.dim, unit.symbol, (value * unit.factor,))
