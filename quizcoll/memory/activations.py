"""Activation memory of a decoder layer as PyTorch keeps it for the backward pass.

Korthikanti et al. (2022) count the GPT layer of their paper: a 4h MLP, multi-head attention,
fp16 activations, dropout masks and attention computed as explicit score matrices, which gives
sbh(34 + 5as/h) bytes per layer (:func:`quizcoll.memory.training.training_activations`, "the
paper's GPT figure"). This module counts the tensors that the autograd graph of Hugging Face
``transformers`` 5.x on PyTorch 2.x saves for one layer of the architectures of the model
catalogue, term by term, for n = s·b tokens and e activation bytes (2 for bf16, 4 for fp32):

- RMSNorm (Llama, Mistral, Mixtral, Qwen2) computes in fp32: the fp32 input (4h), 1/rms (4),
  the normalized input cast back (e·h) and the weighted output that the projections read
  (e·h). Gemma's RMSNorm keeps the normalized input in fp32 (4h) and saves 1 + weight in fp32
  (4h bytes per norm, not per token). LayerNorm (GPT-2) saves its input, mean and 1/σ (e each
  on CPU) and its output.
- Attention with rotary embeddings saves the rotated q (e·a·d), k and v (e·kv·d: GQA keeps the
  shared heads, SDPA is called with ``enable_gqa``) and the output (e·a·d). The SDPA (flash)
  kernel adds its log-sum-exp (fp32, 4a); when a sliding window shorter than s makes
  transformers pass a mask, k and v are repeated to all heads first and SDPA keeps a float copy
  of the mask (e·s per token). Eager attention keeps k and v repeated to a heads, the softmax
  output in fp32 (4·a·s) and its cast to e bytes that multiplies v (e·a·s, none in fp32).
  GPT-2's fused QKV projection keeps its whole 3h output alive under SDPA; eager attention
  copies q, k and v for its batched matmuls instead.
- Gated MLPs (SwiGLU/GeGLU, width f) keep gate, activation, up and product: 4e·f. GPT-2's
  ``gelu_new`` is written out in Python and keeps five f-wide tensors (5e·f). A Mixtral expert
  block keeps, for each of the k experts a token is routed to, its gathered input and weighted
  output (2e·h), the expert MLP (4e·f) and 28 bytes of indices and routing weight; the router
  keeps the fp32 softmax (4E), top-k indices and weights (12k) and their sum (4).
- Selective recomputation (checkpointing the attention core) drops the log-sum-exp, the score
  matrices and the mask copy; the core's inputs q, k, v (before any repetition) and its output
  stay. Full recomputation keeps only each layer's input (e·h).

Not modelled: dropout (Llama-family configs have none; GPT-2 is counted with its dropout off:
PyTorch's fused CUDA dropout keeps a 1-byte mask per element, the CPU path a mask of the
activation dtype), tensor and sequence parallelism (see the paper's figure), and the embedding,
final norm and loss, which are outside the layers. ``docs/oracles.md`` gives the measured
agreement (tests/oracles/test_activations_oracle.py).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from quizcoll.memory.architecture import MlpKind, ModelConfig, NormKind
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.training import Recompute


class AttentionKernel(enum.Enum):
    """How attention is computed: PyTorch's fused SDPA (flash) kernel or eager matmuls."""

    SDPA = "sdpa"
    EAGER = "eager"


PRECISION_BYTES: dict[str, int] = {"bf16": 2, "fp16": 2, "fp32": 4}

ROUTED_ROW_EXTRA_BYTES = 28  # per (token, expert) pair: int64 indices and the fp32 routing weight


@dataclass(frozen=True)
class Term:
    """One group of saved tensors: bytes for the whole layer."""

    name: str
    bytes: float


@dataclass(frozen=True)
class LayerActivations:
    """Saved-for-backward bytes of one layer (the largest, if layers differ) and of all layers."""

    terms: tuple[Term, ...]
    per_layer_bytes: float
    total_bytes: float
    layers: int


def _norm_terms(cfg: ModelConfig, n: int, e: int, label: str) -> list[Term]:
    h = cfg.hidden_size
    if cfg.norm_kind is NormKind.LAYERNORM:
        return [
            Term(f"{label}: input", e * h * n),
            Term(f"{label}: mean and 1/σ", 2 * e * n),
            Term(f"{label}: output", e * h * n),
        ]
    normalized = 4 if cfg.model_type == "gemma" else e
    terms = [
        Term(f"{label}: fp32 input", 4 * h * n),
        Term(f"{label}: 1/rms", 4 * n),
        Term(f"{label}: normalized", normalized * h * n),
        Term(f"{label}: output", e * h * n),
    ]
    if cfg.model_type == "gemma":
        terms.append(Term(f"{label}: 1 + weight (fp32)", 4 * h))
    return terms


