"""Benchmark: building every collective × algorithm schedule at 256 ranks.

Schedules are laid out with numpy index arithmetic, a few array operations per round,
never a Python loop over ranks or blocks. The slowest build is printed as a ratio
against one numpy operation of the same size measured in this run: ``np.argsort`` of as
many int64 keys as that schedule has rows (a schedule build should cost a small multiple
of touching its rows once). Builds bypass the schedule cache. Times are best of a few
repetitions, interleaved with the baseline so both see the same machine load.
Run: ``python bench/bench_schedule.py [ranks]``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from quizcoll.collectives.schedules import ALGORITHMS, build_schedule


def seconds(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main(ranks: int = 256, repeats: int = 5) -> float:
    cases = [(c, a) for c, names in ALGORITHMS.items() for a in names]
    rows = {case: build_schedule(*case, ranks, 0).rows for case in cases}  # also warms up
    build_s = dict.fromkeys(cases, float("inf"))
    for _ in range(repeats):
        for case in cases:
            build_s[case] = min(build_s[case], seconds(lambda c=case: build_schedule(*c, ranks, 0)))
    print(f"schedules at {ranks} ranks (best of {repeats}):")
    for (collective, algorithm), s in sorted(build_s.items(), key=lambda kv: -kv[1]):
        print(
            f"  {collective.value:>14} {algorithm:<22} {s * 1e3:7.2f} ms  "
            f"{rows[collective, algorithm]:>8,} rows"
        )
    # the slowest again, interleaved with the baseline: argsort of as many keys as it has rows
    slowest = max(build_s, key=lambda case: build_s[case])
    keys = np.random.default_rng(0).integers(0, ranks, max(rows[slowest], 1), dtype=np.int64)
    slow_s = sort_s = float("inf")
    for _ in range(repeats):
        slow_s = min(slow_s, seconds(lambda: build_schedule(*slowest, ranks, 0)))
        sort_s = min(sort_s, seconds(lambda: np.argsort(keys)))
    ratio = slow_s / sort_s
    print(
        f"slowest: {slowest[0].value} · {slowest[1]} {slow_s * 1e3:.2f} ms for "
        f"{rows[slowest]:,} rows; np.argsort of {len(keys):,} int64 keys {sort_s * 1e3:.2f} ms; "
        f"ratio {ratio:.2f}"
    )
    return ratio


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 256)
