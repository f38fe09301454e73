"""Pipeline-parallel schedules, simulated op by op: the bubble, in-flight activations, choosing m.

Each of p GPUs (stages) runs its operations in the order its schedule prescribes; an
operation starts when the GPU is free and its inputs exist (point-to-point transfers are
taken as instantaneous, the idealisation the papers use). The bubble is what the slowest
GPU's makespan adds to its busy time. Time is exact (integer ticks), so the closed forms
below hold to the last bit and cards can check them as independent claims:

- GPipe (all forwards, then all backwards) and 1F1B (PipeDream-Flush: p − s − 1 warm-up
  forwards on stage s, then one forward / one backward, then the cool-down): the bubble is
  (p − 1)(t_f + t_b), so its share of the ideal time m(t_f + t_b) is (p − 1)/m and its share
  of the whole iteration is (p − 1)/(m + p − 1) (Narayanan et al., "Efficient Large-Scale
  Language Model Training on GPU Clusters Using Megatron-LM", SC 2021, §2.2.1).
- Interleaved 1F1B (v model chunks per GPU, Megatron-LM's order: (p − s − 1)·2 + (v − 1)·p
  warm-up chunk-forwards; m must be a multiple of p): the bubble shrinks to
  (p − 1)(t_f + t_b)/v, i.e. (p − 1)/(v·m) of the ideal time (§2.2.2) and
  (p − 1)/(v·m + p − 1) of the iteration; a micro-batch crosses v·p − 1 stage boundaries
  instead of p − 1 (the paper's "communication increases by v").
- In flight: GPipe keeps all m micro-batches' activations on every stage; 1F1B keeps at most
  p on the first stage ("activations stashed for p or fewer micro-batches"); interleaved keeps
  min(v·p + p − 1, v·m) chunk-micro-batches on the first stage, i.e. p + (p − 1)/v micro-batches'
  worth of the stage's layers.
- ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024): the backward splits into
  the input-gradient pass B (t_b) and the weight-gradient pass W (t_w); stage s runs W of
  micro-batch i right after B of micro-batch i + s. Bubble (p − 1)(t_f + t_b − t_w) against
  1F1B's (p − 1)(t_f + t_b + t_w) (their Table 2): a third when t_f = t_b = t_w, at the same
  peak of p micro-batches on the first stage. The closed form needs m ≥ p and
  t_w ≤ min(t_f, t_b): with fewer micro-batches, or a longer W, there is less to fill with.

``t_weight`` is part of the backward pass in every schedule but ZB-H1, which runs it apart.
"""

from __future__ import annotations

import enum
import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

from quizcoll.systems.errors import SystemsInputError, at_least, positive

MAX_STAGES = 64
MAX_MICRO_BATCHES = 1024
MAX_VIRTUAL_STAGES = 16
MAX_OPS = 2**16  # keeps one simulation near a tenth of a second
_TIME_DENOMINATOR = 1000  # durations are read to 1/1000 of a unit


class Schedule(enum.Enum):
    GPIPE = "gpipe"
    ONE_F_ONE_B = "1f1b"
    INTERLEAVED = "interleaved"
    ZB_H1 = "zb-h1"


SCHEDULES: tuple[str, ...] = tuple(s.value for s in Schedule)


@dataclass(frozen=True)
class Op:
    """One forward (F), backward (B) or weight-gradient (W) pass of a chunk on a stage."""

    kind: str
    stage: int
    chunk: int
    micro_batch: int
    start: float
    end: float


@dataclass(frozen=True)
class PipelineRun:
    """A simulated iteration: makespan, busy time, per-stage peak activations, the ops."""

    schedule: Schedule
    stages: int
    micro_batches: int
    virtual_stages: int
    makespan: float
    busy_time: float  # per stage: m (t_f + t_b + t_w)
    peak_in_flight: tuple[int, ...]  # chunk-micro-batches whose activations a stage holds
    boundary_crossings: int  # stage-to-stage sends of one micro-batch in the forward pass
    ops: tuple[Op, ...]  # empty unless asked for

    @property
    def bubble_time(self) -> float:
        return self.makespan - self.busy_time

    @property
    def bubble_over_total(self) -> float:
        """The share of the iteration a GPU sits idle."""
        return self.bubble_time / self.makespan

    @property
    def bubble_over_ideal(self) -> float:
        """Bubble time over the ideal (busy) time: the papers' "bubble time fraction"."""
        return self.bubble_time / self.busy_time

    @property
    def first_stage_activation_units(self) -> float:
        """The first stage's peak, in micro-batches' worth of its layers (a chunk is 1/v)."""
        return self.peak_in_flight[0] / self.virtual_stages


