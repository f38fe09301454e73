"""Ring collectives stepped chunk by chunk: the bytes each rank sends, found by running the
schedule rather than by its (n − 1)/n closed form.

A buffer of ``elements`` values is cut into one chunk per rank (sizes differ by at most one
value). A reduce-scatter passes partial sums around the ring for n − 1 steps, rank r
sending the chunk it has just accumulated to rank r + 1; every step is checked: the chunk a
rank receives must not already hold the sender's contributions, and at the end each rank
must hold one chunk summed over all n ranks. An all-gather circulates the finished chunks
for n − 1 more steps until every rank holds every chunk. An all-reduce is the two in a row.

Used by the other ``par_*`` witnesses for every collective they issue.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

MAX_RING = 1024  # the schedule keeps n × n chunk records


@dataclass(frozen=True)
class RingTraffic:
    """What one ring collective made each rank send, in values (not bytes)."""

    sent: tuple[int, ...]  # per rank
    steps: int

    @property
    def max_sent(self) -> int:
        return max(self.sent)


def _chunks(elements: int, n: int) -> list[int]:
    base, extra = divmod(elements, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _check(elements: int, n: int) -> None:
    if n < 1 or n > MAX_RING:
        raise ValueError(f"a ring has 1 to {MAX_RING} ranks, got {n}")
    if elements < 0:
        raise ValueError(f"a buffer has a non-negative number of values, got {elements}")


@lru_cache(maxsize=256)
def reduce_scatter(elements: int, n: int) -> RingTraffic:
    """Step a ring reduce-scatter of ``elements`` values over ``n`` ranks."""
    _check(elements, n)
    sizes = _chunks(elements, n)
    everyone = (1 << n) - 1
    # held[r][c]: bit mask of the ranks whose contribution rank r holds for chunk c
    held = [[1 << r for _ in range(n)] for r in range(n)]
    sent = [0] * n
    for step in range(n - 1):
        moves = []
        for r in range(n):
            c = (r - step) % n
            moves.append((r, (r + 1) % n, c, held[r][c]))
        for src, dst, c, mask in moves:
            if held[dst][c] & mask:
                raise AssertionError("a contribution would be summed twice")  # a schedule bug
            held[dst][c] |= mask
            sent[src] += sizes[c]
    for r in range(n):
        if held[r][(r + 1) % n] != everyone:
            raise AssertionError("a rank ended without its fully reduced chunk")
    return RingTraffic(tuple(sent), n - 1)


@lru_cache(maxsize=256)
def all_gather(elements: int, n: int) -> RingTraffic:
    """Step a ring all-gather: rank r starts with chunk r of the ``elements``-value result."""
    _check(elements, n)
    sizes = _chunks(elements, n)
    has = [{r} for r in range(n)]
    sent = [0] * n
    for step in range(n - 1):
        moves = [(r, (r + 1) % n, (r - step) % n) for r in range(n)]
        for src, dst, c in moves:
            if c not in has[src] or c in has[dst]:
                raise AssertionError("a chunk was sent that is missing or already there")
            has[dst].add(c)
            sent[src] += sizes[c]
    if any(len(h) != n for h in has):
        raise AssertionError("a rank ended without every chunk")
    return RingTraffic(tuple(sent), n - 1)


def all_reduce(elements: int, n: int) -> RingTraffic:
    """A reduce-scatter followed by an all-gather, both stepped."""
    rs, ag = reduce_scatter(elements, n), all_gather(elements, n)
    return RingTraffic(
        tuple(a + b for a, b in zip(rs.sent, ag.sent, strict=True)), rs.steps + ag.steps
    )
