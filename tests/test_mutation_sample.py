"""The built-in collection guards what it states: a fixed sample of single edits (a number
doubled or halved, N−1 → N, GB ↔ GiB, another option marked correct, a computation argument
changed …) must fail ``check``. The full run is ``python bench/bench_mutation.py``."""

from __future__ import annotations

from deck.loader import card_files
from deck.mutation import run_mutations
from quizcoll.cli.common import builtin_cards_dir
from quizcoll.executables import build_registry

SAMPLE = 160
GOAL = 0.95


def test_a_sample_of_mutations_of_the_builtin_cards_is_caught() -> None:
    report = run_mutations(
        card_files([builtin_cards_dir()]), build_registry(), sample=SAMPLE, seed=7, seeds=2
    )
    assert report.total >= SAMPLE * 0.8  # most edits are not equivalent
    survivors = "\n".join(m.describe() for m in report.survivors)
    assert report.score >= GOAL, f"{report.score:.1%} caught; survivors:\n{survivors}"
    kinds = {k.split(":")[0] for k in report.by_kind}
    assert {"number ×2", "number ÷2"} <= kinds