def _attention_terms(
    cfg: ModelConfig,
    s: int,
    n: int,
    e: int,
    kernel: AttentionKernel,
    recompute: Recompute,
    window: int | None,
) -> list[Term]:
    a, d, kv, h = cfg.num_heads, cfg.head_dim, cfg.num_kv_heads, cfg.hidden_size
    q_width, kv_width = a * d, kv * d
    selective = recompute is Recompute.SELECTIVE
    if cfg.model_type == "gpt2":
        if kernel is AttentionKernel.SDPA or selective:
            terms = [Term("fused QKV output", 3 * e * h * n), Term("attention output", e * h * n)]
            if not selective:
                terms.append(Term("SDPA log-sum-exp (fp32)", 4 * a * n))
            return terms
        return [
            Term("q, k, v copies for the matmuls", 3 * e * h * n),
            Term("softmax output", e * a * s * n),
            Term("attention output (contiguous)", e * h * n),
        ]
    masked = window is not None and window < s
    terms = [Term("q (after rotary)", e * q_width * n)]
    if selective:
        terms.append(Term("k (after rotary), v", 2 * e * kv_width * n))
    elif kernel is AttentionKernel.SDPA:
        width = q_width if masked else kv_width
        what = "k, v repeated to all heads" if masked and kv < a else "k (after rotary), v"
        terms.append(Term(what, 2 * e * width * n))
        terms.append(Term("SDPA log-sum-exp (fp32)", 4 * a * n))
        if masked:
            terms.append(Term("sliding-window mask copy", e * s * n))
    else:
        terms.append(Term("k, v repeated to all heads", 2 * e * q_width * n))
        terms.append(Term("softmax output (fp32)", 4 * a * s * n))
        if e != 4:
            terms.append(Term("softmax output cast", e * a * s * n))
    terms.append(Term("attention output", e * q_width * n))
    return terms


def _mlp_terms(cfg: ModelConfig, n: int, e: int) -> list[Term]:
    f, h = cfg.intermediate_size, cfg.hidden_size
    if cfg.is_moe:
        k, experts = cfg.experts_per_token, cfg.num_experts
        rows = n * k
        return [
            Term("router: fp32 softmax, top-k indices and weights", (4 * experts + 12 * k + 4) * n),
            Term("experts: gathered inputs and weighted outputs", 2 * e * h * rows),
            Term("experts: gate, activation, up, product", 4 * e * f * rows),
            Term("experts: indices and routing weights", ROUTED_ROW_EXTRA_BYTES * rows),
        ]
    if cfg.mlp_kind is MlpKind.GATED:
        return [Term("MLP: gate, activation, up, product", 4 * e * f * n)]
    return [Term("MLP: fc output, gelu_new's four intermediates", 5 * e * f * n)]


def _layer_terms(
    cfg: ModelConfig,
    s: int,
    b: int,
    e: int,
    kernel: AttentionKernel,
    recompute: Recompute,
    window: int | None,
) -> tuple[Term, ...]:
    n = s * b
    if recompute is Recompute.FULL:
        return (Term("layer input (checkpoint)", e * cfg.hidden_size * n),)
    return (
        *_norm_terms(cfg, n, e, "attention norm"),
        *_attention_terms(cfg, s, n, e, kernel, recompute, window),
        *_norm_terms(cfg, n, e, "MLP norm"),
        *_mlp_terms(cfg, n, e),
    )


def layer_activations(
    cfg: ModelConfig,
    *,
    seq_len: int,
    micro_batch: int,
    kernel: AttentionKernel = AttentionKernel.SDPA,
    recompute: Recompute = Recompute.NONE,
    precision: str = "bf16",
) -> LayerActivations:
    """Bytes saved for the backward pass by the layers of ``cfg`` (see module docs)."""
    if seq_len < 1 or micro_batch < 1:
        raise MemoryInputError(
            f"seq_len and micro_batch must be at least 1, got {seq_len} and {micro_batch}"
        )
    if precision not in PRECISION_BYTES:
        raise MemoryInputError(
            f"precision must be one of {', '.join(PRECISION_BYTES)}, got {precision!r}"
        )
    e = PRECISION_BYTES[precision]
    by_window = {
        w: _layer_terms(cfg, seq_len, micro_batch, e, kernel, recompute, w)
        for w in set(cfg.sliding_windows)
    }
    sizes = {w: sum(t.bytes for t in terms) for w, terms in by_window.items()}
    largest = max(sizes, key=lambda w: (sizes[w], w is None))
    total = sum(sizes[w] for w in cfg.sliding_windows)
    return LayerActivations(by_window[largest], sizes[largest], total, cfg.num_layers)
