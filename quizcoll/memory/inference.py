"""Inference memory: weights, KV cache, forward-pass activations, runtime overhead, GPU fit.

- KV cache = 2 (K and V) · layers · kv_heads · head_dim · bytes · tokens · batch, where a
  layer with a sliding window holds at most ``window`` tokens. Linear in context.
- Activations: the peak of live tensors in one layer of a forward pass over the whole
  context (prefill), nothing kept for a backward pass: the residual stream and its normed
  copy (2h), plus the larger of attention (q, k, v and the attention output) and the MLP
  (3 × intermediate for gated MLPs, × experts per token for MoE). Without FlashAttention
  the score matrix and its softmax (2 · heads · T² per sequence) are materialised too: that
  term, not the KV cache, is what grows quadratically with context. Plus fp32 logits of the
  last position (batch · vocab · 4 B).
- Overhead: CUDA context, library workspaces and allocator slack, per GPU; default
  :data:`DEFAULT_OVERHEAD_BYTES`, settable.
- Sharding over n GPUs (tensor parallel) splits weights, KV cache and activations evenly;
  each GPU carries its own overhead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.memory.architecture import MlpKind, ModelConfig
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import (
    WeightBytes,
    WeightFormat,
    bytes_for_parameter_count,
    weight_bytes,
)
from quizcoll.memory.gpus import DEFAULT_UTILIZATION, Gpu
from quizcoll.memory.params import count_parameters, tensors

DEFAULT_OVERHEAD_BYTES = 2**30  # 1 GiB per GPU
LOGITS_BYTES = 4  # logits are computed in fp32
RULE_OF_THUMB_HEADROOM = (0.2, 0.3)  # the study notes' "plus 20–30%"
MAX_SEARCH_CONTEXT = 2**34


def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, kv_bytes: int) -> int:
    """KV bytes one token adds across all layers: 2 · layers · kv_heads · head_dim · bytes."""
    return 2 * layers * kv_heads * head_dim * kv_bytes


def kv_cache_bytes(cfg: ModelConfig, context: int, batch: int, kv_bytes: int) -> int:
    """KV cache of ``batch`` sequences of ``context`` tokens; sliding-window layers capped."""
    per_layer_token = 2 * cfg.num_kv_heads * cfg.head_dim * kv_bytes
    tokens = sum(context if w is None else min(context, w) for w in cfg.sliding_windows)
    return per_layer_token * tokens * batch


@dataclass(frozen=True)
class Activations:
    """Peak forward-pass activation bytes and the part that is the attention score matrix."""

    total_bytes: int
    score_matrix_bytes: int  # 0 with FlashAttention
    logits_bytes: int


def activation_bytes(
    cfg: ModelConfig, context: int, batch: int, act_bytes: int, flash_attention: bool = True
) -> Activations:
    """Peak live activations of a forward pass over ``context`` tokens (see module docs)."""
    h = cfg.hidden_size
    tokens = batch * context
    residual = 2 * h
    attention = (cfg.num_heads + 2 * cfg.num_kv_heads) * cfg.head_dim + cfg.num_heads * cfg.head_dim
    widths = 3 if cfg.mlp_kind is MlpKind.GATED else 2
    mlp = cfg.intermediate_size * widths * (cfg.experts_per_token if cfg.is_moe else 1)
    mlp += cfg.num_experts  # router logits
    scores = 0 if flash_attention else 2 * batch * cfg.num_heads * context * context * act_bytes
    attention_phase = tokens * attention * act_bytes + scores
    mlp_phase = tokens * mlp * act_bytes
    logits = batch * cfg.vocab_size * LOGITS_BYTES
    total = tokens * residual * act_bytes + max(attention_phase, mlp_phase) + logits
    return Activations(total, scores, logits)


@dataclass(frozen=True)
class InferenceEstimate:
    """Every part of inference memory for one model, format, context and batch.

    With only a parameter count (no architecture) the KV cache and activations are None.
    ``total_bytes`` is for one GPU holding everything (one overhead).
    """

    parameters: int
    active_parameters: int
    weights: WeightBytes | None
    weights_bytes: int
    bytes_per_parameter: float
    kv_bytes_per_token: int | None
    kv_cache_bytes: int | None
    activations: Activations | None
    overhead_bytes: int
    context: int
    batch: int
    flash_attention: bool

    @property
    def activation_bytes(self) -> int | None:
        return None if self.activations is None else self.activations.total_bytes

    @property
    def shardable_bytes(self) -> int:
        """Weights + KV cache + activations: what tensor parallelism divides among GPUs."""
        return self.weights_bytes + (self.kv_cache_bytes or 0) + (self.activation_bytes or 0)

    @property
    def total_bytes(self) -> int:
        return self.shardable_bytes + self.overhead_bytes

    def per_gpu_bytes(self, gpus: int) -> int:
        return math.ceil(self.shardable_bytes / gpus) + self.overhead_bytes


def check_request(context: int, batch: int, overhead_bytes: int) -> None:
    if context < 1:
        raise MemoryInputError(f"context must be at least 1 token, got {context}")
    if batch < 1:
        raise MemoryInputError(f"batch must be at least 1, got {batch}")
    if overhead_bytes < 0:
        raise MemoryInputError(f"overhead must not be negative, got {overhead_bytes}")


def estimate(
    cfg: ModelConfig | None,
    fmt: WeightFormat,
    *,
    parameters: int | None = None,
    kv_format: WeightFormat | None = None,
    context: int = 4096,
    batch: int = 1,
    flash_attention: bool = True,
    overhead_bytes: int = DEFAULT_OVERHEAD_BYTES,
) -> InferenceEstimate:
    """Inference memory of ``cfg`` (or of a bare ``parameters`` count) stored in ``fmt``.

    The KV cache uses ``kv_format`` (default: fp32 for fp32 weights, else 16-bit).
    """
    check_request(context, batch, overhead_bytes)
    kv_bytes = (kv_format.bits // 8) if kv_format else fmt.compute_bytes
    if cfg is None:
        if parameters is None or parameters < 1:
            raise MemoryInputError("give a model, a config or a positive parameter count")
        wbytes = bytes_for_parameter_count(parameters, fmt)
        return InferenceEstimate(
            parameters=parameters,
            active_parameters=parameters,
            weights=None,
            weights_bytes=wbytes,
            bytes_per_parameter=wbytes / parameters,
            kv_bytes_per_token=None,
            kv_cache_bytes=None,
            activations=None,
            overhead_bytes=overhead_bytes,
            context=context,
            batch=batch,
            flash_attention=flash_attention,
        )
    if (
        cfg.learned_positions
        and cfg.max_position_embeddings
        and context > cfg.max_position_embeddings
    ):
        raise MemoryInputError(
            f"{cfg.name} has learned position embeddings for {cfg.max_position_embeddings} "
            f"tokens; context {context} is longer"
        )
    counts = count_parameters(cfg)
    weights = weight_bytes(tensors(cfg), fmt)
    return InferenceEstimate(
        parameters=counts.total,
        active_parameters=counts.active,
        weights=weights,
        weights_bytes=weights.total_bytes,
        bytes_per_parameter=weights.bytes_per_parameter,
        kv_bytes_per_token=kv_bytes_per_token(
            cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, kv_bytes
        ),
        kv_cache_bytes=kv_cache_bytes(cfg, context, batch, kv_bytes),
        activations=activation_bytes(cfg, context, batch, fmt.compute_bytes, flash_attention),
        overhead_bytes=overhead_bytes,
        context=context,
        batch=batch,
        flash_attention=flash_attention,
    )


def rule_of_thumb(parameters: int, bits_per_parameter: float) -> tuple[int, int, int]:
    """The study notes' estimate: (params × bytes, that + 20 %, that + 30 %)."""
    base = math.ceil(parameters * bits_per_parameter / 8)
    low, high = RULE_OF_THUMB_HEADROOM
    return base, round(base * (1 + low)), round(base * (1 + high))


