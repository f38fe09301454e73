"""Checked numbers: :func:`check_number` (a number from YAML, JSON or a parse, within a range
and whole when asked), :func:`parse_number` (text typed by a person, integers read exactly)
and :func:`to_base` (a number or a string with a unit, in base units). The one number reader
for flags, card fields, configs and imported data. Callers import these from
:mod:`deck.units`.
"""

from __future__ import annotations

import math
from decimal import Decimal

from deck.units.base import (
    COUNT_SUFFIXES,
    MAX_MAGNITUDE,
    MAX_TEXT_MAGNITUDE,
    Dim,
    RangeError,
    UnitError,
)
from deck.units.display import format_number

# The parser (regular expressions, decimal contexts) is imported where text is read: a
# program that only checks numbers (the review scheduler and store) never loads it.


def to_base(value: object, dim: Dim) -> float:
    """A number (already in base units) or a string with a unit, as base units of ``dim``."""
    if isinstance(value, bool):
        raise UnitError(f"expected {dim.value}, got a boolean")
    if isinstance(value, int | float):
        return check_number(value, dim.value)
    if isinstance(value, str):
        from deck.units.parser import parse_quantity

        q = parse_quantity(value, dim)
        if q.ambiguous:
            raise UnitError(
                f"{value.strip()!r} is ambiguous: write {value.strip()}B (10^n) or {value.strip()}iB (2^n)"
            )
        return q.value
    raise UnitError(f"expected {dim.value}, got {type(value).__name__}")


def check_number(
    value: object,
    what: str,
    *,
    low: float | None = None,
    high: float | None = None,
    integer: bool = False,
) -> int | float:
    """``value`` (a number from YAML, JSON or a parse) if it is a real, finite number within
    ``[low, high]`` (default ±:data:`MAX_MAGNITUDE`), and whole when ``integer``.

    Returns an ``int`` for a whole number when ``integer`` is asked (``4.0`` → ``4``).
    Raises :class:`RangeError` (or :class:`UnitError` for a non-number) naming ``what``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UnitError(f"{_about(what)}expected a number, got {_kind_of(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise RangeError(f"{_about(what)}{value} is not a finite number")
    lo = -MAX_MAGNITUDE if low is None else low
    hi = MAX_MAGNITUDE if high is None else high
    if not lo <= value <= hi:  # int vs float compares exactly, without overflow
        raise RangeError(
            f"{_subject(what)}must be {_range_text(lo, hi, integer)}, got {_number_text(value)}"
        )
    if integer:
        if isinstance(value, float):
            if not value.is_integer():
                raise RangeError(
                    f"{_subject(what)}must be a whole number, got {_number_text(value)}"
                )
            return int(value)
        return value
    return value


def parse_number(
    text: str,
    what: str,
    *,
    dim: Dim = Dim.COUNT,
    low: float | None = None,
    high: float | None = None,
    integer: bool = False,
) -> int | float:
    """Text typed by a person (a flag, a config value) as a checked number.

    ``dim`` COUNT reads plain numbers and count suffixes (``4096``, ``4,096``, ``6.74B``,
    ``1e9``); another dimension reads a unit (``1GiB``, ``900GB/s``, ``5us``) into base units,
    refusing the ambiguous bare ``G``. Plain whole numbers are read exactly. The result is
    then checked as by :func:`check_number`.
    """
    if not isinstance(text, str):
        return check_number(text, what, low=low, high=high, integer=integer)
    from deck.units.parser import _EXACT, _shown, _split_exact

    try:
        if dim is Dim.COUNT:
            exact, rest = _split_exact(text)
            rest = rest.strip()
            if rest:
                factor = COUNT_SUFFIXES.get(rest, COUNT_SUFFIXES.get(rest.lower()))
                if factor is None:
                    raise UnitError(f"unknown unit {_shown(rest)} for a count")
                # exact: 6.74B is 6,740,000,000, not 6739999999.999
                exact = _EXACT.multiply(exact, Decimal(int(factor)))
            whole = integer and exact == exact.to_integral_value(context=_EXACT)
            value: int | float = int(exact) if whole else float(exact)
        else:
            value = to_base(text, dim)
    except RangeError as exc:
        raise RangeError(f"{_about(what)}{exc}") from None
    except UnitError as exc:
        raise UnitError(f"{_about(what)}{exc}") from None
    return check_number(value, what, low=low, high=high, integer=integer)


def _about(what: str) -> str:
    return f"{what}: " if what else ""


def _subject(what: str) -> str:
    return f"{what} " if what else ""


def _kind_of(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, str):
        from deck.units.parser import _shown

        return f"text {_shown(value)}"
    return type(value).__name__


def _number_text(value: float) -> str:
    if isinstance(value, int) and abs(value) >= 10**15:
        if value > 0 and (value + 1) & value == 0:
            return f"2^{value.bit_length()}-1"  # the usual bounds: 2^63-1, 2^32-1
        if abs(value) > 10**300:
            return f"a number of {len(str(abs(value)))} digits"
        return f"{value:.3e}"  # a 30-digit integer is unreadable; its size is what matters
    return format_number(value) if isinstance(value, int) else f"{value:g}"


def _range_text(lo: float, hi: float, integer: bool) -> str:
    kind = "a whole number" if integer else "a number"
    if lo == -MAX_MAGNITUDE and hi == MAX_MAGNITUDE:
        return f"{kind} within ±{MAX_TEXT_MAGNITUDE}"
    if hi == MAX_MAGNITUDE:
        return f"{kind} ≥ {_number_text(lo)}"
    if lo == -MAX_MAGNITUDE:
        return f"{kind} ≤ {_number_text(hi)}"
    return f"{kind} from {_number_text(lo)} to {_number_text(hi)}"
