"""Floating-point formats from their bit layout, loss scaling, FP8 scaling, gradient accumulation.

A format with e exponent bits and m mantissa bits has bias 2^(e−1) − 1, smallest normal
2^(1 − bias), smallest subnormal 2^(1 − bias − m) and machine epsilon 2^−m. Its largest
finite value depends on what the top exponent encodes:

- IEEE 754 style (fp32, tf32, fp16, bf16, FP8 E5M2): the all-ones exponent is Inf/NaN, so
  the largest is (2 − 2^−m) · 2^(2^e − 2 − bias): fp16 65,504; bf16 ≈ 3.39e38; E5M2 57,344.
- FP8 E4M3 (Micikevicius et al., "FP8 Formats for Deep Learning", 2022; the OCP FP8 spec):
  no infinities, only S.1111.111 is NaN, so the all-ones exponent holds normal numbers up
  to mantissa 110: 1.75 · 2^8 = 448.
- FP4 E2M1 (OCP Microscaling formats): no Inf or NaN at all: 1.5 · 2^2 = 6.

Loss scaling (Micikevicius et al., "Mixed Precision Training", ICLR 2018): multiplying the
loss by S multiplies every gradient by S, which lifts small gradients above the smallest
subnormal (fp16: 2^−24) and overflows once |g|·S exceeds the largest finite value.
Transformer Engine's delayed scaling sets the FP8 scale to (FP8_MAX / amax) / 2^margin
(``transformer_engine.common.recipe.DelayedScaling``).

Gradient accumulation: global batch = micro-batch × accumulation steps × data-parallel size.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, positive


class Specials(enum.Enum):
    """What a format's all-ones exponent encodes."""

    IEEE = "ieee"  # Inf and NaN
    NAN_ONLY = "nan-only"  # E4M3: only the all-ones mantissa is NaN
    NONE = "none"  # E2M1: every encoding is a finite number


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: sign bit, exponent bits, mantissa bits."""

    name: str
    exponent_bits: int
    mantissa_bits: int
    specials: Specials = Specials.IEEE
    storage_bits: int | None = None  # tf32 is stored in 32 bits

    @property
    def bits(self) -> int:
        return 1 + self.exponent_bits + self.mantissa_bits

    @property
    def bytes(self) -> float:
        return (self.storage_bits or self.bits) / 8

    @property
    def bias(self) -> int:
        return 2 ** (self.exponent_bits - 1) - 1

    @property
    def max_exponent(self) -> int:
        top = 2**self.exponent_bits - 1
        return (top - 1 if self.specials is Specials.IEEE else top) - self.bias

    @property
    def max_finite(self) -> float:
        m = self.mantissa_bits
        # E4M3 loses only the all-ones mantissa (NaN) from its top binade.
        largest_fraction = 2 - 2 ** (1 - m) if self.specials is Specials.NAN_ONLY else 2 - 2**-m
        return math.ldexp(largest_fraction, self.max_exponent)

    @property
    def min_normal(self) -> float:
        return math.ldexp(1.0, 1 - self.bias)

    @property
    def min_subnormal(self) -> float:
        return math.ldexp(1.0, 1 - self.bias - self.mantissa_bits)

    @property
    def epsilon(self) -> float:
        """The gap between 1 and the next representable number."""
        return math.ldexp(1.0, -self.mantissa_bits)

    @property
    def decimal_digits(self) -> float:
        """Significant decimal digits: log10 of 2^(m+1)."""
        return (self.mantissa_bits + 1) * math.log10(2)

    def decode(self, pattern: int) -> float:
        """The value of one bit pattern (NaN and ±Inf as floats): an independent check."""
        e, m = self.exponent_bits, self.mantissa_bits
        if not 0 <= pattern < 2**self.bits:
            raise SystemsInputError(f"{pattern} is not a {self.bits}-bit pattern")
        sign = -1.0 if pattern >> (e + m) else 1.0
        exponent = (pattern >> m) & (2**e - 1)
        mantissa = pattern & (2**m - 1)
        if exponent == 2**e - 1:
            if self.specials is Specials.IEEE:
                return sign * math.inf if mantissa == 0 else math.nan
            if self.specials is Specials.NAN_ONLY and mantissa == 2**m - 1:
                return math.nan
        if exponent == 0:
            return sign * math.ldexp(mantissa, 1 - self.bias - m)
        return sign * math.ldexp(2**m + mantissa, exponent - self.bias - m)


FORMATS: dict[str, FloatFormat] = {
    f.name: f
    for f in (
        FloatFormat("fp32", 8, 23),
        FloatFormat("tf32", 8, 10, storage_bits=32),
        FloatFormat("fp16", 5, 10),
        FloatFormat("bf16", 8, 7),
        FloatFormat("fp8-e4m3", 4, 3, Specials.NAN_ONLY),
        FloatFormat("fp8-e5m2", 5, 2),
        FloatFormat("fp4-e2m1", 2, 1, Specials.NONE),
    )
}
FORMAT_NAMES: tuple[str, ...] = tuple(FORMATS)


def find_format(name: str) -> FloatFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise SystemsInputError(
            f"unknown format {name!r}; known: {', '.join(FORMAT_NAMES)}"
        ) from None


def dtype_bytes(name: str) -> float:
    """Bytes of one value of a format (``bf16`` → 2)."""
    return find_format(name).bytes


@dataclass(frozen=True)
class LossScaling:
    """What a loss scale S does to gradients between ``grad_min`` and ``grad_max`` in a format."""

    scale: float
    overflows: bool  # grad_max · S is past the largest finite value
    underflows: bool  # grad_min · S is below the smallest subnormal: it becomes zero
    largest_safe_power: int  # the largest k with grad_max · 2^k ≤ max finite
    headroom_bits: float  # log2(max finite / (grad_max · S)); negative when it overflows
    smallest_kept_gradient: float  # min subnormal / S: smaller gradients flush to zero


def loss_scaling(fmt: FloatFormat, scale: float, grad_max: float, grad_min: float) -> LossScaling:
    """Overflow, underflow and headroom of loss scale ``scale`` for gradients in ``fmt``."""
    positive("scale", scale)
    positive("grad_max", grad_max)
    positive("grad_min", grad_min)
    if grad_min > grad_max:
        raise SystemsInputError(f"grad_min {grad_min:g} is larger than grad_max {grad_max:g}")
    largest = fmt.max_finite
    return LossScaling(
        scale=scale,
        overflows=grad_max * scale > largest,
        underflows=grad_min * scale < fmt.min_subnormal,
        largest_safe_power=math.floor(math.log2(largest / grad_max)),
        headroom_bits=math.log2(largest / (grad_max * scale)),
        smallest_kept_gradient=fmt.min_subnormal / scale,
    )


@dataclass(frozen=True)
class Fp8Scale:
    """Transformer Engine's delayed-scaling factor for an amax."""

    scale: float  # (FP8_MAX / amax) / 2^margin
    scale_inv: float
    scaled_amax: float  # amax · scale = FP8_MAX / 2^margin


