"""Context parallelism over P GPUs, each holding N/P tokens of a sequence: what one GPU sends.

- DeepSpeed-Ulysses (Jacobs et al., 2023): before attention an all-to-all turns the local
  token slice of Q, K and V (all heads) into all tokens of H/P heads; after attention a
  second all-to-all turns the output back. An all-to-all sends (P − 1)/P of the local
  buffer, so per layer in the forward pass one GPU sends
  (P − 1)/P · (N/P) · (2·d_q + 2·d_kv) values (d_q = heads × head_dim, d_kv = KV heads ×
  head_dim), and the backward pass the same again. For multi-head attention the paper's
  count is 4Nh/P per GPU as (P − 1)/P → 1: constant when N and P grow together. Heads
  (and KV heads) must split evenly over the P GPUs.
- Ring attention (Liu, Zaharia & Abbeel, 2023) and Megatron-Core context parallelism: each
  GPU passes its K and V block around the ring, P − 1 hops per layer in the forward pass:
  (P − 1) · (N/P) · 2·d_kv values, whatever the head count; the backward pass sends K and V
  again and the gradients dK, dV the other way: twice the forward. The transfers overlap
  with the blockwise attention compute.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, exact, positive


@dataclass(frozen=True)
class ContextTraffic:
    """Bytes one GPU sends per layer for one sequence."""

    tokens_per_gpu: int
    ulysses_forward_bytes: float
    ulysses_step_bytes: float  # forward + backward
    ring_forward_bytes: float
    ring_step_bytes: float
    ulysses_valid: str  # "yes" when the heads split evenly over the GPUs


def context_traffic(
    seq_len: int, cp: int, heads: int, kv_heads: int, head_dim: int, value_bytes: float = 2
) -> ContextTraffic:
    """Per-layer bytes one GPU sends with Ulysses and with ring attention over ``cp`` GPUs."""
    for name, value in (
        ("seq_len", seq_len),
        ("cp", cp),
        ("heads", heads),
        ("kv_heads", kv_heads),
        ("head_dim", head_dim),
    ):
        at_least(name, value, 1)
    positive("value_bytes", value_bytes)
    if seq_len % cp:
        raise SystemsInputError(f"seq_len {seq_len} does not split over cp {cp} GPUs")
    if heads % kv_heads:
        raise SystemsInputError(f"heads {heads} is not a multiple of kv_heads {kv_heads}")
    local = seq_len // cp
    d_q, d_kv = heads * head_dim, kv_heads * head_dim
    ulysses = (cp - 1) / cp * local * (2 * d_q + 2 * d_kv) * value_bytes
    ring = (cp - 1) * local * 2 * d_kv * value_bytes
    ok = heads % cp == 0 and kv_heads % cp == 0
    return ContextTraffic(
        local,
        exact(ulysses),
        exact(2 * ulysses),
        exact(ring),
        exact(2 * ring),
        "yes" if ok else "no",
    )
