"""Weight-only (W4A16) against weight-and-activation (W8A8) quantisation on the roofline.

A decode step of a dense model reads every weight once and does 2·P FLOPs per token of the
batch. Weight-only formats shrink the bytes but dequantise to 16 bits and multiply on the
16-bit tensor cores; W8A8 (here FP8, as on Hopper) halves the bytes of 16-bit weights and
runs the 8-bit tensor cores at twice the rate. The step time is the roofline's
max(bytes / bandwidth, FLOPs / peak); activations and the KV cache are left out, so the
weights are the whole of the memory traffic. :func:`first_batch_where` finds a crossover by
stepping the batch one token at a time (a search, not the closed form cards check it with).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, positive

MAX_BATCH = 1 << 16


@dataclass(frozen=True)
class WeightFormat:
    name: str
    weight_bits: float  # bits per weight, group scales included
    compute: str  # the tensor-core dtype the matmul runs in


# GPTQ/AWQ-style W4A16: 4-bit weights with one fp16 scale per group of 128 weights.
W4_GROUP = 128
FORMATS: dict[str, WeightFormat] = {
    "w16a16": WeightFormat("w16a16", 16, "bf16"),
    "w8a16": WeightFormat("w8a16", 8 + 16 / W4_GROUP, "bf16"),
    "w4a16": WeightFormat("w4a16", 4 + 16 / W4_GROUP, "bf16"),
    "w8a8": WeightFormat("w8a8", 8, "fp8"),
}
FORMAT_NAMES: tuple[str, ...] = tuple(FORMATS)


def weight_format(name: str) -> WeightFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise SystemsInputError(
            f"unknown weight format {name!r}; known: {', '.join(FORMATS)}"
        ) from None


@dataclass(frozen=True)
class Step:
    fmt: WeightFormat
    batch: int
    weight_bytes: float
    flops: float
    memory_s: float
    compute_s: float

    @property
    def time_s(self) -> float:
        return max(self.memory_s, self.compute_s)

    @property
    def bound(self) -> str:
        return "compute" if self.compute_s > self.memory_s else "memory"


def step(fmt: str, params: float, batch: int, bandwidth: float, peaks: dict[str, float]) -> Step:
    """One decode step of ``batch`` tokens through ``params`` weights stored in ``fmt``."""
    f = weight_format(fmt)
    positive("params", params)
    at_least("batch", batch, 1)
    positive("bandwidth", bandwidth)
    if f.compute not in peaks:
        raise SystemsInputError(f"{fmt} multiplies in {f.compute}, which this GPU does not run")
    nbytes = params * f.weight_bits / 8
    flops = 2.0 * params * batch
    return Step(f, batch, nbytes, flops, nbytes / bandwidth, flops / peaks[f.compute])


def first_batch_where(
    faster: str, slower: str, params: float, bandwidth: float, peaks: dict[str, float]
) -> int:
    """Smallest batch at which ``faster``'s step is strictly shorter than ``slower``'s (0: none
    up to MAX_BATCH), found by trying every batch in turn."""
    for b in range(1, MAX_BATCH + 1):
        if (
            step(faster, params, b, bandwidth, peaks).time_s
            < step(slower, params, b, bandwidth, peaks).time_s
        ):
            return b
    return 0


def first_compute_bound(fmt: str, params: float, bandwidth: float, peaks: dict[str, float]) -> int:
    """Smallest batch whose step is compute-bound, by trying every batch (0: none)."""
    for b in range(1, MAX_BATCH + 1):
        if step(fmt, params, b, bandwidth, peaks).bound == "compute":
            return b
    return 0
