"""Floating-point summation in low precision, emulated exactly: why a bf16 accumulator stalls,
why the reduction order changes a result, and what a wider accumulator buys.

:func:`round_to` rounds a real number to the nearest value of a format with ``p``
significant bits (round half to even, as IEEE 754 and the tensor cores do), from Python's
exact float: ``frexp`` splits off the exponent and ``round`` rounds the scaled significand
half to even. Sums are then performed one addition at a time, each result rounded to the
accumulator's format, in the order the algorithm would use (left to right, or pairwise as a
tree reduction does). The tests hold this emulation to PyTorch's own bf16 and fp16
arithmetic and to ml_dtypes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least

MAX_COUNT = 1 << 18


@dataclass(frozen=True)
class Format:
    name: str
    significand_bits: int  # p: the implicit leading bit included
    max_value: float
    min_normal: float


FORMATS: dict[str, Format] = {
    "fp32": Format("fp32", 24, (2 - 2.0**-23) * 2.0**127, 2.0**-126),
    "bf16": Format("bf16", 8, (2 - 2.0**-7) * 2.0**127, 2.0**-126),
    "fp16": Format("fp16", 11, 65504.0, 2.0**-14),
    "fp8-e4m3": Format("fp8-e4m3", 4, 448.0, 2.0**-6),
}
FORMAT_NAMES: tuple[str, ...] = tuple(FORMATS)
ORDERS: tuple[str, ...] = ("sequential", "pairwise")


def fmt(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise SystemsInputError(f"unknown format {name!r}; known: {', '.join(FORMATS)}") from None


def round_to(x: float, f: Format) -> float:
    """``x`` rounded to the nearest ``f`` value, ties to even; refuses overflow and subnormals."""
    if x == 0:
        return 0.0
    if not math.isfinite(x) or abs(x) > f.max_value:
        raise SystemsInputError(f"{x:g} overflows {f.name} (max {f.max_value:g})")
    if abs(x) < f.min_normal:
        raise SystemsInputError(f"{x:g} is below {f.name}'s smallest normal value")
    m, e = math.frexp(x)  # x = m · 2^e, 0.5 ≤ |m| < 1
    r = round(m * 2.0**f.significand_bits)  # half to even on the exact float
    y = math.ldexp(r, e - f.significand_bits)
    if abs(y) > f.max_value:
        raise SystemsInputError(f"{x:g} rounds past {f.name}'s largest value")
    return y


def sequential(values: list[float], acc: Format) -> float:
    """Left to right, each partial sum rounded to ``acc``."""
    total = 0.0
    for v in values:
        total = round_to(total + v, acc)
    return total


def pairwise(values: list[float], acc: Format) -> float:
    """A balanced tree of additions (a tree reduction, pairwise summation), each rounded."""
    level = list(values)
    if not level:
        return 0.0
    while len(level) > 1:
        nxt = [round_to(level[i] + level[i + 1], acc) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


@dataclass(frozen=True)
class Sum:
    result: float
    exact: float

    @property
    def relative_error(self) -> float:
        return abs(self.result - self.exact) / abs(self.exact) if self.exact else 0.0


def repeated(value: float, count: int, dtype: str, accumulator: str, order: str) -> Sum:
    """``count`` copies of ``value`` (stored in ``dtype``) summed in ``accumulator``."""
    at_least("count", count, 1)
    if count > MAX_COUNT:
        raise SystemsInputError(f"count must be at most {MAX_COUNT}, got {count}")
    if order not in ORDERS:
        raise SystemsInputError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    v = round_to(value, fmt(dtype))
    acc = fmt(accumulator)
    values = [v] * count
    result = sequential(values, acc) if order == "sequential" else pairwise(values, acc)
    return Sum(result, v * count)


def big_then_small(big: float, small: float, count: int, accumulator: str) -> tuple[float, float]:
    """One ``big`` value and ``count`` copies of ``small``, summed left to right with the big
    one first and with it last (what a different rank order does to a ring reduction)."""
    at_least("count", count, 1)
    if count > MAX_COUNT:
        raise SystemsInputError(f"count must be at most {MAX_COUNT}, got {count}")
    acc = fmt(accumulator)
    b, s = round_to(big, acc), round_to(small, acc)
    first = sequential([b] + [s] * count, acc)
    last = sequential([s] * count + [b], acc)
    return first, last
