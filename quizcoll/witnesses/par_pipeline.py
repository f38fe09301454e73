"""A pipeline iteration run op by op on a clock, and the fewest micro-batches found by search.

:func:`simulate` lays out each device's order of forward and backward chunks (1F1B; or
Megatron's interleaved 1F1B with v model chunks per device: micro-batches taken in groups
of p per chunk, warm-up of 2(p − d − 1) + (v − 1)p forwards on device d) and runs it: an
op starts when its device is free and the op it depends on has finished (the same
micro-batch's forward on the previous virtual stage, its backward on the next one). The
bubble is the share of device-time left idle until the last op ends.

:func:`fewest_micro_batches` bisects, over m (multiples of p for the interleaved
schedule), for the smallest m whose simulated bubble is at most the target.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_STAGES = 64
MAX_MICRO_BATCHES = 1 << 12
_EPS = 1e-12  # a bubble exactly at the target counts as meeting it


@dataclass(frozen=True)
class Iteration:
    makespan: float
    busy_per_device: float
    devices: int

    @property
    def bubble_over_total(self) -> float:
        return 1 - self.busy_per_device / self.makespan


def _orders(p: int, m: int, v: int) -> list[list[tuple[str, int, int]]]:
    """Each device's ops as (kind, chunk, micro-batch)."""
    total = m * v

    def chunk(k: int, forward: bool) -> int:
        c = (k % (p * v)) // p
        return c if forward else v - 1 - c

    def micro_batch(k: int) -> int:
        return (k // (p * v)) * p + k % p

    orders = []
    for d in range(p):
        warm = min(total, (p - d - 1) * 2 + (v - 1) * p) if v > 1 else min(total, p - d - 1)
        ops: list[tuple[str, int, int]] = []
        f = b = 0
        for _ in range(warm):
            ops.append(("F", chunk(f, True), micro_batch(f)))
            f += 1
        while f < total:
            ops.append(("F", chunk(f, True), micro_batch(f)))
            f += 1
            ops.append(("B", chunk(b, False), micro_batch(b)))
            b += 1
        while b < total:
            ops.append(("B", chunk(b, False), micro_batch(b)))
            b += 1
        orders.append(ops)
    return orders


def simulate(
    stages: int,
    micro_batches: int,
    virtual_stages: int = 1,
    t_forward: float = 1.0,
    t_backward: float = 2.0,
) -> Iteration:
    """Run one iteration and time it."""
    p, m, v = stages, micro_batches, virtual_stages
    if not 1 <= p <= MAX_STAGES or not 1 <= m <= MAX_MICRO_BATCHES or v < 1:
        raise ValueError(f"need 1 ≤ stages ≤ {MAX_STAGES}, 1 ≤ micro_batches ≤ {MAX_MICRO_BATCHES}")
    if v > 1 and m % p:
        raise ValueError(f"the interleaved schedule needs micro_batches a multiple of {p}")
    if t_forward <= 0 or t_backward <= 0:
        raise ValueError("op times must be positive")
    orders = _orders(p, m, v)
    last = p * v - 1
    done: dict[tuple[str, int, int], float] = {}  # (kind, virtual stage, mb) -> finish
    free = [0.0] * p
    nxt = [0] * p
    left = sum(len(o) for o in orders)
    while left:
        progressed = False
        for d in range(p):
            while nxt[d] < len(orders[d]):
                kind, c, mb = orders[d][nxt[d]]
                vs = c * p + d
                if kind == "F":
                    dep = ("F", vs - 1, mb) if vs > 0 else None
                else:
                    dep = ("B", vs + 1, mb) if vs < last else ("F", last, mb)
                if dep is not None and dep not in done:
                    break
                start = max(free[d], done[dep] if dep is not None else 0.0)
                free[d] = start + (t_forward if kind == "F" else t_backward) / v
                done[(kind, vs, mb)] = free[d]
                nxt[d] += 1
                left -= 1
                progressed = True
        if not progressed:
            raise AssertionError("the schedule deadlocked")
    return Iteration(max(free), m * (t_forward + t_backward), p)


def fewest_micro_batches(stages: int, target: float, virtual_stages: int = 1) -> int:
    """The smallest m (a multiple of p when interleaved) with a simulated bubble ≤ target."""
    if not 0 < target < 1:
        raise ValueError(f"target must be between 0 and 1, got {target}")
    step = stages if virtual_stages > 1 else 1

    def meets(j: int) -> bool:
        return simulate(stages, j * step, virtual_stages).bubble_over_total <= target + _EPS

    hi = 1
    while not meets(hi):
        hi *= 2
        if hi * step > MAX_MICRO_BATCHES:
            raise ValueError(f"no m up to {MAX_MICRO_BATCHES} meets a bubble of {target}")
    lo = hi // 2  # meets(lo) is false (or lo is 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if meets(mid):
            hi = mid
        else:
            lo = mid
    return hi * step
