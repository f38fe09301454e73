"""An MoE layer's expert buffers laid out and filled by a balanced top-k router.

Second method for the slot and assignment counts of ``moe.capacity``: :func:`fill` writes
every token's top-k choices into an explicit token-by-expert mask (token t takes the k
experts after the ones token t − 1 took, round the ring of experts: k distinct experts
each, the loads as even as whole tokens allow), counts the assignments as the mask's
ones, sizes one buffer per expert by :func:`quizcoll.witnesses.inf_moe.buffer_size` (a
search, no ceiling), allocates the buffers and counts their slots, then pours each
expert's column of the mask into its buffer and counts what overflows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from quizcoll.witnesses import inf_moe

# The mask is tokens × experts booleans: bounded so a card cannot ask for gigabytes.
MAX_CELLS = 1 << 26


@dataclass(frozen=True)
class Filled:
    assignments: int  # ones in the token-by-expert mask
    slots: int  # buffer entries allocated over all experts
    capacity: int  # one expert's buffer
    accepted: int  # assignments that found a slot
    dropped: int  # assignments past their expert's buffer
    busiest_load: int  # the most assignments any expert received


def fill(tokens: int, experts: int, top_k: int, capacity_factor: float) -> Filled:
    """Route ``tokens`` top-``top_k`` over ``experts`` as evenly as whole tokens allow, into
    buffers sized for ``capacity_factor`` times the even share."""
    for name, value in (("tokens", tokens), ("experts", experts), ("top_k", top_k)):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    if top_k > experts:
        raise ValueError(f"top_k: {top_k} distinct experts of {experts} cannot be chosen")
    if tokens * experts > MAX_CELLS:
        raise ValueError(f"tokens × experts: at most {MAX_CELLS:,} mask cells")
    mask = np.zeros((tokens, experts), dtype=bool)
    nxt = 0
    for t in range(tokens):
        for _ in range(top_k):
            mask[t, nxt] = True
            nxt = (nxt + 1) % experts
    assignments = int(mask.sum())
    capacity = inf_moe.buffer_size(tokens, experts, top_k, capacity_factor)
    buffers = [np.zeros(capacity, dtype=np.int64) for _ in range(experts)]
    accepted = dropped = 0
    for e, buffer in enumerate(buffers):
        used = 0
        for t in np.flatnonzero(mask[:, e]):  # tokens in arrival order
            if used < buffer.size:
                buffer[used] = t
                used += 1
                accepted += 1
            else:
                dropped += 1
    return Filled(
        assignments=assignments,
        slots=sum(b.size for b in buffers),
        capacity=capacity,
        accepted=accepted,
        dropped=dropped,
        busiest_load=int(mask.sum(axis=0).max()),
    )
