"""Binary float formats read off their bit patterns, and the searches loss and FP8 scaling do.

A format is 1 sign bit, ``e`` exponent bits and ``m`` mantissa bits; what its all-ones
exponent holds is ``specials``: ``"ieee"`` (Inf and NaN), ``"nan-only"`` (FP8 E4M3: only the
all-ones mantissa there is NaN) or ``"none"`` (FP4 E2M1: every pattern is a number).

- :func:`decode` turns bit patterns into values, field by field (IEEE 754-2019 §3.4: an
  exponent field of zero is subnormal, no implicit bit).
- :func:`layout` decodes **every** pattern of a format of at most ``MAX_ENUMERATED_BITS`` bits
  and reads its range off the values: the largest finite, the smallest positive with a
  non-zero exponent field (normal) and the smallest positive of all (subnormal).
- :func:`exact_integers` searches the largest ``2^j`` up to which every integer is held
  exactly (a bisection over the ordered positive patterns finds the value at or above a
  number), for formats of any width; its log10 is the format's decimal digits.
- :func:`largest_safe_scale`, :func:`smallest_kept_gradient` and :func:`fp8_scale` search
  powers of two, or the float64 line itself, for the scale a predicate on the enumerated
  format still accepts: the scaled gradient rounds (to nearest, ties to even) to a finite
  value; a power-of-two gradient survives the cast unchanged; the scaled amax with
  ``margin`` doublings of headroom stays at or below the largest finite value.

Nothing here uses a closed form for a range (no ``(2 − 2^−m)·2^emax``); the figures come from
the patterns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_ENUMERATED_BITS = 20  # 2^20 patterns, 8 MiB of float64
SPECIALS = ("ieee", "nan-only", "none")


def _check(exponent_bits: int, mantissa_bits: int, specials: str) -> None:
    if not 2 <= exponent_bits <= 11:
        raise ValueError(f"exponent_bits must be 2 to 11, got {exponent_bits}")
    if not 1 <= mantissa_bits <= 52:
        raise ValueError(f"mantissa_bits must be 1 to 52, got {mantissa_bits}")
    if specials not in SPECIALS:
        raise ValueError(f"specials must be one of {', '.join(SPECIALS)}, got {specials!r}")


def decode(
    patterns: np.ndarray, exponent_bits: int, mantissa_bits: int, specials: str = "ieee"
) -> np.ndarray:
    """The float64 value of each bit pattern (NaN for NaN patterns, ±inf for infinities)."""
    _check(exponent_bits, mantissa_bits, specials)
    e, m = exponent_bits, mantissa_bits
    p = np.asarray(patterns, dtype=np.uint64)
    sign = np.where((p >> np.uint64(e + m)) & np.uint64(1), -1.0, 1.0)
    field = ((p >> np.uint64(m)) & np.uint64((1 << e) - 1)).astype(np.int64)
    fraction = (p & np.uint64((1 << m) - 1)).astype(np.float64)
    bias = (1 << (e - 1)) - 1
    # Subnormal: 0.fraction · 2^(1 − bias); normal: 1.fraction · 2^(field − bias).
    significand = np.where(field == 0, fraction, fraction + float(1 << m))
    power = np.where(field == 0, 1 - bias, field - bias) - m
    with np.errstate(over="ignore"):  # the all-ones field of a wide format: replaced below
        values = sign * np.ldexp(significand, power)
    top = field == (1 << e) - 1
    if specials == "ieee":
        values = np.where(top & (fraction == 0), sign * np.inf, values)
        values = np.where(top & (fraction != 0), np.nan, values)
    elif specials == "nan-only":
        values = np.where(top & (fraction == float((1 << m) - 1)), np.nan, values)
    return values


def _all_values(exponent_bits: int, mantissa_bits: int, specials: str) -> np.ndarray:
    bits = 1 + exponent_bits + mantissa_bits
    if bits > MAX_ENUMERATED_BITS:
        raise ValueError(
            f"a {bits}-bit format has too many patterns to enumerate "
            f"(at most {MAX_ENUMERATED_BITS} bits)"
        )
    return decode(np.arange(1 << bits, dtype=np.uint64), exponent_bits, mantissa_bits, specials)


@dataclass(frozen=True)
class Layout:
    """A format's range as its enumerated patterns show it."""

    patterns: int
    finite: int  # patterns that decode to a finite number (±0 included)
    max_finite: float
    min_normal: float
    min_subnormal: float
    top_gap: float  # the spacing just below the largest finite value