def fp8_scale(fmt: FloatFormat, amax: float, margin: int = 0) -> Fp8Scale:
    """The scale TE's DelayedScaling recipe computes from ``amax`` (history maximum)."""
    positive("amax", amax)
    at_least("margin", margin, 0)
    scale = fmt.max_finite / amax / 2**margin
    return Fp8Scale(scale, 1 / scale, amax * scale)


@dataclass(frozen=True)
class BatchPlan:
    """Global batch = micro-batch × accumulation × data-parallel size."""

    global_batch: int  # sequences per optimizer step
    micro_batch: int
    accumulation_steps: int
    data_parallel: int
    tokens_per_step: int


def batch_plan(global_batch: int, micro_batch: int, data_parallel: int, seq_len: int) -> BatchPlan:
    """The accumulation steps a global batch needs (it must split evenly)."""
    for name, value in (
        ("global_batch", global_batch),
        ("micro_batch", micro_batch),
        ("data_parallel", data_parallel),
        ("seq_len", seq_len),
    ):
        at_least(name, value, 1)
    per_pass = micro_batch * data_parallel
    if global_batch % per_pass:
        raise SystemsInputError(
            f"global_batch {global_batch} is not a multiple of micro_batch × data_parallel "
            f"= {per_pass}"
        )
    return BatchPlan(
        global_batch,
        micro_batch,
        global_batch // per_pass,
        data_parallel,
        global_batch * seq_len,
    )
