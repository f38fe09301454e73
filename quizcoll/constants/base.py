"""Constants every deck uses: unit prefixes, bytes per number format, training and serving
figures (each catalog GPU's reported memory is ``quizcoll/data/gpus.yaml``)."""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

GB, GIB = 10**9, 2**30

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
    # Bytes per value of the number formats.
    Constant("fp32_bytes", 4, Dim.BYTES, "IEEE 754 binary32: 32 bits", "B"),
    Constant("fp16_bytes", 2, Dim.BYTES, "IEEE 754 binary16: 16 bits", "B"),
    Constant("bf16_bytes", 2, Dim.BYTES, "bfloat16 (Google Brain): 1 + 8 + 7 = 16 bits", "B"),
    Constant("fp8_bytes", 1, Dim.BYTES, "OCP FP8 (E4M3, E5M2): 8 bits", "B"),
    Constant("int8_bytes", 1, Dim.BYTES, "an 8-bit integer", "B"),
    Constant("int4_bytes", 0.5, Dim.BYTES, "a 4-bit integer: two per byte", "B"),
    # Training memory per parameter (model states).
    Constant(
        "adam_mixed_bytes_per_param",
        16,
        Dim.BYTES,
        "Rajbhandari et al. 2020 (ZeRO), §3.1: 2Ψ fp16 weights + 2Ψ fp16 gradients + 12Ψ "
        "fp32 optimizer states (master weights, momentum, variance) = 16Ψ",
        "B",
    ),
    Constant(
        "adam_optimizer_bytes_per_param",
        12,
        Dim.BYTES,
        "Rajbhandari et al. 2020 (ZeRO), §3.1: K = 12 bytes of fp32 optimizer states",
        "B",
    ),
    Constant(
        "bf16_fp32_grads_bytes_per_param",
        18,
        Dim.BYTES,
        "Megatron-Core distributed optimizer docs: bf16 params (2) + fp32 main grads (4) + "
        "fp32 master params, exp_avg, exp_avg_sq (12) = 18 bytes per parameter",
        "B",
    ),
    # Serving defaults.
    Constant(
        "vllm_gpu_memory_utilization",
        0.9,
        Dim.RATIO,
        "vLLM EngineArgs: gpu_memory_utilization defaults to 0.9",
    ),
)

# Words that start with a digit but name things: not quantities for the prose check.
TERMS: tuple[str, ...] = ("1F1B", "1D", "2D", "3D", "4D", "5D")
