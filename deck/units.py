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
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation

from deck.errors import DeckError


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
_LOWER = {k.lower(): v for k, v in UNITS.items()}

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

# Bare prefixes after a byte amount ("14G"): decimal and binary readings.
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


def lookup_unit(symbol: str) -> Unit:
    """Find a unit by symbol; exact case first (Gb/s is bits, GB/s bytes), then any case."""
    s = symbol.strip()
    if s in UNITS:
        return UNITS[s]
    if s in LABELS:  # "S" is the message size, not seconds
        raise UnitError(f"{s!r} is a label, not a unit")
    low = s.lower()
    # Case-insensitive only where it cannot confuse bits and bytes.
    if "b/s" not in low and "bps" not in low and "bit" not in low and low in _LOWER:
        return _LOWER[low]
    raise UnitError(f"unknown unit {s!r}")


def is_unit(symbol: str) -> bool:
    try:
        lookup_unit(symbol)
    except UnitError:
        return False
    return True


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


def _quantity(text: str, dim: Dim | None, label: str | None) -> Quantity:
    value, rest = _split_number(text)
    rest = rest.strip()
    if label and rest.lower().endswith(" " + label.lower()):
        head = rest[: -len(label)].strip()
        if head in COUNT_SUFFIXES:  # "6.74B params": the suffix before the label counts
            rest = head
    if label:
        stripped = re.sub(r"^[x×*·]\s*", "", rest)
        if stripped == label or stripped.lower() == label.lower():
            return Quantity(value, dim, label, (value,))
        if dim in (None, Dim.COUNT, Dim.RATIO) and rest.lower().rstrip("s") == label.lower().rstrip(
            "s"
        ):
            return Quantity(value, dim, label, (value,))
    if not rest:
        return Quantity(value, dim, "", (value,))
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


def to_base(value: object, dim: Dim) -> float:
    """A number (already in base units) or a string with a unit, as base units of ``dim``."""
    if isinstance(value, bool):
        raise UnitError(f"expected {dim.value}, got a boolean")
    if isinstance(value, int | float):
        return check_number(value, dim.value)
    if isinstance(value, str):
        q = parse_quantity(value, dim)
        if q.ambiguous:
            raise UnitError(
                f"{value.strip()!r} is ambiguous: write {value.strip()}B (10^n) or {value.strip()}iB (2^n)"
            )
        return q.value
    raise UnitError(f"expected {dim.value}, got {type(value).__name__}")


# ----------------------------------------------------------------------------- bounded numbers


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


def unit_dim(symbol: str) -> Dim | None:
    """Dimension of a known unit symbol, or None for a card's own label (``S``, ``GPUs``)."""
    try:
        return lookup_unit(symbol).dim
    except UnitError:
        return None


# ----------------------------------------------------------------------------- formatting


def format_number(value: float, digits: int = 4) -> str:
    """Thousands separators for whole numbers, ``digits`` significant digits otherwise."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 1e15
    ):
        return f"{int(value):,}"
    if value == 0 or not math.isfinite(value):
        return str(value)
    mag = math.floor(math.log10(abs(value)))
    if -4 <= mag < 15:
        decimals = max(0, digits - 1 - mag)
        text = f"{value:,.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    return f"{value:.{digits - 1}e}"


def format_in(value: float, symbol: str, digits: int = 2) -> str:
    """``value`` (base units) in the unit ``symbol``: ``digits`` decimals, but at least four
    significant digits so that small amounts (0.1250 GiB) keep their precision."""
    unit = lookup_unit(symbol)
    x = value / unit.factor
    if x and abs(x) < 10 ** (3 - digits):
        return f"{format_number(x, 4)} {unit.symbol}"
    return f"{x:,.{digits}f} {unit.symbol}"


def format_bytes(n: float, *, binary: bool = True, digits: int = 2) -> str:
    """``14000000000`` → ``13.04 GiB`` (binary) or ``14.00 GB`` (decimal)."""
    base, names = (
        (1024.0, ("B", "KiB", "MiB", "GiB", "TiB", "PiB"))
        if binary
        else (
            1000.0,
            ("B", "KB", "MB", "GB", "TB", "PB"),
        )
    )
    x = float(n)
    i = 0
    while abs(x) >= base and i < len(names) - 1:
        x /= base
        i += 1
    if i == 0:
        return f"{int(n):,} B" if float(n).is_integer() else f"{x:.{digits}f} B"
    return f"{x:,.{digits}f} {names[i]}"


def format_bytes_both(n: float, digits: int = 2) -> str:
    """``13.04 GiB (14.00 GB)``: both readings, so GB vs GiB is never a surprise."""
    if abs(n) < 1000:
        return format_bytes(n)
    return f"{format_bytes(n, binary=True, digits=digits)} ({format_bytes(n, binary=False, digits=digits)})"


def format_bytes_pair(n: float, digits: int = 2) -> str:
    """``14.00 GB = 13.04 GiB``: both readings in one unit scale, GB/GiB from a gigabyte up and
    below that the scale that fits (``57.34 KB = 56.00 KiB``), so nothing prints as 0.00."""
    if abs(n) >= 1e9:
        return f"{n / 1e9:,.{digits}f} GB = {n / 2**30:,.{digits}f} GiB"
    if abs(n) < 1000:
        return format_bytes(n, digits=digits)
    return f"{format_bytes(n, binary=False, digits=digits)} = {format_bytes(n, digits=digits)}"


def format_rate(bps: float, digits: int = 2) -> str:
    x = float(bps)
    for name, f in (("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("KB/s", 1e3)):
        if abs(x) >= f:
            return f"{x / f:,.{digits}f} {name}"
    return f"{x:,.{digits}f} B/s"


def format_seconds(s: float, digits: int = 3) -> str:
    x = float(s)
    for name, f in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(x) >= f:
            return f"{format_number(x / f, digits)} {name}"
    return f"{format_number(x / 1e-9, digits)} ns"


def format_count(n: float, label: str = "") -> str:
    """``4096, 'tokens'`` → ``4,096 tokens``; ``1, 'GPUs'`` → ``1 GPU``."""
    text = format_number(n)
    if not label:
        return text
    if n == 1 and label.endswith("s") and len(label) > 2 and not label.endswith("ss"):
        label = label[:-1]
    return f"{text} {label}"


def format_value(value: float, dim: Dim | None, unit: str = "") -> str:
    """Show a base-unit value in the natural way for its dimension (``unit`` when given)."""
    if dim is Dim.BYTES:
        if unit and is_unit(unit) and unit not in ("B", "byte", "bytes"):
            return format_in(value, unit)
        return format_bytes_both(value)
    if dim is Dim.RATE:
        return format_in(value, unit) if unit and is_unit(unit) else format_rate(value)
    if dim is Dim.SECONDS:
        if unit and is_unit(unit) and unit != "s":
            u = lookup_unit(unit)
            return f"{format_number(value / u.factor)} {u.symbol}"
        return format_seconds(value)
    if dim is Dim.RATIO and unit == "%":
        return f"{format_number(value * 100)} %"
    if unit in SYMBOL_LABELS:
        return f"{format_number(value)} × {unit}"
    return format_count(value, unit)
