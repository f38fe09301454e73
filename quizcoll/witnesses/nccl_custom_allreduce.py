"""Tensor-parallel custom all-reduce (one-shot, two-shot) by enumerating who reads what.

vLLM's and TensorRT-LLM's custom all-reduces run inside one NVLink domain in synchronised
phases: every GPU waits at a barrier (α), then pulls data from its peers. This module lists
every transfer of every phase (source, destination, byte range), checks that the phases do
reduce (each GPU ends holding every byte summed over every rank), and times each phase as
α plus the most bytes any GPU pulls in over its inbound bandwidth.

- one-shot: after one barrier, every GPU reads every peer's whole buffer and sums locally;
- two-shot: the buffer is cut into one slice per GPU; after a barrier each GPU reads its own
  slice from every peer and sums it (reduce-scatter), after a second barrier every GPU reads
  every peer's reduced slice (all-gather).

``min_ranks`` searches, GPU count by GPU count, the fewest GPUs on which two-shot is faster.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

SHOTS = ("one-shot", "two-shot")
MAX_RANKS = 512


@dataclass(frozen=True)
class Transfer:
    src: int
    dst: int
    lo: int  # byte range [lo, hi) of the buffer
    hi: int


@dataclass(frozen=True)
class Shot:
    phases: int
    bytes_in: int  # bytes the busiest GPU pulls in, all phases
    time_s: float


def _slices(size: int, ranks: int) -> list[tuple[int, int]]:
    cuts = [size * i // ranks for i in range(ranks + 1)]
    return list(itertools.pairwise(cuts))


def schedule(shot: str, ranks: int, size: int) -> list[list[Transfer]]:
    """Every phase's transfers."""
    if shot not in SHOTS:
        raise ValueError(f"shot must be one of {', '.join(SHOTS)}, got {shot!r}")
    if not 2 <= ranks <= MAX_RANKS:
        raise ValueError(f"ranks must be in 2..{MAX_RANKS}, got {ranks}")
    if size < 1:
        raise ValueError("size must be at least one byte")
    peers = [(s, d) for d in range(ranks) for s in range(ranks) if s != d]
    if shot == "one-shot":
        return [[Transfer(s, d, 0, size) for s, d in peers]]
    sl = _slices(size, ranks)
    scatter = [Transfer(s, d, *sl[d]) for s, d in peers]  # d sums its own slice
    gather = [Transfer(s, d, *sl[s]) for s, d in peers]  # d fetches s's reduced slice
    return [scatter, gather]


def _check_reduces(phases: list[list[Transfer]], ranks: int, size: int) -> None:
    """Each GPU must end with every byte range summed over all ranks (a wrong schedule raises)."""
    cuts = sorted({0, size, *(x for p in phases for t in p for x in (t.lo, t.hi))})
    pieces = list(itertools.pairwise(cuts))
    # have[g][piece] = the set of ranks whose contribution GPU g holds for that piece
    have = [[{g} for _ in pieces] for g in range(ranks)]
    for phase in phases:
        before = [[set(x) for x in row] for row in have]
        for t in phase:
            for i, (lo, hi) in enumerate(pieces):
                if t.lo <= lo and hi <= t.hi:
                    have[t.dst][i] |= before[t.src][i]
    full = set(range(ranks))
    if any(h != full for row in have for h in row):
        raise ValueError("the schedule does not all-reduce the buffer")


def run(
    shot: str, ranks: int, size: int, latency: float, bandwidth: float, *, check: bool = True
) -> Shot:
    """Time the schedule: per phase, α plus the busiest GPU's inbound bytes ÷ bandwidth
    (``check``: first prove that the phases all-reduce, cubic in the GPUs)."""
    if latency < 0 or bandwidth <= 0:
        raise ValueError("latency must be ≥ 0 and bandwidth > 0")
    phases = schedule(shot, ranks, size)
    if check:
        _check_reduces(phases, ranks, size)
    time_s, total_in = 0.0, [0] * ranks
    for phase in phases:
        inbound = [0] * ranks
        for t in phase:
            inbound[t.dst] += t.hi - t.lo
        time_s += latency + max(inbound) / bandwidth
        total_in = [a + b for a, b in zip(total_in, inbound, strict=True)]
    return Shot(len(phases), max(total_in), time_s)


def min_ranks(size: int, latency: float, bandwidth: float, limit: int = MAX_RANKS) -> int:
    """The fewest GPUs (2 … ``limit``) on which two-shot is strictly faster than one-shot."""
    for n in range(2, limit + 1):
        two = run("two-shot", n, size, latency, bandwidth, check=n <= 8)
        one = run("one-shot", n, size, latency, bandwidth, check=n <= 8)
        if two.time_s < one.time_s:
            return n
    raise ValueError(f"one-shot stays faster up to {limit} GPUs")