def layout(exponent_bits: int, mantissa_bits: int, specials: str = "ieee") -> Layout:
    """Decode every pattern and read the range off the values."""
    values = _all_values(exponent_bits, mantissa_bits, specials)
    m = mantissa_bits
    field = (np.arange(values.size, dtype=np.uint64) >> np.uint64(m)) & np.uint64(
        (1 << exponent_bits) - 1
    )
    finite = np.isfinite(values)
    positive = finite & (values > 0)
    largest = np.unique(values[finite])[-2:]  # the top two distinct finite values
    return Layout(
        patterns=int(values.size),
        finite=int(finite.sum()),
        max_finite=float(largest[-1]),
        min_normal=float(values[positive & (field != 0)].min()),
        min_subnormal=float(values[positive].min()),
        top_gap=float(largest[-1] - largest[0]),
    )


def _first_at_or_above(x: float, exponent_bits: int, mantissa_bits: int, specials: str) -> int:
    """The smallest non-negative pattern whose value is ≥ ``x`` (NaN patterns sort last).

    Positive patterns are ordered like their values, so a bisection over the integers finds it
    in ``e + m`` steps whatever the width of the format."""
    lo, hi = 0, (1 << (exponent_bits + mantissa_bits)) - 1  # value(lo) < x ≤ value(hi)
    if x <= 0:
        return 0

    def at_least(p: int) -> bool:
        v = float(decode(np.array([p]), exponent_bits, mantissa_bits, specials)[0])
        return math.isnan(v) or v >= x

    if not at_least(hi):
        raise ValueError(f"{x:g} is beyond the format's range")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at_least(mid):
            hi = mid
        else:
            lo = mid
    return hi


def holds(x: float, exponent_bits: int, mantissa_bits: int, specials: str = "ieee") -> bool:
    """True when ``x ≥ 0`` is exactly one of the format's values."""
    p = _first_at_or_above(x, exponent_bits, mantissa_bits, specials)
    return float(decode(np.array([p]), exponent_bits, mantissa_bits, specials)[0]) == x


def exact_integers(exponent_bits: int, mantissa_bits: int, specials: str = "ieee") -> int:
    """The largest ``2^j`` such that every integer from 1 to ``2^j`` is a value of the format:
    doubling ``j`` until ``2^j + 1`` is not held (2^24 = 16,777,216 for fp32)."""
    j = 0
    while True:
        probe = 2**j + 1
        if float(probe) != probe:  # the question itself is no longer exact in float64
            raise ValueError(f"{mantissa_bits} mantissa bits: beyond what float64 can probe")
        if not holds(float(probe), exponent_bits, mantissa_bits, specials):
            return 2**j
        j += 1


def decimal_digits(exponent_bits: int, mantissa_bits: int, specials: str = "ieee") -> float:
    """log10 of the exact-integer run: the significant decimal digits the format carries."""
    return math.log10(exact_integers(exponent_bits, mantissa_bits, specials))


def round_to_format(
    x: float, exponent_bits: int, mantissa_bits: int, specials: str = "ieee"
) -> float:
    """``x`` rounded to the nearest value of the enumerated format, ties to the even pattern;
    past the largest finite value by half its top gap (or at it, when the largest pattern is
    odd), the cast overflows to inf."""
    values = _all_values(exponent_bits, mantissa_bits, specials)
    half = values.size // 2  # the non-negative patterns
    positive = values[:half]
    finite = positive[np.isfinite(positive)]  # increasing with the pattern
    sign, a = (-1.0 if x < 0 else 1.0), abs(x)
    top = finite.size - 1
    if a > finite[top]:
        gap = finite[top] - finite[top - 1]
        beyond = a - finite[top]
        tie_up = top % 2 == 1  # an odd largest pattern rounds a tie away, past the range
        if beyond > gap / 2 or (beyond == gap / 2 and tie_up):
            return sign * math.inf
        return sign * float(finite[top])
    i = int(np.searchsorted(finite, a))  # finite[i - 1] < a ≤ finite[i]
    if finite[i] == a:
        return sign * float(a)
    below, above = float(finite[i - 1]), float(finite[i])
    if a - below < above - a or (a - below == above - a and (i - 1) % 2 == 0):
        return sign * below
    return sign * above


