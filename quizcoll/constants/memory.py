"""Memory constants no data table holds: published figures of quantization formats,
optimizers, activations and the CUDA runtime, each with its source.

Each catalog model's ``config.json`` figures are :mod:`quizcoll.constants.models` (read from
the config files, not through the parser the cards check); the quantization formats' block
layouts and the serving assumptions are ``quizcoll/data/quant-formats.yaml`` and
``memory.yaml``.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

MIB, GIB = 2**20, 2**30


def _published() -> tuple[Constant, ...]:
    return (
        # Real 4-bit formats: the scales cost bits too.
        Constant(
            "nf4_double_quant_bits_per_weight",
            4 + 8 / 64 + 32 / (64 * 256),
            Dim.RATIO,
            "Dettmers et al. 2023 (QLoRA), §3 Double Quantization: NF4 weights + 8-bit "
            "scales per block of 64 + fp32 scales per 256 blocks = 4 + 8/64 + 32/(64·256) bits",
        ),
        Constant(
            "mxfp4_bits_per_weight",
            4 + 8 / 32,
            Dim.RATIO,
            "OCP Microscaling Formats (MX) v1.0: MXFP4 = 32 FP4 (E2M1) values sharing one "
            "8-bit E8M0 scale = 4 + 8/32 bits",
        ),
        Constant(
            "llama3_8b_q4_k_m_bytes",
            4.58 * GIB,
            Dim.BYTES,
            "llama.cpp llama-bench: 'llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B' "
            "(Meta-Llama-3-8B, Q4_K_M: Q4_K with some tensors in Q6_K)",
            "GiB",
        ),
        # Optimizer state per parameter other than Adam's K = 12.
        Constant(
            "adam_8bit_optimizer_bytes_per_param",
            6,
            Dim.BYTES,
            "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization: fp32 master "
            "weights (4) + 8-bit momentum (1) + 8-bit variance (1)",
            "B",
        ),
        Constant(
            "sgd_momentum_optimizer_bytes_per_param",
            8,
            Dim.BYTES,
            "mixed-precision SGD with momentum: fp32 master weights (4) + fp32 momentum (4)",
            "B",
        ),
        # Activations per layer, Korthikanti et al. 2022, Table 2, at t = 1: sbh times this.
        Constant(
            "korthikanti_selective_sbh",
            34,
            Dim.COUNT,
            "Korthikanti et al. 2022, Table 2: selective recomputation keeps sbh(10 + 24/t) "
            "= 34·sbh per layer at t = 1 (and with sequence parallelism 34·sbh/t)",
        ),
        Constant(
            "korthikanti_full_sbh",
            2,
            Dim.COUNT,
            "Korthikanti et al. 2022, Table 2: full recomputation keeps each layer's fp16 "
            "input, 2·sbh",
        ),
        # The runtime around the tensors.
        Constant(
            "cuda_context_low",
            300 * MIB,
            Dim.BYTES,
            "pytorch/pytorch#20532 and #107667: a process's CUDA context takes about 300 MB "
            "(CUDA ≥ 11.7 loads kernels lazily)",
            "MiB",
        ),
        Constant(
            "cuda_context_high",
            500 * MIB,
            Dim.BYTES,
            "pytorch/pytorch#28113: 200–700 MB by GPU and driver; about 500 MB with eagerly "
            "loaded kernels",
            "MiB",
        ),
    )


CONSTANTS: tuple[Constant, ...] = _published()
