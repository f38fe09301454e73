"""Benchmark: ``quizcoll check`` on the whole built-in collection, as a user runs it.

Four runs of the real command, each in a fresh process, best of ``--repeat``:

- cold: ``check --no-cache`` (every file loaded, every card proven, in worker processes);
- cold, one process: the same with ``--jobs 1`` (what the workers save);
- warm: ``check`` again with nothing changed (every card remembered, only loading left);
- one card edited: ``check`` after one card's text changed (that card proven again).

The baseline, measured in the same run, is ``quizcoll --help`` (the interpreter and the
command-line front end, which every run pays). Figures are printed as seconds and as
ratios to the baseline; the issue's goal for the whole collection is under 3 s.
Run: ``python bench/bench_prove.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from quizcoll.cli.common import builtin_cards_dir


def timed(args: list[str], env: dict[str, str], repeat: int, before: object = None) -> float:
    best = float("inf")
    for _ in range(repeat):
        if callable(before):
            before()
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "quizcoll", *args], env=env, capture_output=True, text=True
        )
        elapsed = time.perf_counter() - t0
        if out.returncode not in (0, 1):
            sys.exit(f"quizcoll {' '.join(args)} failed: {out.stderr.strip()}")
        best = min(best, elapsed)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        cards = Path(tmp) / "cards"
        shutil.copytree(builtin_cards_dir(), cards, ignore=shutil.ignore_patterns("*.py"))
        target = sorted(cards.glob("*.yaml"))[0]
        original = target.read_text(encoding="utf-8")
        # The first card's front gains a word: its proof is a miss, every other card's a hit.
        at = original.index("front: |\n") + len("front: |\n")
        at += len(original[at:]) - len(original[at:].lstrip(" "))  # the block's first line
        edits = [0]

        def edit_one_card() -> None:  # a new text every time: never remembered before
            edits[0] += 1
            target.write_text(original[:at] + "So, " * edits[0] + original[at:], encoding="utf-8")

        base = timed(["--help"], env, args.repeat)
        cold = timed(["check", str(cards), "--no-cache"], env, args.repeat)
        serial = timed(["check", str(cards), "--no-cache", "--jobs", "1"], env, args.repeat)
        timed(["check", str(cards)], env, 1)  # fill the cache
        warm = timed(["check", str(cards)], env, args.repeat)
        edited = timed(["check", str(cards)], env, args.repeat, before=edit_one_card)
    print(f"baseline quizcoll --help: {base:.2f} s")
    for name, seconds in (
        ("cold (all proven, workers)", cold),
        ("cold, one process", serial),
        ("warm (nothing changed)", warm),
        ("one card edited", edited),
    ):
        print(f"{name:28s} {seconds:5.2f} s  = {seconds / base:5.1f}× baseline")
    print(f"workers vs one process: {cold / serial:.2f}; warm vs cold: {warm / cold:.2f}")


if __name__ == "__main__":
    main()
