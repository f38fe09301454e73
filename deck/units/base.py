"""The vocabulary of quantities: :class:`UnitError` and :class:`RangeError`, the bound on
every number (:data:`MAX_MAGNITUDE`), the dimensions (:class:`Dim`), the unit table
(:data:`UNITS`), a card's own unit words (:data:`LABELS`), the count suffixes, and looking a
unit up by its symbol. Callers import these from :mod:`deck.units`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from deck.base.errors import DeckError


class UnitError(DeckError, ValueError):
    """Text that is not a number with a known unit."""


class RangeError(UnitError):
    """A number outside the range its input allows (or not finite, or not whole)."""


# No input (card, flag, config, answer, import) needs a larger number: the largest byte or
# FLOP counts the collection talks about are around 1e26. Far enough from the float limit
# (1.8e308) that scaling by any unit (at most 2^50) stays finite.
MAX_MAGNITUDE = 1e30
MAX_TEXT_MAGNITUDE = "1e30"  # how messages and docs write it


class Dim(enum.Enum):
    BYTES = "bytes"
    RATE = "bytes/s"
    SECONDS = "seconds"
    COUNT = "count"
    RATIO = "ratio"
    TEXT = "text"  # a result field that is not a number (a name, a verdict)


@dataclass(frozen=True)
class Unit:
    symbol: str
    dim: Dim
    factor: float  # base units per one of this unit


def _table() -> dict[str, Unit]:
    units: dict[str, Unit] = {}

    def add(dim: Dim, factor: float, *symbols: str) -> None:
        for s in symbols:
            units[s] = Unit(symbols[0], dim, factor)

    add(Dim.BYTES, 1, "B", "byte", "bytes")
    for i, p in enumerate("KMGTP", start=1):
        add(Dim.BYTES, 1000.0**i, f"{p}B", f"{p.lower()}B" if p == "K" else f"{p}B")
        add(Dim.BYTES, 1024.0**i, f"{p}iB")
        add(Dim.RATE, 1000.0**i, f"{p}B/s", f"{p}Bps")
        add(Dim.RATE, 1024.0**i, f"{p}iB/s")
        add(Dim.RATE, 1000.0**i / 8, f"{p}b/s", f"{p}bit/s", f"{p}bps")
        # Sizes in bits: a "24 Gb" DRAM die is 3 GB. A lower-case b is a bit everywhere.
        add(Dim.BYTES, 1000.0**i / 8, f"{p}b", f"{p}bit", f"{p}bits")
    add(Dim.RATE, 1, "B/s", "bytes/s")
    add(Dim.RATE, 1 / 8, "b/s", "bit/s", "bps")
    add(Dim.SECONDS, 1, "s", "sec", "secs", "second", "seconds")
    add(Dim.SECONDS, 1e-3, "ms", "msec")
    add(Dim.SECONDS, 1e-6, "us", "µs", "μs", "usec")
    add(Dim.SECONDS, 1e-9, "ns", "nsec")
    add(Dim.SECONDS, 60, "min", "mins", "minute", "minutes")
    add(Dim.SECONDS, 3600, "h", "hr", "hour", "hours")
    add(Dim.SECONDS, 86400, "days", "day")  # training runs: "2.4 days"
    add(Dim.RATIO, 0.01, "%")
    return units


UNITS: dict[str, Unit] = _table()


def _fold(symbol: str) -> str:
    """A symbol with its case folded except for b and B (bits and bytes): ``gB`` and ``GB``
    are one unit, ``Gb`` and ``GB`` are not. Spelled-out words (``Bytes``) fold entirely."""
    if "byte" in symbol.lower() or "sec" in symbol.lower():
        return symbol.lower()
    return "".join(c if c in "bB" else c.lower() for c in symbol)


_FOLDED = {_fold(k): v for k, v in UNITS.items()}

# A card's own unit words: not physical units, they only label a count or a ratio.
LABELS: frozenset[str] = frozenset(
    {
        "S",
        "Ψ",
        "N",
        "x",
        "×",
        "GPU",
        "GPUs",
        "node",
        "nodes",
        "rank",
        "ranks",
        "token",
        "tokens",
        "tokens/s",
        "param",
        "params",
        "parameters",
        "step",
        "steps",
        "layer",
        "layers",
        "head",
        "heads",
        "chunk",
        "chunks",
        "round",
        "rounds",
        "message",
        "messages",
        "element",
        "elements",
        "sequence",
        "sequences",
        "bit",
        "bits",
        "bits/weight",
        "bytes/param",
        "bytes/token",
        "all-reduces",
        "collectives",
        "hops",
        "transfers",
        "experts",
        "FLOPs",
        "TFLOPs",
        "FLOPs/byte",
        "times",
    }
)

# Labels that stand for a quantity (the message size S, the parameter count Ψ): "1.75 × S".
SYMBOL_LABELS: frozenset[str] = frozenset({"S", "Ψ", "N"})

# Count suffixes (K, M, B for billion, T): the way people write parameter counts.
COUNT_SUFFIXES: dict[str, float] = {
    "k": 1e3,
    "K": 1e3,
    "thousand": 1e3,
    "M": 1e6,
    "m": 1e6,
    "million": 1e6,
    "mn": 1e6,
    "B": 1e9,
    "b": 1e9,
    "G": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "T": 1e12,
    "t": 1e12,
    "trillion": 1e12,
}


def lookup_unit(symbol: str) -> Unit:
    """Find a unit by symbol; exact case first, then any case but that of b and B: ``Gb``,
    ``Gbit`` and ``Gb/s`` are bits, ``GB`` and ``GB/s`` bytes."""
    s = symbol.strip()
    if s in UNITS:
        return UNITS[s]
    if s in LABELS:  # "S" is the message size, not seconds
        raise UnitError(f"{s!r} is a label, not a unit")
    folded = _fold(s)
    if folded in _FOLDED:
        return _FOLDED[folded]
    if "ib" in s.lower() and s.lower().replace("ib", "iB", 1) in _FOLDED:
        return _FOLDED[s.lower().replace("ib", "iB", 1)]  # "gib": no binary bit unit exists
    raise UnitError(f"unknown unit {s!r}")


def is_unit(symbol: str) -> bool:
    try:
        lookup_unit(symbol)
    except UnitError:
        return False
    return True


def unit_dim(symbol: str) -> Dim | None:
    """Dimension of a known unit symbol, or None for a card's own label (``S``, ``GPUs``)."""
    try:
        return lookup_unit(symbol).dim
    except UnitError:
        return None