def gpus_needed(est: InferenceEstimate, gpu: Gpu, utilization: float = DEFAULT_UTILIZATION) -> int:
    """Fewest GPUs of ``gpu`` whose usable memory holds ``est`` (sharded, overhead on each)."""
    room = gpu.usable_bytes(utilization) - est.overhead_bytes
    if room <= 0:
        raise MemoryInputError(
            f"the overhead ({est.overhead_bytes:,} B) leaves no room on a {gpu.name} "
            f"at utilization {utilization:g}"
        )
    return max(1, math.ceil(est.shardable_bytes / room))


GPUS_PER_NODE = 8  # an HGX/DGX node: 8 GPUs joined by NVLink, the usual tensor-parallel limit


def valid_tp_degree(cfg: ModelConfig, degree: int) -> bool:
    """Whether tensor parallelism over ``degree`` GPUs can split ``cfg``'s attention: the
    query heads divide evenly, and the KV heads either divide evenly or are replicated whole
    (vLLM: ``num_attention_heads % tp == 0``; KV heads split or replicated)."""
    heads, kv = cfg.num_heads, cfg.num_kv_heads
    return degree >= 1 and heads % degree == 0 and (kv % degree == 0 or degree % kv == 0)


def tp_degree(cfg: ModelConfig, at_least: int, gpus_per_node: int = GPUS_PER_NODE) -> int:
    """The smallest valid tensor-parallel degree of at least ``at_least`` GPUs within one
    node of ``gpus_per_node``; 0 when none is (the model needs pipeline stages across nodes)."""
    for degree in range(max(1, at_least), gpus_per_node + 1):
        if valid_tp_degree(cfg, degree):
            return degree
    return 0


def max_context(
    cfg: ModelConfig,
    fmt: WeightFormat,
    gpu: Gpu,
    *,
    gpus: int = 1,
    kv_format: WeightFormat | None = None,
    batch: int = 1,
    utilization: float = DEFAULT_UTILIZATION,
    flash_attention: bool = True,
    overhead_bytes: int = DEFAULT_OVERHEAD_BYTES,
) -> int:
    """Longest context (tokens per sequence) that fits on ``gpus`` × ``gpu``; 0 if none does.

    Memory only: the model's trained context length is a separate limit.
    """
    check_request(1, batch, overhead_bytes)
    if gpus < 1:
        raise MemoryInputError(f"GPU count must be at least 1, got {gpus}")
    budget = gpu.usable_bytes(utilization)
    kv_bytes = (kv_format.bits // 8) if kv_format else fmt.compute_bytes
    weights = weight_bytes(tensors(cfg), fmt).total_bytes

    def fits(context: int) -> bool:
        shard = (
            weights
            + kv_cache_bytes(cfg, context, batch, kv_bytes)
            + activation_bytes(cfg, context, batch, fmt.compute_bytes, flash_attention).total_bytes
        )
        return math.ceil(shard / gpus) + overhead_bytes <= budget

    if not fits(1):
        return 0
    lo, hi = 1, 2
    while hi <= MAX_SEARCH_CONTEXT and fits(hi):
        lo, hi = hi, hi * 2
    if hi > MAX_SEARCH_CONTEXT:
        return lo
    while hi - lo > 1:  # fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo
