"""The custom all-reduces of tensor-parallel inference, one-shot and two-shot, simulated.

Inside an NVLink domain every GPU can read its peers' buffers directly (CUDA IPC). vLLM's
and TensorRT-LLM's custom all-reduce kernels use that in two ways:

- **one-shot**: every rank reads the whole buffer of every peer and sums locally; one
  synchronisation, but (N − 1)·S bytes arrive at each rank;
- **two-shot**: a reduce-scatter (rank r reads slice r of every peer and sums it) then an
  all-gather (rank r reads every peer's reduced slice); two synchronisations, 2(N − 1)/N·S.

:func:`simulate` moves slices between ranks step by step, each slice carrying the set of
ranks whose data it has summed, checks that every rank ends with the full sum, and times
each step as α (one synchronisation) plus the busiest rank's incoming bytes over the
per-GPU bandwidth. :func:`crossover` bisects the simulated times.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, positive

MAX_RANKS = 72  # an NVL72 rack is the largest NVLink domain


class Shot(enum.Enum):
    ONE = "one-shot"
    TWO = "two-shot"


SHOTS: tuple[str, ...] = tuple(s.value for s in Shot)


@dataclass(frozen=True)
class Run:
    shot: Shot
    ranks: int
    steps: int
    bytes_in: float  # bytes arriving at the busiest rank, all steps
    time_s: float


def _messages(shot: Shot, n: int) -> list[list[tuple[int, int, int, str]]]:
    """Per step, the (src, dst, slice, kind) reads; kind 'sum' reduces, 'copy' replaces."""
    if shot is Shot.ONE:
        return [[(s, d, i, "sum") for d in range(n) for s in range(n) if s != d for i in range(n)]]
    scatter = [(s, d, d, "sum") for d in range(n) for s in range(n) if s != d]
    gather = [(s, d, s, "copy") for d in range(n) for s in range(n) if s != d]
    return [scatter, gather]


@functools.lru_cache(maxsize=256)
def _structure(shot: Shot, n: int) -> tuple[int, ...]:
    """Per step, the slices arriving at the busiest rank, from moving every slice once;
    refuses a schedule that leaves any rank without the full sum. The movement does not
    depend on the buffer size, so it is replayed once per (schedule, ranks)."""
    held = [[frozenset({r}) for _ in range(n)] for r in range(n)]
    per_step: list[int] = []
    for step in _messages(shot, n):
        snapshot = [row[:] for row in held]  # reads see the buffers as the step began
        arrived = [0] * n
        for src, dst, i, kind in step:
            if kind == "sum":
                held[dst][i] = held[dst][i] | snapshot[src][i]
            else:
                held[dst][i] = snapshot[src][i]
            arrived[dst] += 1
        per_step.append(max(arrived))
    everyone = frozenset(range(n))
    if any(s != everyone for row in held for s in row):
        raise SystemsInputError(f"{shot.value} left a rank without the full sum")
    return tuple(per_step)


def simulate(shot: Shot, ranks: int, size: float, latency: float, bandwidth: float) -> Run:
    """All-reduce ``size`` bytes over ``ranks`` GPUs; slices of size/ranks move as the
    schedule says; each step costs α plus the busiest rank's incoming bytes over β."""
    at_least("ranks", ranks, 2)
    if ranks > MAX_RANKS:
        raise SystemsInputError(f"ranks must be at most {MAX_RANKS}, got {ranks}")
    positive("size", size)
    at_least("latency", latency, 0)
    positive("bandwidth", bandwidth)
    piece = size / ranks
    steps = _structure(shot, ranks)
    time = sum(latency + slices * piece / bandwidth for slices in steps)
    # Every rank receives alike in both schedules, so the busiest rank's total is the sum.
    return Run(shot, ranks, len(steps), sum(steps) * piece, time)


def crossover(ranks: int, latency: float, bandwidth: float) -> float:
    """The size above which two-shot is faster, by bisection on the simulated times (0 when
    two-shot never loses: two ranks make both schedules move the same bytes)."""

    def gap(size: float) -> float:
        one = simulate(Shot.ONE, ranks, size, latency, bandwidth).time_s
        two = simulate(Shot.TWO, ranks, size, latency, bandwidth).time_s
        return two - one

    lo, hi = 1.0, 1.0
    if gap(lo) <= 0:
        return 0.0
    while gap(hi) > 0:
        hi *= 2
        if hi > 2.0**60:
            return 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if gap(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-9 * hi:
            break
    return hi
