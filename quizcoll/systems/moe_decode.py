"""Which experts a decode batch touches, and what an MoE decode step reads.

A decode step of ``batch`` tokens routes each token to ``top_k`` of ``experts`` experts in
every MoE layer. Only the experts some token picked are read from memory, so a small batch
reads a fraction of the weights and a large one nearly all of them.

:func:`touched_distribution` computes the exact distribution of the number of distinct
experts touched by a dynamic programme over the tokens, one at a time: with ``j`` experts
already touched, a token's ``k`` distinct picks (uniform, as a balanced router's long-run
average) contain ``i`` new ones with the hypergeometric probability
C(E − j, i)·C(j, k − i) / C(E, k). No closed form is used, so a card's closed form
(linearity of expectation) is an independent check of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from quizcoll.systems.errors import SystemsInputError, at_least, exact

MAX_EXPERTS = 1024
MAX_BATCH = 1024


def touched_distribution(experts: int, top_k: int, batch: int) -> tuple[float, ...]:
    """P(exactly j distinct experts touched), j = 0 … experts, after ``batch`` tokens."""
    at_least("experts", experts, 1)
    at_least("top_k", top_k, 1)
    at_least("batch", batch, 1)
    if experts > MAX_EXPERTS:
        raise SystemsInputError(f"experts must be at most {MAX_EXPERTS:,}, got {experts:,}")
    if batch > MAX_BATCH:
        raise SystemsInputError(f"batch must be at most {MAX_BATCH:,}, got {batch:,}")
    if top_k > experts:
        raise SystemsInputError(f"top_k ({top_k}) cannot exceed the experts ({experts})")
    total = comb(experts, top_k)
    # moves[j]: (new experts i, probability) for a token when j experts are already touched
    moves = [
        [
            (i, comb(experts - j, i) * comb(j, top_k - i) / total)
            for i in range(min(top_k, experts - j) + 1)
            if comb(j, top_k - i)
        ]
        for j in range(experts + 1)
    ]
    p = [0.0] * (experts + 1)
    p[0] = 1.0
    for _ in range(batch):
        nxt = [0.0] * (experts + 1)
        for j, pj in enumerate(p):
            if pj > 0.0:
                for i, q in moves[j]:
                    nxt[j + i] += pj * q
        p = nxt
    return tuple(p)


@dataclass(frozen=True)
class MoeDecode:
    expected_touched: float  # distinct experts per layer a step reads, on average
    touched_fraction: float  # expected_touched / experts
    all_touched_probability: float  # P(every expert is read)
    bytes_read: float  # shared weights + the touched experts' share of the expert weights


def experts_touched(
    experts: int, top_k: int, batch: int, expert_bytes: float = 0.0, shared_bytes: float = 0.0
) -> MoeDecode:
    """The expected number of distinct experts a decode batch reads per MoE layer, and the
    weight bytes a step reads: ``shared_bytes`` always, ``expert_bytes`` (all experts
    together) in the touched share."""
    if expert_bytes < 0 or shared_bytes < 0:
        raise SystemsInputError("expert_bytes and shared_bytes must be at least 0")
    dist = touched_distribution(experts, top_k, batch)
    mean = sum(j * pj for j, pj in enumerate(dist))
    share = mean / experts
    return MoeDecode(exact(mean), exact(share), dist[experts], shared_bytes + share * expert_bytes)
