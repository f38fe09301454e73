"""Constants of the new-topic cards (reduction numerics, NVLink domains, pipeline schedules): definitions and published figures, each with its source."""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

CONSTANTS: tuple[Constant, ...] = (
    # Significand precision p (the implicit leading bit included) of the number formats.
    Constant(
        "fp32_precision_bits",
        24,
        Dim.COUNT,
        "IEEE 754-2019, Table 3.5: binary32 has precision p = 24 digits",
    ),
    Constant(
        "fp16_precision_bits",
        11,
        Dim.COUNT,
        "IEEE 754-2019, Table 3.5: binary16 has precision p = 11 digits",
    ),
    Constant(
        "bf16_precision_bits",
        8,
        Dim.COUNT,
        "bfloat16: 1 sign, 8 exponent and 7 stored fraction bits (Google Cloud TPU docs, "
        "'The bfloat16 format'; Intel BFLOAT16 Hardware Numerics Definition, 2018): p = 8",
    ),
    # NVLink domains.
    Constant(
        "nvl72_nvlink_bandwidth_per_gpu",
        1.8e12,
        Dim.RATE,
        "NVIDIA GB200 NVL72 datasheet: 'fifth-generation NVLink ... 1.8 TB/s' of GPU-to-GPU "
        "bandwidth per GPU (both directions), 130 TB/s for the rack's 72 GPUs",
        "TB/s",
    ),
    Constant(
        "nvl72_nvlink_bandwidth_rack",
        130e12,
        Dim.RATE,
        "NVIDIA GB200 NVL72 datasheet: NVLink bandwidth 130 TB/s for the rack",
        "TB/s",
    ),
)
