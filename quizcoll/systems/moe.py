"""Mixture-of-experts systems numbers: capacity, dropped tokens, all-to-all volume, balancing loss.

- Expert capacity (Fedus, Zoph & Shazeer, "Switch Transformers", JMLR 2022; GShard, Lepikhin
  et al. 2021, for top-k): each of E experts takes at most
  ⌈capacity_factor × tokens × k / E⌉ token assignments; assignments past that are dropped
  (they skip the layer through the residual connection).
- All-to-all with expert parallelism over EP GPUs: every GPU dispatches each of its tokens'
  k assignments (h values each) to the GPUs holding those experts and combines the results
  back. With balanced routing (EP − 1)/EP of them leave the GPU: per layer and direction
  (EP − 1)/EP · tokens · k · h values, padded by the capacity factor when buffers have fixed
  capacity. Forward = dispatch + combine; the backward pass repeats both.
- Switch load-balancing loss: α · E · Σᵢ fᵢ · Pᵢ, with fᵢ the fraction of tokens dispatched
  to expert i and Pᵢ the mean router probability of expert i (α = 10⁻² in the paper). It
  equals α under perfectly uniform routing and α · E when one expert takes everything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, exact, positive

MAX_EXPERTS = 1024
_MAX_LIST_TEXT = 20_000


def parse_numbers(name: str, text: str, *, integers: bool) -> tuple[float, ...]:
    """``"30, 20, 10"`` → (30, 20, 10): a bounded, comma-separated list of finite numbers ≥ 0."""
    if not isinstance(text, str) or not text.strip():
        raise SystemsInputError(f"{name}: expected comma-separated numbers, got {text!r}")
    if len(text) > _MAX_LIST_TEXT:
        raise SystemsInputError(f"{name}: list is too long ({len(text):,} characters)")
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > MAX_EXPERTS:
        raise SystemsInputError(f"{name}: at most {MAX_EXPERTS} values, got {len(parts)}")
    values: list[float] = []
    for part in parts:
        try:
            value = int(part) if integers else float(part)
        except ValueError:
            kind = "a whole number" if integers else "a number"
            raise SystemsInputError(f"{name}: {part!r} is not {kind}") from None
        if not math.isfinite(value) or value < 0:
            raise SystemsInputError(f"{name}: {part!r} must be a finite number ≥ 0")
        values.append(value)
    return tuple(values)


@dataclass(frozen=True)
class Capacity:
    capacity: int  # assignments one expert takes
    slots: int  # capacity × experts
    assignments: int  # tokens × k
    dropped: int  # given per-expert loads; 0 without them
    drop_fraction: float


def expert_capacity(
    tokens: int,
    experts: int,
    top_k: int,
    capacity_factor: float,
    loads: tuple[float, ...] | None = None,
) -> Capacity:
    """Capacity per expert, and how many of ``loads`` (assignments per expert) it drops."""
    at_least("tokens", tokens, 1)
    at_least("experts", experts, 1)
    at_least("top_k", top_k, 1)
    positive("capacity_factor", capacity_factor)
    if top_k > experts:
        raise SystemsInputError(f"top_k {top_k} exceeds the {experts} experts")
    capacity = math.ceil(capacity_factor * tokens * top_k / experts)
    assignments = tokens * top_k
    dropped = 0
    if loads is not None:
        if len(loads) != experts:
            raise SystemsInputError(f"loads has {len(loads)} values for {experts} experts")
        if sum(loads) != assignments:
            raise SystemsInputError(
                f"loads sum to {sum(loads):g}, not tokens × top_k = {assignments}"
            )
        dropped = int(sum(max(0, load - capacity) for load in loads))
    return Capacity(capacity, capacity * experts, assignments, dropped, dropped / assignments)


@dataclass(frozen=True)
class AllToAll:
    dispatch_bytes: float  # one GPU sends, per layer, forward
    combine_bytes: float
    forward_bytes: float
    step_bytes: float  # forward + backward


def all_to_all_volume(
    tokens_per_gpu: int,
    hidden: int,
    top_k: int,
    ep: int,
    value_bytes: float = 2,
    capacity_factor: float = 1.0,
) -> AllToAll:
    """Bytes one GPU sends in a layer's dispatch and combine all-to-alls (balanced routing)."""
    at_least("tokens_per_gpu", tokens_per_gpu, 1)
    at_least("hidden", hidden, 1)
    at_least("top_k", top_k, 1)
    at_least("ep", ep, 1)
    positive("value_bytes", value_bytes)
    positive("capacity_factor", capacity_factor)
    one = (ep - 1) / ep * tokens_per_gpu * top_k * hidden * value_bytes * capacity_factor
    return AllToAll(exact(one), exact(one), exact(2 * one), exact(4 * one))


@dataclass(frozen=True)
class BalanceLoss:
    loss: float
    uniform_loss: float  # α: perfectly balanced routing
    collapsed_loss: float  # α·E: one expert takes every token with probability 1


def switch_balance_loss(
    loads: tuple[float, ...], probabilities: tuple[float, ...], alpha: float = 0.01
) -> BalanceLoss:
    """α · E · Σ fᵢ Pᵢ with fᵢ = loads normalised to fractions, Pᵢ the mean router probabilities."""
    positive("alpha", alpha)
    experts = len(loads)
    if experts < 1 or len(probabilities) != experts:
        raise SystemsInputError(
            f"need one load and one probability per expert, got {len(loads)} and "
            f"{len(probabilities)}"
        )
    total = sum(loads)
    if total <= 0:
        raise SystemsInputError("loads must not all be zero")
    if abs(sum(probabilities) - 1) > 1e-3:
        raise SystemsInputError(
            f"mean router probabilities must sum to 1, got {sum(probabilities):g}"
        )
    loss = alpha * experts * sum(f / total * p for f, p in zip(loads, probabilities, strict=True))
    return BalanceLoss(loss, alpha, alpha * experts)
