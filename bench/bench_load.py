"""Benchmark: load and validate 10,000 generated cards vs a bare C-loader ``yaml.load``.

Both run in the same process on the same files; the figure is the ratio (goal ≤ 2).
Run: ``python bench/bench_load.py [--cards 10000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from deck.cards.loader import load_collection
from quizcoll.executables import build_registry

CARD_TEMPLATES = [
    """  - id: basic-{i}
    type: basic
    tags: [bench, primitive]
    front: What does primitive number {i} do?
    back: "**It moves data.** Card {i} explains why, with a table and some words."
""",
    """  - id: choice-{i}
    type: choice
    tags: [bench]
    front: Which of these reduce? (card {i})
    options: [Gather, Reduce, AllReduce, Broadcast]
    correct: [1, 2]
""",
    """  - id: numeric-{i}
    type: numeric
    tags: [bench, units]
    front: How many GiB are {{n}} × 10^9 bytes? (card {i})
    back: "**{{answer}}**"
    params:
      n: {{range: [1, 100]}}
    answer:
      run: units.convert_bytes
      args: {{bytes: "= n * 1e9"}}
      field: bytes
      unit: GiB
      tolerance: 1%
""",
    """  - id: formula-{i}
    type: formula
    tags: [bench]
    front: Per-rank bytes of a ring all-reduce? (card {i})
    variables:
      N: {{range: [2, 64], integer: true}}
      S: {{range: [1, 1e9]}}
    answer: {{formula: "2*(N-1)/N*S"}}
""",
]


def write_cards(folder: Path, n: int, per_file: int = 500) -> list[Path]:
    files = []
    for start in range(0, n, per_file):
        body = "".join(
            CARD_TEMPLATES[i % len(CARD_TEMPLATES)].format(i=i)
            for i in range(start, min(n, start + per_file))
        )
        path = folder / f"cards-{start // per_file:03d}.yaml"
        path.write_text(f"deck: bench\ncards:\n{body}", encoding="utf-8")
        files.append(path)
    return files


def bare_load(files: list[Path]) -> int:
    count = 0
    for f in files:
        count += len(yaml.load(f.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["cards"])
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    registry = build_registry()
    with tempfile.TemporaryDirectory() as tmp:
        files = write_cards(Path(tmp), args.cards)
        base_times, ours_times = [], []
        for _ in range(args.repeat):  # interleaved, so machine noise hits both alike
            t0 = time.perf_counter()
            n_bare = bare_load(files)
            t1 = time.perf_counter()
            collection = load_collection(files, registry)
            t2 = time.perf_counter()
            base_times.append(t1 - t0)
            ours_times.append(t2 - t1)
        assert n_bare == args.cards and len(collection.cards) == args.cards, collection.problems[:3]
    base, ours = statistics.median(base_times), statistics.median(ours_times)
    print(f"cards: {args.cards:,} in {len(files)} files")
    print(f"bare yaml.load (CSafeLoader): {base * 1000:.0f} ms (median of {args.repeat})")
    print(f"quizcoll load + validate:     {ours * 1000:.0f} ms")
    print(f"ratio: {ours / base:.2f} (goal <= 2)")


if __name__ == "__main__":
    main()
