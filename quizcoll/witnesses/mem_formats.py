"""Weights stored in a number format, measured: values encoded with numpy, bytes counted.

Provides :func:`stored_bytes`: ``values`` weights in a format, by encoding one chunk of
sample values the way the format stores them and reading the array's ``nbytes`` — IEEE
binary32 and binary16 as numpy's own dtypes; bfloat16 as the upper 16 bits of each binary32
(its definition); int8 and int4 as symmetric integer codes, int4 packed two codes to a
byte; llama.cpp's GGUF types as arrays of their block structs, laid out field by field as
``ggml-common.h`` declares them (``block_q8_0``: an fp16 scale and 32 int8 codes, …). The
whole tensor is that chunk repeated, plus the encoded rest.
"""

from __future__ import annotations

import numpy as np

CHUNK = 8192  # values encoded at once: a multiple of every GGUF block

# ggml-common.h's block structs: (weights per block, fields as numpy (name, type[, count])).
GGUF_BLOCKS: dict[str, tuple[int, list[tuple]]] = {
    "q8_0": (32, [("d", "<f2"), ("qs", "i1", 32)]),
    "q4_0": (32, [("d", "<f2"), ("qs", "u1", 16)]),
    "q4_k": (256, [("d", "<f2"), ("dmin", "<f2"), ("scales", "u1", 12), ("qs", "u1", 128)]),
    "q5_k": (
        256,
        [("d", "<f2"), ("dmin", "<f2"), ("scales", "u1", 12), ("qh", "u1", 32), ("qs", "u1", 128)],
    ),
    "q6_k": (256, [("ql", "u1", 128), ("qh", "u1", 64), ("scales", "i1", 16), ("d", "<f2")]),
}
FORMATS = ("fp32", "fp16", "bf16", "int8", "int4", *GGUF_BLOCKS)


def _sample(n: int) -> np.ndarray:
    """``n`` weights to encode (their values do not change the storage)."""
    return np.linspace(-1.0, 1.0, n, dtype=np.float64)


def _encode(x: np.ndarray, fmt: str) -> np.ndarray:
    if fmt == "fp32":
        return x.astype(np.float32)
    if fmt == "fp16":
        return x.astype(np.float16)
    if fmt == "bf16":
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if fmt == "int8":
        return np.clip(np.round(x * 127), -127, 127).astype(np.int8)
    if fmt == "int4":
        codes = (np.clip(np.round(x * 7), -8, 7) + 8).astype(np.uint8)
        if codes.size % 2:
            codes = np.append(codes, np.uint8(8))
        return codes[0::2] | (codes[1::2] << 4)
    per_block, fields = GGUF_BLOCKS[fmt]
    blocks = np.zeros(-(-x.size // per_block), dtype=np.dtype(fields))
    scale = np.abs(x[: blocks.size * per_block]).max() if x.size else 0.0
    blocks["d"] = scale  # the codes stay zero: only the layout is measured
    return blocks


def stored_bytes(values: int, fmt: str) -> dict[str, float]:
    """Bytes of ``values`` weights in ``fmt``, measured on encoded arrays."""
    if isinstance(values, bool) or not isinstance(values, int) or values < 1:
        raise ValueError(f"values: expected a positive whole number, got {values!r}")
    if fmt not in FORMATS:
        raise ValueError(f"format: {fmt!r} is none of {', '.join(FORMATS)}")
    full, rest = divmod(values, CHUNK)
    chunk_bytes = _encode(_sample(CHUNK), fmt).nbytes if full else 0
    rest_bytes = _encode(_sample(rest), fmt).nbytes if rest else 0
    total = full * chunk_bytes + rest_bytes
    return {"bytes": total, "bits_per_weight": total * 8 / values}
