"""DualPipe run op by op on a clock: how long each device idles in one training step.

DeepSeek-V3 (§3.2.1, Figure 5) feeds micro-batches from both ends of a pipeline of PP
devices. Device r holds two stages: stage r of the micro-batches fed at device 0 (the
*down* direction) and stage PP − 1 − r of those fed at device PP − 1 (*up*). For device r,
with h = min(r, PP − 1 − r) and n = PP/2, the *near* direction is the one in which it is
stage h and the *far* one the other. Each device runs its ops in DualPipe's order (the eight
phases of ``DualPipe.step`` in deepseek-ai/DualPipe, ``dualpipe/dualpipe.py``):

1. 2(n − h − 1) forwards, near;
2. h + 1 times: a forward near, a forward far;
3. n − h − 1 times: a backward far computing input gradients only (its weight gradient W
   is deferred), one deferred W, a forward far;
4. m − PP + h + 1 times (m micro-batches per direction): forward near overlapped with
   backward far, then forward far overlapped with backward near;
5. n − h − 1 times: a full backward far, then forward far overlapped with backward near;
6. h + 1 times: a backward far, a backward near; the first h + 1 of these are full, the
   last h + 1 defer their W;
7. n − h − 1 times: one deferred W, a backward near deferring its W;
8. the h + 1 deferred W that remain.

An op starts when its device is free and its inputs have arrived (communication is taken
as hidden, as in the report's Table 2): a forward needs the same micro-batch's forward on
the previous stage of its direction, a backward the backward on the next stage (the last
stage's backward needs only its own forward). An overlapped pair needs both inputs and
lasts F&B. A device's idle time is the makespan minus the time it computes.

``split_middle`` runs the released code's refinement: on the two middle devices the first
pair of phase 4 runs as a forward then a full backward, not overlapped.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_STAGES = 128
MAX_MICRO_BATCHES = 1 << 13


@dataclass(frozen=True)
class DualPipeRun:
    makespan: float
    idle: tuple[float, ...]  # per device, in device order

    @property
    def bubble(self) -> float:
        """The idle time of the device that idles longest."""
        return max(self.idle)


# An op: ("F", dir), ("B", dir, defer_w), ("FB", forward_dir, backward_dir), ("W",)
_Op = tuple


def _device_ops(r: int, pp: int, m: int, split_middle: bool) -> list[_Op]:
    n, h = pp // 2, min(r, pp - 1 - r)
    near = 0 if r < n else 1
    far = 1 - near
    ops: list[_Op] = []
    ops += [("F", near)] * (2 * (n - h - 1))
    ops += [("F", near), ("F", far)] * (h + 1)
    ops += [("B", far, True), ("W",), ("F", far)] * (n - h - 1)
    for i in range(m - pp + h + 1):
        if i == 0 and split_middle and h == n - 1:
            ops += [("F", near), ("B", far, False)]
        else:
            ops.append(("FB", near, far))
        ops.append(("FB", far, near))
    ops += [("B", far, False), ("FB", far, near)] * (n - h - 1)
    tail = [("B", far), ("B", near)] * (h + 1)
    ops += [(k, d, i >= h + 1) for i, (k, d) in enumerate(tail)]
    ops += [("W",), ("B", near, True)] * (n - h - 1)
    ops += [("W",)] * (h + 1)
    return ops


def simulate(
    stages: int,
    micro_batches: int,
    t_forward: float,
    t_backward: float,
    t_weight: float,
    t_overlapped: float,
    split_middle: bool = False,
) -> DualPipeRun:
    """One DualPipe step over ``stages`` devices and ``micro_batches`` micro-batches (half
    fed at each end); F, the full backward B, its weight part W and an overlapped
    forward-and-backward pair F&B are times in any one unit."""
    pp, total = stages, micro_batches
    if pp < 2 or pp % 2 or pp > MAX_STAGES:
        raise ValueError(f"DualPipe needs an even number of stages in 2..{MAX_STAGES}")
    if total % 2 or total < 2 * pp or total > MAX_MICRO_BATCHES:
        raise ValueError(
            f"DualPipe needs an even number of micro-batches, at least 2 × stages "
            f"and at most {MAX_MICRO_BATCHES}"
        )
    if min(t_forward, t_overlapped) <= 0 or not 0 <= t_weight < t_backward:
        raise ValueError("times must be positive, with 0 ≤ W < B")
    m = total // 2
    ops = [_device_ops(r, pp, m, split_middle) for r in range(pp)]

    def stage(r: int, d: int) -> int:
        return r if d == 0 else pp - 1 - r

    fwd_done: dict[tuple[int, int, int], float] = {}  # (dir, stage, micro-batch) → end
    bwd_done: dict[tuple[int, int, int], float] = {}
    next_f = [[0, 0] for _ in range(pp)]  # the next micro-batch per device and direction
    next_b = [[0, 0] for _ in range(pp)]
    pos, free, busy, deferred = [0] * pp, [0.0] * pp, [0.0] * pp, [0] * pp

    def forward_input(r: int, d: int) -> float | None:
        s = stage(r, d)
        return 0.0 if s == 0 else fwd_done.get((d, s - 1, next_f[r][d]))

    def backward_input(r: int, d: int) -> float | None:
        s, j = stage(r, d), next_b[r][d]
        return fwd_done.get((d, s, j)) if s == pp - 1 else bwd_done.get((d, s + 1, j))

    def finish_forward(r: int, d: int, end: float) -> None:
        fwd_done[(d, stage(r, d), next_f[r][d])] = end
        next_f[r][d] += 1

    def finish_backward(r: int, d: int, end: float) -> None:
        bwd_done[(d, stage(r, d), next_b[r][d])] = end
        next_b[r][d] += 1

    moved = True
    while moved:
        moved = False
        for r in range(pp):
            while pos[r] < len(ops[r]):
                op = ops[r][pos[r]]
                if op[0] == "W":
                    if not deferred[r]:
                        raise ValueError(f"device {r}: a W with no deferred weight gradient")
                    deferred[r] -= 1
                    start, length = free[r], t_weight
                elif op[0] == "F":
                    ready = forward_input(r, op[1])
                    if ready is None:
                        break
                    start, length = max(free[r], ready), t_forward
                    finish_forward(r, op[1], start + length)
                elif op[0] == "B":
                    ready = backward_input(r, op[1])
                    if ready is None:
                        break
                    length = t_backward - t_weight if op[2] else t_backward
                    deferred[r] += op[2]
                    start = max(free[r], ready)
                    finish_backward(r, op[1], start + length)
                else:
                    ready_f, ready_b = forward_input(r, op[1]), backward_input(r, op[2])
                    if ready_f is None or ready_b is None:
                        break
                    start, length = max(free[r], ready_f, ready_b), t_overlapped
                    finish_forward(r, op[1], start + length)
                    finish_backward(r, op[2], start + length)
                free[r] = start + length
                busy[r] += length
                pos[r] += 1
                moved = True
    stuck = [r for r in range(pp) if pos[r] < len(ops[r])]
    if stuck:  # the schedule's order would deadlock: a programming error, said plainly
        raise ValueError(f"DualPipe schedule deadlocks at devices {stuck}")
    makespan = max(free)
    return DualPipeRun(makespan, tuple(makespan - b for b in busy))
