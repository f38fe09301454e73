"""Benchmark: the simulator at cluster scale, up to 131,072 ranks.

1. Counting (in process): steps, bytes per rank and modelled time of one algorithm from
   its structure, at N = 1,024 … 131,072 ranks, as a ratio to its own time at 1,024 ranks
   (N grows 128×; counting is O(N) or O(N log N), so the ratio should stay near or below
   128 × log2 N / 10).
2. The whole command, start-up included (``python -m quizcoll sim … --json``, 1 GiB per
   rank): every collective × algorithm at 1,024 and at 16,384 ranks, and ring, double
   binary tree, binomial tree and hierarchical (8 GPUs per node) at 131,072, with the
   peak memory of each. Times are also given as a ratio to ``sim all_reduce --ranks 8``
   measured in the same run. Goals (DESIGN.md): 1,024 ranks under 1.5 s, 16,384 under
   5 s, 131,072 under 30 s and 2 GiB.

Run: ``python bench/bench_scale.py`` (``--quick``: fewer commands).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from quizcoll.collectives import CostModel, algorithms, plan, plan_hierarchical
from quizcoll.collectives.semantics import Collective

ROOT = Path(__file__).resolve().parents[1]
RANKS = (1024, 4096, 16384, 65536, 131072)
GIB = 2**30
# Runs the command given as JSON and prints its wall time and peak memory (KiB): the
# child's own figures, whatever else runs in the benchmark's process.
MEASURE = (
    "import json, resource, subprocess, sys, time;"
    "argv = json.loads(sys.argv[1]); start = time.perf_counter();"
    "done = subprocess.run(argv, stdout=subprocess.DEVNULL);"
    "wall = time.perf_counter() - start;"
    "print(json.dumps([done.returncode, wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))"
)


def best_of(repeats: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def count(collective: str, algorithm: str, n: int) -> None:
    """Steps, bytes per rank and modelled time from the structure (no data)."""
    if algorithm == "hierarchical":
        p = plan_hierarchical(n // 8, 8, GIB // 4)
        p.time(CostModel())
        p.bytes_by_link(8)
    else:
        p = plan(collective, n, GIB // 4, algorithm=algorithm)
        p.time(CostModel())
    p.bytes_sent.max()
    p.bytes_received.max()


def counting_table() -> None:
    cases = [
        ("all_reduce", "ring"),
        ("all_reduce", "double_binary_tree"),
        ("all_reduce", "hierarchical"),
        ("all_reduce", "rabenseifner"),
        ("broadcast", "binomial"),
        ("all_to_all", "pairwise"),
    ]
    print("1. counting from the structure (in process), ratio to 1,024 ranks")
    print(f"   {'collective · algorithm':<32}" + "".join(f"{n:>16,}" for n in RANKS))
    for collective, algorithm in cases:
        times = [best_of(3, lambda c=collective, a=algorithm, n=n: count(c, a, n)) for n in RANKS]
        cells = "".join(f"{t * 1e3:>8.1f} ms ×{t / times[0]:<4.0f}" for t in times)
        print(f"   {collective + ' · ' + algorithm:<32}{cells}")
    print(f"   (ranks grow ×{RANKS[-1] // RANKS[0]})")


def command(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident memory (bytes) of ``python -m quizcoll`` + args."""
    argv = [sys.executable, "-m", "quizcoll", *args]
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, json.dumps(argv)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    code, wall, peak_kib = json.loads(out)
    if code != 0:
        raise SystemExit(f"quizcoll {' '.join(args)} exited with {code}")
    return wall, peak_kib * 1024


def sim_args(collective: str, algorithm: str, n: int) -> list[str]:
    shape = ["--nodes", str(n // 8), "--gpus-per-node", "8"]
    which = shape if algorithm == "hierarchical" else ["--algorithm", algorithm, "--ranks", str(n)]
    return ["sim", collective, *which, "--size", "1GiB", "--json"]


def command_table(quick: bool) -> None:
    baseline, _ = min(command(["sim", "all_reduce", "--ranks", "8", "--json"]) for _ in range(3))
    print(
        f"\n2. the whole command, 1 GiB per rank; baseline sim all_reduce --ranks 8: {baseline:.2f} s"
    )
    pairs = [(c.value, a) for c in Collective for a in algorithms(c, topology=True)]
    if quick:
        pairs = [("all_reduce", a) for a in algorithms("all_reduce", topology=True)]
    for n, goal in ((1024, 1.5), (16384, 5.0)):
        rows = [(c, a, *command(sim_args(c, a, n))) for c, a in pairs]
        worst = max(rows, key=lambda row: row[2])
        print(f"   {n:,} ranks, {len(rows)} collective × algorithm pairs (goal < {goal} s):")
        for c, a, wall, peak in rows:
            print(
                f"     {c + ' · ' + a:<40} {wall:5.2f} s ×{wall / baseline:4.1f}  {peak / 2**20:6.0f} MiB"
            )
        print(f"     slowest: {worst[0]} · {worst[1]} {worst[2]:.2f} s")
    print(f"   {RANKS[-1]:,} ranks (goal < 30 s and < 2 GiB):")
    for c, a in [
        ("all_reduce", "ring"),
        ("all_reduce", "double_binary_tree"),
        ("broadcast", "binomial"),
        ("all_reduce", "hierarchical"),
    ]:
        wall, peak = command(sim_args(c, a, RANKS[-1]))
        print(
            f"     {c + ' · ' + a:<40} {wall:5.2f} s ×{wall / baseline:4.1f}  {peak / 2**20:6.0f} MiB"
        )


def main() -> None:
    counting_table()
    command_table(quick="--quick" in sys.argv)


if __name__ == "__main__":
    main()
