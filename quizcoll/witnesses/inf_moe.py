"""An MoE layer's dispatch stepped token by token, and the Switch loss from per-token data.

Second methods for ``moe.capacity`` and ``moe.balance_loss``:

- :func:`buffer_size` searches the smallest per-expert buffer whose slots, over all experts,
  hold the batch's assignments padded by the capacity factor (doubling, then bisection on
  that predicate: no ceiling, no division);
- :func:`dispatch` expands the router's per-expert counts into a token stream (experts
  interleaved, as tokens arrive), lets each expert accept tokens until its buffer is full
  and counts the ones turned away;
- :func:`switch_loss` builds the explicit token-by-expert router probability matrix and the
  one-hot dispatch mask, takes the fraction of tokens and the mean probability per expert
  as column means, and returns α·E·Σ fᵢPᵢ (Fedus et al. 2022, eq. 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAX_TOKENS = 1 << 20


def _count(name: str, value: int, minimum: int = 1) -> None:
    if int(value) != value or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")


def buffer_size(tokens: int, experts: int, top_k: int, capacity_factor: float) -> int:
    """Smallest whole buffer c with c·experts slots ≥ capacity_factor·tokens·top_k."""
    _count("tokens", tokens)
    _count("experts", experts)
    _count("top_k", top_k)
    if not capacity_factor > 0:
        raise ValueError(f"capacity_factor must be positive, got {capacity_factor!r}")
    need = capacity_factor * tokens * top_k

    def holds(c: int) -> bool:
        return c * experts >= need

    hi = 1
    while not holds(hi):
        hi *= 2
    lo = 0  # never holds: need > 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class Dispatch:
    capacity: int
    accepted: int
    dropped: int


def dispatch(loads: Sequence[int], capacity_factor: float) -> Dispatch:
    """Route a top-1 batch whose router sends ``loads[e]`` tokens to expert e: tokens arrive
    with the experts interleaved, each expert keeps the first ``buffer_size`` of its tokens
    and drops the rest."""
    if not loads:
        raise ValueError("loads: at least one expert")
    for load in loads:
        _count("load", load, 0)
    tokens = int(sum(loads))
    if tokens > MAX_TOKENS:
        raise ValueError(f"at most {MAX_TOKENS} tokens, got {tokens}")
    capacity = buffer_size(tokens, len(loads), 1, capacity_factor)
    left = list(loads)
    stream: list[int] = []
    while any(left):  # round-robin arrival: the order does not change who overflows
        for e, n in enumerate(left):
            if n:
                stream.append(e)
                left[e] -= 1
    held = [0] * len(loads)
    dropped = 0
    for e in stream:
        if held[e] < capacity:
            held[e] += 1
        else:
            dropped += 1
    return Dispatch(capacity, sum(held), dropped)


def switch_loss(loads: Sequence[int], probabilities: Sequence[float], alpha: float) -> float:
    """The Switch auxiliary loss of a batch routed ``loads`` (tokens per expert, top-1) whose
    router gives every token the probability row ``probabilities``: the explicit matrix and
    dispatch mask are built and reduced column by column."""
    if len(loads) != len(probabilities) or not loads:
        raise ValueError("loads and probabilities: one per expert, the same number")
    for load in loads:
        _count("load", load, 0)
    tokens = int(sum(loads))
    if not 0 < tokens <= MAX_TOKENS:
        raise ValueError(f"1 to {MAX_TOKENS} tokens, got {tokens}")
    experts = len(loads)
    routed = np.repeat(np.arange(experts), loads)  # token t goes to expert routed[t]
    mask = np.zeros((tokens, experts))
    mask[np.arange(tokens), routed] = 1.0
    probs = np.tile(np.asarray(probabilities, dtype=float), (tokens, 1))
    f = mask.mean(axis=0)  # fraction of tokens dispatched to each expert
    p = probs.mean(axis=0)  # router probability each expert receives, on average
    return float(alpha * experts * np.dot(f, p))
