"""Memory figures that are derived, not published: bits per weight of the 4-bit formats and
SGD's optimizer state, each computed here from the cited layout it follows.

The published figures (optimizer recipes, activation memory, the CUDA context, llama.cpp's
file sizes) are ``quizcoll/data/recipes.yaml``, ``pytorch.yaml`` and ``formats.yaml``; the
quantization formats' block layouts ``quant-formats.yaml``; each catalog model's
``config.json`` figures :mod:`quizcoll.constants.models`.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

CONSTANTS: tuple[Constant, ...] = (
    # Real 4-bit formats: the scales cost bits too. No source prints the sum; the terms are
    # the formats' block layouts.
    Constant(
        "nf4_double_quant_bits_per_weight",
        4 + 8 / 64 + 32 / (64 * 256),
        Dim.RATIO,
        "the sum of the cited layout, Dettmers et al. 2023 (QLoRA), §3 Double Quantization: NF4 weights + 8-bit "
        "scales per block of 64 + fp32 scales per 256 blocks = 4 + 8/64 + 32/(64·256) bits",
    ),
    Constant(
        "mxfp4_bits_per_weight",
        4 + 8 / 32,
        Dim.RATIO,
        "the sum of the cited layout, OCP Microscaling Formats (MX) v1.0: MXFP4 = 32 FP4 (E2M1) values sharing "
        "one 8-bit E8M0 scale = 4 + 8/32 bits",
    ),
    Constant(
        "sgd_momentum_optimizer_bytes_per_param",
        4 + 4,
        Dim.BYTES,
        "the sum of the format widths: mixed-precision SGD with momentum keeps fp32 master weights (4) + fp32 "
        "momentum (4)",
        "B",
    ),
)
