"""Sums stepped one addition at a time, every partial sum rounded by bit manipulation.

A number with ``p`` significant bits (bf16: 8, fp16: 11, fp32: 24) is a float64 whose low
``53 − p`` mantissa bits are zero. Rounding to nearest with ties to even is then an integer
operation on the float64's bit pattern: add half of the dropped unit minus one, plus the
lowest kept bit (so a tie goes to the even neighbour), and clear the dropped bits; a carry out
of the mantissa moves into the exponent, which is the next binade's value. Each addition is
done in float64, exact for the operands here (their exponents differ by far less than the
53 − p spare bits), and then rounded that way — the way a bf16 accumulator stores every
partial sum.

:func:`sequential` adds left to right; :func:`pairwise` adds adjacent pairs level by level
(a tree reduction), vectorised with numpy on the bit patterns. The exponent range of the
format is a guard only: a partial sum outside its normal range is refused, not emulated.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

MAX_COUNT = 1 << 18
_MANTISSA = 52  # float64's stored mantissa bits


def _check_format(significand_bits: int, exponent_bits: int) -> None:
    if not 2 <= significand_bits <= 53:
        raise ValueError(f"significand_bits must be 2 to 53, got {significand_bits}")
    if not 2 <= exponent_bits <= 11:
        raise ValueError(f"exponent_bits must be 2 to 11, got {exponent_bits}")


def _guard(x: np.ndarray | float, exponent_bits: int) -> None:
    """Refuse values outside the format's normal range (they would overflow or go subnormal)."""
    a = np.atleast_1d(np.asarray(x, dtype=np.float64))
    a = a[a != 0]
    bias = (1 << (exponent_bits - 1)) - 1
    _, exponent = np.frexp(np.abs(a))  # |x| = f · 2^exponent, 0.5 ≤ f < 1
    bad = (exponent - 1 < 1 - bias) | (exponent - 1 > bias) | ~np.isfinite(a)
    if bad.any():
        raise ValueError(
            f"{a[bad][0]:g} is outside the normal range of a {exponent_bits}-bit exponent"
        )


def round_scalar(x: float, significand_bits: int) -> float:
    """``x`` with only ``significand_bits`` significant bits, to nearest, ties to even."""
    drop = _MANTISSA + 1 - significand_bits
    if drop == 0 or x == 0:
        return x
    (bits,) = struct.unpack("<Q", struct.pack("<d", x))
    keep_lsb = (bits >> drop) & 1
    bits = (bits + (1 << (drop - 1)) - 1 + keep_lsb) & ~((1 << drop) - 1)
    (y,) = struct.unpack("<d", struct.pack("<Q", bits))
    return float(y)


def round_array(x: np.ndarray, significand_bits: int) -> np.ndarray:
    """:func:`round_scalar` on every element, on the uint64 view of the array."""
    drop = _MANTISSA + 1 - significand_bits
    a = np.ascontiguousarray(x, dtype=np.float64)
    if drop == 0:
        return a.copy()
    bits = a.view(np.uint64)
    keep_lsb = (bits >> np.uint64(drop)) & np.uint64(1)
    half = np.uint64((1 << (drop - 1)) - 1)
    mask = np.uint64(((1 << 64) - 1) ^ ((1 << drop) - 1))
    rounded = ((bits + half + keep_lsb) & mask).view(np.float64)
    return np.where(a == 0, a, rounded)


def sequential(values: list[float], significand_bits: int, exponent_bits: int) -> float:
    """Left to right, every partial sum rounded."""
    _check_format(significand_bits, exponent_bits)
    total = 0.0
    for v in values:
        total = round_scalar(total + v, significand_bits)
        _guard(total, exponent_bits)
    return total


def pairwise(values: list[float], significand_bits: int, exponent_bits: int) -> float:
    """Adjacent pairs, then pairs of pairs; an odd element out waits for the next level."""
    _check_format(significand_bits, exponent_bits)
    level = np.asarray(values, dtype=np.float64)
    if level.size == 0:
        return 0.0
    while level.size > 1:
        pairs = round_array(level[0:-1:2] + level[1::2], significand_bits)
        _guard(pairs, exponent_bits)
        level = np.concatenate([pairs, level[-1:]]) if level.size % 2 else pairs
    return float(level[0])


@dataclass(frozen=True)
class RepeatedSum:
    result: float
    exact: float  # the stored inputs summed without rounding
    additions: int


def repeated(
    value: float, count: int, significand_bits: int, exponent_bits: int, order: str
) -> RepeatedSum:
    """``count`` copies of ``value`` (itself rounded to the format) summed in ``order``."""
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"count must be 1 to {MAX_COUNT}, got {count}")
    _check_format(significand_bits, exponent_bits)
    v = round_scalar(value, significand_bits)
    _guard(v, exponent_bits)
    values = [v] * count
    if order == "sequential":
        result = sequential(values, significand_bits, exponent_bits)
    elif order == "pairwise":
        result = pairwise(values, significand_bits, exponent_bits)
    else:
        raise ValueError(f"order must be sequential or pairwise, got {order!r}")
    return RepeatedSum(result, v * count, count - 1)


@dataclass(frozen=True)
class OrderedSums:
    big_first: float
    big_last: float

    @property
    def difference(self) -> float:
        return self.big_last - self.big_first


def big_and_small(
    big: float, small: float, count: int, significand_bits: int, exponent_bits: int
) -> OrderedSums:
    """One ``big`` value and ``count`` copies of ``small``, summed left to right with the big
    one first and with it last."""
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"count must be 1 to {MAX_COUNT}, got {count}")
    _check_format(significand_bits, exponent_bits)
    b, s = round_scalar(big, significand_bits), round_scalar(small, significand_bits)
    first = sequential([b] + [s] * count, significand_bits, exponent_bits)
    last = sequential([s] * count + [b], significand_bits, exponent_bits)
    return OrderedSums(first, last)
