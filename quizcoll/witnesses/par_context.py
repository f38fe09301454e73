"""Context-parallel attention over P GPUs, one GPU's sends enumerated block by block.

- Ulysses (Jacobs et al. 2023, §3): head h of a tensor belongs to GPU h·P/heads after the
  all-to-all. Before attention GPU 0 sends, for every Q head (and every K and V head) it
  does not own, that head's slice of its N/P local tokens; after attention it sends, for
  every output head it owns, the tokens of the other GPUs. Heads that do not split evenly
  are refused (Ulysses gives each GPU whole heads).
- Ring attention (Liu et al. 2023): every GPU starts with its own K, V block; at each hop it
  forwards the block it holds to the next GPU, until every GPU has seen every block. The
  hops are stepped and GPU 0's sends counted.
"""

from __future__ import annotations

MAX_CP = 4096


def _check(seq_len: int, cp: int, **counts: int) -> int:
    for name, v in (("seq_len", seq_len), ("cp", cp), *counts.items()):
        if v < 1:
            raise ValueError(f"{name} must be at least 1, got {v}")
    if cp > MAX_CP:
        raise ValueError(f"cp must be at most {MAX_CP}, got {cp}")
    if seq_len % cp:
        raise ValueError(f"seq_len {seq_len} does not split over {cp} GPUs")
    return seq_len // cp


def _owner(head: int, heads: int, cp: int) -> int:
    if heads % cp:
        raise ValueError(f"{heads} heads do not split over {cp} GPUs")
    return head // (heads // cp)


def ulysses_forward_sent(
    seq_len: int, cp: int, heads: int, kv_heads: int, head_dim: int, value_bytes: float
) -> float:
    """Bytes GPU 0 sends in one layer's forward all-to-alls (Q, K, V in; output back)."""
    local = _check(seq_len, cp, heads=heads, kv_heads=kv_heads, head_dim=head_dim)
    me = 0
    values = 0
    for count in (heads, kv_heads, kv_heads):  # Q, K, V
        for head in range(count):
            if _owner(head, count, cp) != me:  # my tokens of someone else's head leave
                values += local * head_dim
    for head in range(heads):  # the output, head-split, goes back to the sequence split
        if _owner(head, heads, cp) == me:
            for gpu in range(cp):
                if gpu != me:
                    values += local * head_dim
    return values * value_bytes


def ring_forward_sent(
    seq_len: int, cp: int, kv_heads: int, head_dim: int, value_bytes: float
) -> tuple[float, int]:
    """(bytes GPU 0 sends, hops) passing K and V blocks until every GPU has seen them all."""
    local = _check(seq_len, cp, kv_heads=kv_heads, head_dim=head_dim)
    block = 2 * local * kv_heads * head_dim  # its tokens' keys and values
    holding = list(range(cp))  # the block each GPU holds now
    seen = [{g} for g in range(cp)]
    sent = [0] * cp
    hops = 0
    while any(len(s) < cp for s in seen):
        passed = [holding[(g - 1) % cp] for g in range(cp)]  # each receives from g − 1
        for g in range(cp):
            sent[g] += block
        holding = passed
        for g in range(cp):
            seen[g].add(holding[g])
        hops += 1
    return sent[0] * value_bytes, hops