_Key = tuple[str, int, int]  # (kind, virtual stage, micro-batch)


def _orders(schedule: Schedule, p: int, m: int, v: int) -> list[list[_Key]]:
    """Each stage's operations in the order its schedule runs them."""
    orders: list[list[_Key]] = []
    for s in range(p):
        if schedule is Schedule.GPIPE:
            order = [("F", s, i) for i in range(m)] + [("B", s, i) for i in range(m)]
        elif schedule is Schedule.INTERLEAVED:
            order = _interleaved_order(s, p, m, v)
        else:
            order = _one_f_one_b_order(s, p, m, split_weight=schedule is Schedule.ZB_H1)
        orders.append(order)
    return orders


def _one_f_one_b_order(s: int, p: int, m: int, *, split_weight: bool) -> list[_Key]:
    warmup = min(p - s - 1, m)
    order: list[_Key] = [("F", s, i) for i in range(warmup)]
    weights_done: set[int] = set()

    def backward(i: int) -> None:
        order.append(("B", s, i))
        if split_weight and i - s >= 0:  # ZB-H1: W of micro-batch i − s follows B of i
            order.append(("W", s, i - s))
            weights_done.add(i - s)

    for i in range(m - warmup):
        order.append(("F", s, warmup + i))
        backward(i)
    for i in range(m - warmup, m):
        backward(i)
    if split_weight:
        order += [("W", s, i) for i in range(m) if i not in weights_done]
    return order


