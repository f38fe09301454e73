"""Definitions of the new-topic cards (reduction numerics): the significand precision of the
number formats, which the format standards define."""

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
)
