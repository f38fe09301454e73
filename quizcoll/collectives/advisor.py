"""Choosing an algorithm: the fastest one for a size, and the size where ring takes over.

Both evaluate the modelled time of the real schedules. For the crossover, each
algorithm's structure is laid out once and re-priced for each candidate size (its rounds
do not depend on the size, only its block sizes do). Sizes are searched in multiples of a
count every algorithm splits evenly, where each algorithm's time is affine in the size,
so the bisection finds the exact first multiple at which ring is faster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.collectives.api import plan
from quizcoll.collectives.cost import CostModel
from quizcoll.collectives.counting import step_times
from quizcoll.collectives.dtypes import get_dtype
from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.schedules import ALGORITHMS, check_algorithm
from quizcoll.collectives.schedules.layouts import block_count
from quizcoll.collectives.semantics import Collective, get_collective


def best_algorithm(
    collective: str | Collective,
    ranks: int,
    size_bytes: int,
    model: CostModel | None = None,
    *,
    dtype: str = "float32",
) -> tuple[str, dict[str, float]]:
    """The fastest algorithm for a per-rank buffer of ``size_bytes`` and every
    algorithm's modelled time (ties go to the default algorithm)."""
    kind = get_dtype(dtype)
    c = get_collective(collective)
    count = _count(size_bytes, kind.itemsize)
    model = model or CostModel()
    times = {
        name: plan(c, ranks, count, algorithm=name, dtype=kind).time(model)
        for name in ALGORITHMS[c]
        if c is not Collective.REDUCE_SCATTER or count % ranks == 0
    }
    if not times:
        raise CollectiveError(f"reduce_scatter needs a size that splits into {ranks} equal chunks")
    best = min(times, key=lambda name: times[name])
    return best, times


@dataclass(frozen=True)
class Crossover:
    """Where ring all-reduce overtakes ``other``: the smallest per-rank size found at which
    ring is strictly faster, with both times there and one step below."""

    ranks: int
    other: str
    size_bytes: int
    ring_time_s: float
    other_time_s: float
    below_size_bytes: int
    below_ring_time_s: float
    below_other_time_s: float


def crossover(
    ranks: int,
    other: str = "double_binary_tree",
    model: CostModel | None = None,
    *,
    dtype: str = "float32",
    max_bytes: int = 1 << 40,
) -> Crossover:
    """The all-reduce size where ring overtakes ``other`` (double binary tree, recursive
    doubling, …); a clear error if ring wins at every size or never does."""
    other = check_algorithm(Collective.ALL_REDUCE, other)
    if other == "ring":
        raise CollectiveError("compare ring with another algorithm, not with itself")
    kind = get_dtype(dtype)
    model = model or CostModel()
    # one plan per algorithm at a unit size every algorithm splits evenly, re-priced at
    # multiples k of it (the structure does not depend on the size)
    plan(Collective.ALL_REDUCE, ranks, 1, algorithm="ring", dtype=kind)  # checks ranks
    names = ("ring", other)
    quantum = math.lcm(*(block_count(Collective.ALL_REDUCE, name, ranks) for name in names))
    units = [plan(Collective.ALL_REDUCE, ranks, quantum, algorithm=a, dtype=kind) for a in names]

    def times(k: int) -> tuple[float, float]:
        ring, rival = (
            float(step_times(u.structure, u.elems, kind.itemsize, model, scale=k).sum())
            for u in units
        )
        return ring, rival

    hi = max(1, max_bytes // (quantum * kind.itemsize))
    ring_lo, other_lo = times(1)
    if ring_lo < other_lo:
        raise CollectiveError(
            f"ring is already faster than {other} at {quantum * kind.itemsize} bytes on "
            f"{ranks} ranks: there is no crossover to find"
        )
    ring_hi, other_hi = times(hi)
    if ring_hi >= other_hi:
        raise CollectiveError(
            f"ring never overtakes {other} on {ranks} ranks up to {max_bytes:,} bytes "
            f"under this cost model"
        )
    lo = 1  # ring not faster at lo, faster at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        r, o = times(mid)
        if r < o:
            hi = mid
        else:
            lo = mid
    ring_at, other_at = times(hi)
    ring_below, other_below = times(lo)
    unit = quantum * kind.itemsize
    return Crossover(ranks, other, hi * unit, ring_at, other_at, lo * unit, ring_below, other_below)


def _count(size_bytes: int, itemsize: int) -> int:
    if size_bytes < itemsize or size_bytes % itemsize:
        raise CollectiveError(
            f"size {size_bytes} bytes is not a positive multiple of the {itemsize}-byte element"
        )
    return size_bytes // itemsize
