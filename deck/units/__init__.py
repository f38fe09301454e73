"""Quantities with units: parsing what people type and showing numbers for humans.

Four physical dimensions (bytes, bytes per second, seconds, counts) plus ratios.
GB is 10^9 bytes and GiB 2^30; a bare ``G``/``M``/``K`` after a byte amount is
ambiguous and parsed into both readings (see :attr:`Quantity.candidates`). Every
function raises :class:`UnitError`, never anything else, on bad text.

Every number read here is bounded: finite and at most :data:`MAX_MAGNITUDE` in size, in
base units and after unit scaling (so ``1e300 PiB`` or ``inf%`` is refused, never an
infinity). :func:`check_number` and :func:`parse_number` add a range and whole-number
check on top, with integers parsed exactly (``12345678901234567891`` is not rounded
through a float): they are the one number parser for flags, card fields, configs and
imported data. Out-of-range values raise :class:`RangeError`.

The pieces: :mod:`deck.units.base` (the errors, :class:`Dim`, the unit table, labels and
lookup), :mod:`deck.units.parser` (:func:`parse_quantity`, :func:`parse_count`),
:mod:`deck.units.numbers` (:func:`check_number`, :func:`parse_number`, :func:`to_base`) and
:mod:`deck.units.display` (the ``format_*`` functions). Import from this module: it is the
public API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from deck.units.base import (
    COUNT_SUFFIXES,
    LABELS,
    MAX_MAGNITUDE,
    MAX_TEXT_MAGNITUDE,
    SYMBOL_LABELS,
    UNITS,
    Dim,
    RangeError,
    Unit,
    UnitError,
    is_unit,
    lookup_unit,
    unit_dim,
)
from deck.units.display import (
    format_bytes,
    format_bytes_both,
    format_bytes_pair,
    format_count,
    format_in,
    format_number,
    format_rate,
    format_seconds,
    format_value,
)
from deck.units.numbers import check_number, parse_number, to_base

if TYPE_CHECKING:
    from deck.units.parser import MAX_TEXT, Quantity, parse_count, parse_quantity

_PARSER = ("MAX_TEXT", "Quantity", "parse_count", "parse_quantity")

__all__ = [
    "COUNT_SUFFIXES",
    "LABELS",
    "MAX_MAGNITUDE",
    "MAX_TEXT",
    "MAX_TEXT_MAGNITUDE",
    "SYMBOL_LABELS",
    "UNITS",
    "Dim",
    "Quantity",
    "RangeError",
    "Unit",
    "UnitError",
    "check_number",
    "format_bytes",
    "format_bytes_both",
    "format_bytes_pair",
    "format_count",
    "format_in",
    "format_number",
    "format_rate",
    "format_seconds",
    "format_value",
    "is_unit",
    "lookup_unit",
    "parse_count",
    "parse_number",
    "parse_quantity",
    "to_base",
    "unit_dim",
]


def __getattr__(name: str) -> Any:
    """The parser's names, imported on first use (checking a number needs no parser)."""
    if name in _PARSER:
        from deck.units import parser

        return getattr(parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
