"""Numbers for humans: :func:`format_number` (thousands separators, significant digits),
bytes in both readings (``13.04 GiB (14.00 GB)``), rates, durations, counts with their
label, and :func:`format_value` (a base-unit value in the natural way for its dimension).
Callers import these from :mod:`deck.units`.
"""

from __future__ import annotations

import math

from deck.units.base import SYMBOL_LABELS, Dim, is_unit, lookup_unit


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