def _interleaved_order(s: int, p: int, m: int, v: int) -> list[_Key]:
    """Megatron-LM's interleaved 1F1B order for stage s (model chunk c holds virtual stage c·p + s)."""
    total = m * v

    def chunk(k: int, forward: bool) -> int:
        c = (k % (p * v)) // p
        return c if forward else v - 1 - c

    def micro_batch(k: int) -> int:
        return (k // (p * v)) * p + k % p

    forwards = [("F", chunk(k, True) * p + s, micro_batch(k)) for k in range(total)]
    backwards = [("B", chunk(k, False) * p + s, micro_batch(k)) for k in range(total)]
    warmup = min((p - s - 1) * 2 + (v - 1) * p, total)
    order = forwards[:warmup]
    steady = total - warmup
    for k in range(steady):
        order += [forwards[warmup + k], backwards[k]]
    return order + backwards[steady:]


def _ticks(values: tuple[float, ...], v: int) -> tuple[list[int], int]:
    """Durations per chunk as integers, and the ticks in one unit of time."""
    fractions = [Fraction(x).limit_denominator(_TIME_DENOMINATOR) / v for x in values]
    scale = math.lcm(*(f.denominator for f in fractions))
    return [int(f * scale) for f in fractions], scale


def validate(schedule: Schedule, stages: int, micro_batches: int, virtual_stages: int) -> None:
    """Refuse shapes the schedule cannot run (or that would take too long to simulate)."""
    at_least("stages", stages, 1)
    at_least("micro_batches", micro_batches, 1)
    at_least("virtual_stages", virtual_stages, 1)
    if stages > MAX_STAGES or micro_batches > MAX_MICRO_BATCHES:
        raise SystemsInputError(
            f"at most {MAX_STAGES} stages and {MAX_MICRO_BATCHES} micro-batches, "
            f"got {stages} and {micro_batches}"
        )
    if virtual_stages > MAX_VIRTUAL_STAGES:
        raise SystemsInputError(
            f"virtual_stages must be at most {MAX_VIRTUAL_STAGES}, got {virtual_stages}"
        )
    if schedule is Schedule.INTERLEAVED:
        if virtual_stages < 2:
            raise SystemsInputError("the interleaved schedule needs virtual_stages of at least 2")
        if micro_batches % stages:
            raise SystemsInputError(
                f"the interleaved schedule needs micro_batches a multiple of stages "
                f"({micro_batches} is not a multiple of {stages})"
            )
    elif virtual_stages != 1:
        raise SystemsInputError(
            f"virtual_stages > 1 is only for the interleaved schedule, not {schedule.value}"
        )
    ops = stages * micro_batches * virtual_stages * (3 if schedule is Schedule.ZB_H1 else 2)
    if ops > MAX_OPS:
        raise SystemsInputError(
            f"{ops:,} operations is too large a schedule to simulate (at most {MAX_OPS:,})"
        )


def simulate(
    schedule: Schedule,
    stages: int,
    micro_batches: int,
    virtual_stages: int = 1,
    t_forward: float = 1.0,
    t_backward: float = 2.0,
    t_weight: float = 0.0,
    *,
    keep_ops: bool = False,
) -> PipelineRun:
    """Run one training iteration of ``schedule`` and time every operation.

    ``keep_ops`` keeps every operation with its start and end (the trace a timeline draws).
    """
    validate(schedule, stages, micro_batches, virtual_stages)
    positive("t_forward", t_forward)
    positive("t_backward", t_backward)
    at_least("t_weight", t_weight, 0)
    p, m, v = stages, micro_batches, virtual_stages
    split = schedule is Schedule.ZB_H1
    backward = t_backward if split else t_backward + t_weight
    (tf, tb, tw), scale = _ticks((t_forward, backward, t_weight if split else 0.0), v)
    duration = {"F": tf, "B": tb, "W": tw}
    last = p * v - 1
    orders = _orders(schedule, p, m, v)
    end: dict[_Key, int] = {}
    ops: list[Op] = []
    cursor = [0] * p
    clock = [0] * p
    held = [0] * p
    peak = [0] * p
    # Event-driven: a stage blocked on another stage's op is woken when that op ends.
    waiting: dict[_Key, list[int]] = {}
    work = deque(range(p))
    while work:
        s = work.popleft()
        order = orders[s]
        while cursor[s] < len(order):
            key = order[cursor[s]]
            kind, vs, mb = key
            start = clock[s]
            missing = None
            for d in _dependencies(kind, vs, mb, last):  # the first missing one is waited on
                done = end.get(d)
                if done is None:
                    missing = d
                    break
                if done > start:
                    start = done
            if missing is not None:
                waiting.setdefault(missing, []).append(s)
                break
            clock[s] = start + duration[kind]
            end[key] = clock[s]
            if keep_ops:
                ops.append(Op(kind, s, vs // p, mb, start / scale, clock[s] / scale))
            if kind == "F":
                held[s] += 1
                if held[s] > peak[s]:
                    peak[s] = held[s]
            elif kind == "W" or not split:  # activations are freed by the last pass
                held[s] -= 1
            cursor[s] += 1
            woken = waiting.pop(key, None)
            if woken:
                work.extend(woken)
    if any(cursor[s] < len(orders[s]) for s in range(p)):  # pragma: no cover - orders are valid
        raise SystemsInputError(f"the {schedule.value} order deadlocks for p={p}, m={m}, v={v}")
    return _run(schedule, p, m, v, clock, scale, m * v * (tf + tb + tw), peak, ops)


def _dependencies(kind: str, vs: int, mb: int, last: int) -> tuple[_Key, ...]:
    """What an operation waits for: a forward the previous virtual stage's forward, a
    backward its own forward and the next virtual stage's backward, a weight pass its
    backward."""
    if kind == "F":
        return (("F", vs - 1, mb),) if vs > 0 else ()
    if kind == "B":
        return (("F", vs, mb), ("B", vs + 1, mb)) if vs < last else (("F", vs, mb),)
    return (("B", vs, mb),)


def _run(
    schedule: Schedule,
    p: int,
    m: int,
    v: int,
    clock: list[int],
    scale: float,
    busy: float,
    peak: list[int],
    ops: list[Op],
) -> PipelineRun:
    return PipelineRun(
        schedule=schedule,
        stages=p,
        micro_batches=m,
        virtual_stages=v,
        makespan=max(clock) / scale,
        busy_time=busy / scale,
        peak_in_flight=tuple(peak),
        boundary_crossings=p * v - 1,
        ops=tuple(ops),
    )


@dataclass(frozen=True)
class MicroBatchChoice:
    """The fewest micro-batches whose bubble is at most a target share of the iteration."""

    micro_batches: int
    bubble_over_total: float  # simulated at that m
    target: float


def micro_batches_for_bubble(
    stages: int, target: float, virtual_stages: int = 1, schedule: Schedule | None = None
) -> MicroBatchChoice:
    """Smallest m with (p − 1)/(v·m + p − 1) ≤ target (a multiple of p when interleaved).

    Solved exactly in rationals, m ≥ (p − 1)(1 − target)/(v · target), then the bubble at
    that m is simulated so the answer carries its own check.
    """
    at_least("stages", stages, 1)
    if not 0 < target < 1:
        raise SystemsInputError(f"target must be in (0, 1), got {target:g}")
    schedule = schedule or (Schedule.INTERLEAVED if virtual_stages > 1 else Schedule.ONE_F_ONE_B)
    f = Fraction(target).limit_denominator(10**6)
    m = max(1, math.ceil((stages - 1) * (1 - f) / (virtual_stages * f)))
    if schedule is Schedule.INTERLEAVED:
        m = stages * math.ceil(m / stages)
    run = simulate(schedule, stages, m, virtual_stages)
    return MicroBatchChoice(m, run.bubble_over_total, target)