def _ldexp(x: float, k: int) -> float:
    """x · 2^k in float64, inf past its range (math.ldexp raises there)."""
    try:
        return math.ldexp(x, k)
    except OverflowError:
        return math.inf


def _bisect_int(predicate: object, lo: int, hi: int) -> int:
    """The largest integer in [lo, hi) with ``predicate`` true, given true at lo, false at hi."""
    assert callable(predicate)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicate(mid):
            lo = mid
        else:
            hi = mid
    return lo


@dataclass(frozen=True)
class ScaleSearch:
    power: int
    scale: float
    probes: int  # predicate evaluations the search made


def largest_safe_scale(
    grad_max: float, exponent_bits: int, mantissa_bits: int, specials: str = "ieee"
) -> ScaleSearch:
    """The largest power-of-two loss scale 2^k whose product with ``grad_max`` still casts to
    a finite value of the format, by bisection over k."""
    if not grad_max > 0:
        raise ValueError(f"grad_max must be positive, got {grad_max:g}")
    probes = 0

    def finite(k: int) -> bool:
        nonlocal probes
        probes += 1
        return math.isfinite(
            round_to_format(_ldexp(grad_max, k), exponent_bits, mantissa_bits, specials)
        )

    lo, hi = -1100, 1100  # ldexp underflows to 0 (finite) and overflows to inf (not)
    if not finite(lo) or finite(hi):
        raise ValueError(f"grad_max {grad_max:g}: no power-of-two boundary in range")
    k = _bisect_int(finite, lo, hi)
    return ScaleSearch(k, math.ldexp(1.0, k), probes)


def smallest_kept_gradient(
    scale: float, exponent_bits: int, mantissa_bits: int, specials: str = "ieee"
) -> ScaleSearch:
    """The smallest power-of-two gradient 2^j that, multiplied by ``scale``, casts to the
    format unchanged and non-zero: the search walks down from a gradient that survives."""
    if not scale > 0:
        raise ValueError(f"scale must be positive, got {scale:g}")
    probes = 0

    def kept(j: int) -> bool:
        nonlocal probes
        probes += 1
        y = _ldexp(scale, j)  # exact: a power-of-two gradient times the scale
        return 0 < y < math.inf and round_to_format(y, exponent_bits, mantissa_bits, specials) == y

    start = 0
    while not kept(start):  # from a product that is too large, step down into range
        start -= 1
        if start < -2200:
            raise ValueError(f"scale {scale:g}: no power-of-two gradient survives")
    # kept(start) is true, kept(-2200) is false: the boundary is the smallest true j.
    lo, hi = -2200, start
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if kept(mid):
            hi = mid
        else:
            lo = mid
    return ScaleSearch(hi, math.ldexp(1.0, hi), probes)


def _float_at(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


def fp8_scale(
    amax: float, margin: int, exponent_bits: int, mantissa_bits: int, specials: str
) -> float:
    """The largest float64 scale s with ``amax · s · 2^margin`` at most the format's largest
    finite value (enumerated): a bisection over the ordered bit patterns of positive float64s."""
    if not amax > 0:
        raise ValueError(f"amax must be positive, got {amax:g}")
    if margin < 0:
        raise ValueError(f"margin must be at least 0, got {margin}")
    top = layout(exponent_bits, mantissa_bits, specials).max_finite

    def fits(bits: int) -> bool:
        return amax * _float_at(bits) * 2.0**margin <= top

    inf_bits = int(np.array([np.inf]).view(np.uint64)[0])
    return _float_at(_bisect_int(fits, 0, inf_bits))
