"""The tensors a transformer layer saves for its backward pass, listed with their shapes.

Provides:

- :func:`gpt_layer_saved`: the GPT layer of Korthikanti et al. 2022 (§4.1: fp16 activations,
  a 4h GeLU MLP, dropout masks of one byte, the attention scores stored) tensor by tensor,
  each marked as split across tensor-parallel ranks or replicated on each (§4.2.2), and what
  selective (§5: the attention core recomputed) or full recomputation (only the layer input)
  still stores; sequence parallelism splits the replicated ones along the sequence (§4.2.3).
- :func:`llama_layer_saved`: a Llama-family layer as PyTorch's autograd keeps it in
  transformers with SDPA attention: per RMSNorm the fp32 input, 1/rms, the normalized input
  and the weighted output; q, k, v (grouped-query: the shared heads only), the attention
  output and SDPA's fp32 log-sum-exp; the SwiGLU gate, activation, up and product.
- :func:`saved_bytes`: a list summed, shape product × bytes per element, per rank.

Shapes come in as arguments (a card fills them from the figures a ``config.json`` prints).
"""

from __future__ import annotations

import math

Saved = tuple[str, tuple[int, ...], float, bool]  # name, shape, bytes per element, split by t


def _whole(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}: expected a positive whole number, got {value!r}")
    return value


def gpt_layer_saved(s: int, b: int, h: int, a: int, recompute: str = "none") -> list[Saved]:
    """The paper's GPT layer: ``(name, shape, bytes per element, split by tensor parallelism)``."""
    for name, v in (("s", s), ("b", b), ("h", h), ("a", a)):
        _whole(name, v)
    if recompute not in ("none", "selective", "full"):
        raise ValueError(f"recompute: none, selective or full, got {recompute!r}")
    x = (s, b, h)
    if recompute == "full":
        return [("layer input (checkpoint)", x, 2, False)]
    scores = (b, a, s, s)
    attention: list[Saved] = [
        ("attention layernorm input", x, 2, False),
        ("QKV projection input", x, 2, False),
        ("Q for QK^T", x, 2, True),
        ("K for QK^T", x, 2, True),
        ("softmax output", scores, 2, True),
        ("softmax dropout mask", scores, 1, True),
        ("dropout output for the product with V", scores, 2, True),
        ("V", x, 2, True),
        ("output projection input", x, 2, True),
        ("attention dropout mask", x, 1, False),
    ]
    mlp: list[Saved] = [
        ("MLP layernorm input", x, 2, False),
        ("first linear input", x, 2, False),
        ("GeLU input", (s, b, 4 * h), 2, True),
        ("second linear input", (s, b, 4 * h), 2, True),
        ("MLP dropout mask", x, 1, False),
    ]
    core = {"softmax output", "softmax dropout mask", "dropout output for the product with V"}
    out = attention + mlp
    if recompute == "selective":
        out = [t for t in out if t[0] not in core]
    return out


def llama_layer_saved(
    s: int,
    b: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    intermediate: int,
    e: int = 2,
) -> list[Saved]:
    """A Llama-family layer under SDPA, no recomputation, ``e`` bytes per activation."""
    for name, v in (
        ("s", s),
        ("b", b),
        ("hidden", hidden),
        ("heads", heads),
        ("kv_heads", kv_heads),
        ("head_dim", head_dim),
        ("intermediate", intermediate),
        ("e", e),
    ):
        _whole(name, v)
    n = (s, b)

    def norm(label: str) -> list[Saved]:
        return [
            (f"{label}: fp32 input", (*n, hidden), 4, False),
            (f"{label}: 1/rms", (*n, 1), 4, False),
            (f"{label}: normalized", (*n, hidden), e, False),
            (f"{label}: output", (*n, hidden), e, False),
        ]

    return [
        *norm("attention norm"),
        ("q (after rotary)", (*n, heads, head_dim), e, False),
        ("k (after rotary)", (*n, kv_heads, head_dim), e, False),
        ("v", (*n, kv_heads, head_dim), e, False),
        ("SDPA log-sum-exp", (*n, heads), 4, False),
        ("attention output", (*n, heads, head_dim), e, False),
        *norm("MLP norm"),
        ("MLP gate", (*n, intermediate), e, False),
        ("MLP activation", (*n, intermediate), e, False),
        ("MLP up", (*n, intermediate), e, False),
        ("MLP product", (*n, intermediate), e, False),
    ]


def saved_bytes(
    saved: list[Saved], tensor_parallel: int = 1, sequence_parallel: bool = False
) -> float:
    """Bytes one rank keeps: split tensors divided by ``tensor_parallel``, and the
    replicated ones too with sequence parallelism."""
    _whole("tensor_parallel", tensor_parallel)
    total = 0.0
    for _name, shape, width, split in saved:
        share = tensor_parallel if (split or sequence_parallel) else 1
        total += math.prod(shape) * width / share
    return total
