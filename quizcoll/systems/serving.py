"""Serving speed limits: the roofline, decode and prefill time, PagedAttention, prefix caching,
speculative decoding and MLA's latent KV cache.

- Roofline (Williams, Waterman & Patterson, CACM 2009): a kernel of F FLOPs moving B bytes
  has arithmetic intensity I = F/B and attains at most min(peak, I × bandwidth); the ridge
  point peak/bandwidth is the intensity where it turns compute-bound. A (m × k)·(k × n)
  matmul does 2mnk FLOPs on (mk + kn + mn) values.
- A decode step reads every weight once and each sequence's KV cache, and computes
  batch × (2N + 4LHQT) FLOPs: its time is at least max(bytes / bandwidth, FLOPs / peak)
  (Pope et al., "Efficiently Scaling Transformer Inference", 2022). At small batch the bytes
  win: tokens/s per sequence ≲ bandwidth / (weights + batch × context × KV bytes per token),
  and batching shares the weight read among the sequences.
- Prefill processes the whole prompt in one pass: at least max(2N·P / peak, weights / bw).
- PagedAttention (Kwon et al., "Efficient Memory Management for LLM Serving with
  PagedAttention", SOSP 2023): the KV cache lives in blocks of B tokens (vLLM default 16);
  a sequence of T tokens takes ⌈T/B⌉ blocks, wasting less than one block, where reserving
  the maximum length wastes (max − T) tokens. Prefix caching shares the full blocks of a
  common prompt prefix among sequences (vLLM's automatic prefix caching hashes full blocks).
- Speculative decoding (Leviathan, Kalman & Matias, ICML 2023): with acceptance rate α and γ
  drafted tokens, a target pass yields (1 − α^(γ+1))/(1 − α) tokens on average, and the
  walltime improves by that over (γc + 1) for a draft costing c target passes (Theorem 3.8).
- MLA (DeepSeek-AI, "DeepSeek-V2", 2024, Table 1): the cache holds a compressed latent of
  d_c values and a decoupled RoPE key of d_h^R values per token and layer: (d_c + d_h^R)·l
  elements, against 2·n_h·d_h·l for multi-head attention.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, exact, fraction, positive


@dataclass(frozen=True)
class Roofline:
    flops: float
    bytes: float
    arithmetic_intensity: float  # FLOPs per byte
    ridge_point: float  # peak / bandwidth, FLOPs per byte
    attainable_flops: float  # min(peak, intensity × bandwidth)
    time_s: float  # flops / attainable
    bound: str  # "memory" or "compute"


def roofline(flops: float, nbytes: float, peak_flops: float, bandwidth: float) -> Roofline:
    """Where a kernel of ``flops`` moving ``nbytes`` sits on a GPU's roofline."""
    positive("flops", flops)
    positive("bytes", nbytes)
    positive("peak_flops", peak_flops)
    positive("bandwidth", bandwidth)
    intensity = flops / nbytes
    ridge = peak_flops / bandwidth
    attainable = min(peak_flops, intensity * bandwidth)
    return Roofline(
        flops,
        nbytes,
        intensity,
        ridge,
        attainable,
        flops / attainable,
        "memory" if intensity < ridge else "compute",
    )


def matmul_cost(m: int, n: int, k: int, value_bytes: float) -> tuple[int, float]:
    """FLOPs and bytes of an (m × k)·(k × n) matmul reading both inputs, writing the output."""
    for name, value in (("m", m), ("n", n), ("k", k)):
        at_least(name, value, 1)
    positive("value_bytes", value_bytes)
    return 2 * m * n * k, (m * k + k * n + m * n) * value_bytes


@dataclass(frozen=True)
class DecodeStep:
    """One decode step of ``batch`` sequences at ``context`` tokens each."""

    bytes_read: float  # weights + KV caches
    flops: float
    memory_time_s: float
    compute_time_s: float
    bound: str

    @property
    def time_s(self) -> float:
        return max(self.memory_time_s, self.compute_time_s)


def decode_step(
    *,
    weights_bytes: float,
    kv_read_bytes: float,
    batch: int,
    flops_per_token: float,
    bandwidth: float,
    peak_flops: float,
) -> DecodeStep:
    """Memory and compute time of one decode step: each of ``batch`` sequences generates one
    token, reading the weights once and its own KV cache (``kv_read_bytes`` for all of them)."""
    positive("weights_bytes", weights_bytes)
    at_least("kv_read_bytes", kv_read_bytes, 0)
    at_least("batch", batch, 1)
    positive("flops_per_token", flops_per_token)
    positive("bandwidth", bandwidth)
    positive("peak_flops", peak_flops)
    nbytes = weights_bytes + kv_read_bytes
    flops = batch * flops_per_token
    memory, compute = nbytes / bandwidth, flops / peak_flops
    return DecodeStep(nbytes, flops, memory, compute, "memory" if memory >= compute else "compute")


