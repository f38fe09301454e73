"""The built-in collection guards what it states: a fixed sample of single edits (a number
doubled or halved, N−1 → N, GB ↔ GiB, another option marked correct, a computation argument
changed …) must fail ``check``. The full run is ``python bench/bench_mutation.py``."""

from __future__ import annotations

import pytest

from deck.cards.loader import card_files
from deck.proving.mutation import run_mutations
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


@pytest.mark.parametrize(
    ("caught", "total", "shown"),
    [
        (12_740, 12_746, "99.95%"),
        (1, 1, "100.00%"),
        (0, 0, "100.00%"),
        (9_999, 10_000, "99.99%"),
        (199_999, 200_000, "99.99%"),
        (0, 3, "0.00%"),
        (1, 3, "33.33%"),
    ],
)
def test_the_score_never_rounds_up_to_a_clean_sweep(caught: int, total: int, shown: str) -> None:
    from deck.proving.mutation import MutationReport

    assert MutationReport(total, caught).percent == shown
