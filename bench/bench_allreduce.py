"""Benchmark: ring all-reduce against the floor numpy sets, and its growth with N.

1. Ring all-reduce of 64 ranks × 2^20 float32 versus the floor for the same data:
   stack the inputs, sum over ranks, copy the result to every rank. Goal: ratio ≤ 2.
2. Ring all-reduce at 2^16 float32 per rank, 1024 versus 128 ranks (the data grows 8×,
   so linear growth is 8). Goal: ratio ≤ 12.

Both figures are ratios of times measured in this run (best of a few repetitions).
Run: ``python bench/bench_allreduce.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from quizcoll.collectives import run


def best_of(repeats: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def numpy_floor(inputs: list[np.ndarray]) -> list[np.ndarray]:
    total = np.stack(inputs).sum(axis=0)
    return list(np.broadcast_to(total, (len(inputs), len(total))).copy())


def ring(inputs: list[np.ndarray]) -> list[np.ndarray | None]:
    return run("all_reduce", inputs, algorithm="ring").outputs


def floor_ratio(rng: np.random.Generator, repeats: int = 5) -> float:
    inputs = [rng.standard_normal(1 << 20, dtype=np.float32) for _ in range(64)]
    floor_s = ring_s = float("inf")
    for _ in range(repeats):  # interleaved, so both see the same machine load
        floor_s = min(floor_s, best_of(1, lambda: numpy_floor(inputs)))
        ring_s = min(ring_s, best_of(1, lambda: ring(inputs)))
    print(
        f"64 ranks × 2^20 float32: numpy floor {floor_s * 1e3:.1f} ms, "
        f"ring all-reduce {ring_s * 1e3:.1f} ms, ratio {ring_s / floor_s:.2f} (goal ≤ 2)"
    )
    return ring_s / floor_s


def scaling_ratio(rng: np.random.Generator, repeats: int = 7) -> float:
    data = {
        n: [rng.standard_normal(1 << 16, dtype=np.float32) for _ in range(n)] for n in (128, 1024)
    }
    times = {n: float("inf") for n in data}
    for _ in range(repeats):
        for n, inputs in data.items():
            times[n] = min(times[n], best_of(1, lambda inputs=inputs: ring(inputs)))
    for n, t in times.items():
        print(f"{n} ranks × 2^16 float32: ring all-reduce {t * 1e3:.1f} ms")
    ratio = times[1024] / times[128]
    print(f"1024 / 128 ranks time ratio {ratio:.2f} (linear is 8; goal ≤ 12)")
    return ratio


def main() -> None:
    rng = np.random.default_rng(0)
    floor_ratio(rng)
    scaling_ratio(rng)


if __name__ == "__main__":
    main()