@dataclass(frozen=True)
class PagedKv:
    blocks: int  # per sequence
    allocated_tokens: int
    waste_tokens: int  # in the last block
    waste_bytes: float  # all sequences
    waste_fraction: float  # of the allocated KV memory
    reserved_waste_bytes: float  # if each sequence had max_len tokens reserved instead


def paged_kv(
    tokens: int, block_size: int, kv_bytes_per_token: float, sequences: int = 1, max_len: int = 0
) -> PagedKv:
    """Internal fragmentation of PagedAttention blocks against reserving ``max_len`` tokens."""
    at_least("tokens", tokens, 1)
    at_least("block_size", block_size, 1)
    positive("kv_bytes_per_token", kv_bytes_per_token)
    at_least("sequences", sequences, 1)
    reserve = max_len or tokens
    if reserve < tokens:
        raise SystemsInputError(f"max_len {max_len} is shorter than the {tokens} tokens")
    blocks = math.ceil(tokens / block_size)
    allocated = blocks * block_size
    waste = allocated - tokens
    return PagedKv(
        blocks=blocks,
        allocated_tokens=allocated,
        waste_tokens=waste,
        waste_bytes=exact(waste * kv_bytes_per_token * sequences),
        waste_fraction=waste / allocated,
        reserved_waste_bytes=exact((reserve - tokens) * kv_bytes_per_token * sequences),
    )


@dataclass(frozen=True)
class PrefixCache:
    shared_tokens: int  # the prefix's tokens in full blocks
    bytes_without_sharing: float
    bytes_with_sharing: float
    saved_bytes: float
    prefill_tokens_saved: int  # every sequence but the first reuses the shared blocks


def prefix_cache(
    prefix_tokens: int, sequences: int, block_size: int, kv_bytes_per_token: float
) -> PrefixCache:
    """KV memory and prefill saved when ``sequences`` share a prompt prefix (full blocks only)."""
    at_least("prefix_tokens", prefix_tokens, 1)
    at_least("sequences", sequences, 1)
    at_least("block_size", block_size, 1)
    positive("kv_bytes_per_token", kv_bytes_per_token)
    shared = (prefix_tokens // block_size) * block_size
    without = sequences * prefix_tokens * kv_bytes_per_token
    saved = (sequences - 1) * shared * kv_bytes_per_token
    return PrefixCache(
        shared, exact(without), exact(without - saved), exact(saved), (sequences - 1) * shared
    )


@dataclass(frozen=True)
class Speculation:
    expected_tokens: float  # per target pass, from the acceptance distribution
    accepted_draft_tokens: float  # expected_tokens − 1
    speedup: float  # expected_tokens / (γc + 1)
    best_gamma: int  # the γ ≤ max_gamma with the largest speedup
    best_speedup: float


def _expected_tokens(alpha: float, gamma: int) -> float:
    """Σ over k accepted drafts: P(k) · (k + 1), with P(k) = α^k(1 − α) for k < γ, α^γ for k = γ."""
    return sum(alpha**k * (1 - alpha) * (k + 1) for k in range(gamma)) + alpha**gamma * (gamma + 1)


def speculative(alpha: float, gamma: int, cost_ratio: float, max_gamma: int = 16) -> Speculation:
    """Expected tokens and speedup of speculative decoding (Leviathan et al. 2023)."""
    fraction("alpha", alpha, open_low=False, open_high=False)
    at_least("gamma", gamma, 1)
    at_least("cost_ratio", cost_ratio, 0)
    at_least("max_gamma", max_gamma, gamma)
    expected = _expected_tokens(alpha, gamma)
    speedups = {
        g: _expected_tokens(alpha, g) / (g * cost_ratio + 1) for g in range(1, max_gamma + 1)
    }
    best = max(speedups, key=lambda g: (speedups[g], -g))
    return Speculation(
        expected, expected - 1, expected / (gamma * cost_ratio + 1), best, speedups[best]
    )


@dataclass(frozen=True)
class LatentKv:
    mla_elements_per_token: int  # (d_c + d_R) · layers
    mha_elements_per_token: int  # 2 · heads · head_dim · layers
    mla_bytes_per_token: float
    mha_bytes_per_token: float
    reduction: float  # MHA / MLA
    gqa_groups_equivalent: float  # (d_c + d_R) / (2 · head_dim)


def latent_kv(
    layers: int, latent_dim: int, rope_dim: int, heads: int, head_dim: int, value_bytes: float
) -> LatentKv:
    """MLA's KV cache per token against multi-head attention's (DeepSeek-V2, Table 1)."""
    for name, value in (
        ("layers", layers),
        ("latent_dim", latent_dim),
        ("heads", heads),
        ("head_dim", head_dim),
    ):
        at_least(name, value, 1)
    at_least("rope_dim", rope_dim, 0)
    positive("value_bytes", value_bytes)
    mla = (latent_dim + rope_dim) * layers
    mha = 2 * heads * head_dim * layers
    return LatentKv(
        mla,
        mha,
        exact(mla * value_bytes),
        exact(mha * value_bytes),
        mha / mla,
        (latent_dim + rope_dim) / (2 * head_dim),
    )
