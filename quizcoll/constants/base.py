"""Definitions every deck uses: unit prefixes and the bytes per value of the number formats.

These are definitions, not published measurements: a prefix or a format's bit width is what
the standard defines, and no source prints it as a figure to quote. Published figures live
in ``quizcoll/data/*.yaml`` (:mod:`.data`) with their sources and quotes.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

CONSTANTS: tuple[Constant, ...] = (
    # Units (SI and IEC 80000-13 prefixes).
    Constant("kb", 1e3, Dim.BYTES, "SI prefix kilo = 10^3", "B"),
    Constant("mb", 1e6, Dim.BYTES, "SI prefix mega = 10^6", "B"),
    Constant("gb", 1e9, Dim.BYTES, "SI prefix giga = 10^9", "B"),
    Constant("tb", 1e12, Dim.BYTES, "SI prefix tera = 10^12", "B"),
    Constant("kib", 2.0**10, Dim.BYTES, "IEC 80000-13 binary prefix kibi = 2^10", "B"),
    Constant("mib", 2.0**20, Dim.BYTES, "IEC 80000-13 binary prefix mebi = 2^20", "B"),
    Constant("gib", 2.0**30, Dim.BYTES, "IEC 80000-13 binary prefix gibi = 2^30", "B"),
    Constant("tib", 2.0**40, Dim.BYTES, "IEC 80000-13 binary prefix tebi = 2^40", "B"),
    Constant("billion", 1e9, Dim.COUNT, "short scale: a billion is 10^9 (the B of 7B)"),
    Constant("bits_per_byte", 8, Dim.COUNT, "a byte is 8 bits (ISO/IEC 2382)"),
    Constant("seconds_per_hour", 3600.0, Dim.SECONDS, "an hour is 3,600 s", "s"),
    # Bytes per value of the number formats: their bit widths over 8.
    Constant("fp32_bytes", 4, Dim.BYTES, "IEEE 754 binary32: 32 bits", "B"),
    Constant("fp16_bytes", 2, Dim.BYTES, "IEEE 754 binary16: 16 bits", "B"),
    Constant("bf16_bytes", 2, Dim.BYTES, "bfloat16 (Google Brain): 1 + 8 + 7 = 16 bits", "B"),
    Constant("fp8_bytes", 1, Dim.BYTES, "OCP FP8 (E4M3, E5M2): 8 bits", "B"),
    Constant(
        "fp4_bytes",
        0.5,
        Dim.BYTES,
        "OCP Microscaling Formats (MX) v1.0 §5.3: FP4 (E2M1) elements are 4 bits; the shared "
        "scales (8 bits per 32 values in MXFP4, per 16 in NVFP4) come on top",
        "B",
    ),
    Constant("int8_bytes", 1, Dim.BYTES, "an 8-bit integer", "B"),
    Constant("int4_bytes", 0.5, Dim.BYTES, "a 4-bit integer: two per byte", "B"),
)

# Words that start with a digit but name things: not quantities for the prose check.
TERMS: tuple[str, ...] = ("1F1B", "1D", "2D", "3D", "4D", "5D")
