"""The built-in collection guards what it states: a fixed sample of single edits (a number
doubled, halved or nudged by 5–8%, N−1 → N, GB ↔ GiB, another option marked correct, a
computation argument changed …) must fail ``check``. The full run is
``python bench/bench_mutation.py``."""

from __future__ import annotations

import pytest

from deck.cards.loader import card_files
from deck.proving.mutation import run_mutations
from quizcoll.cli.common import builtin_cards_dir
from quizcoll.executables import build_registry

SAMPLE = 220  # enough edits that at least 20 land in text a learner reads
GOAL = 0.95


def test_a_sample_of_mutations_of_the_builtin_cards_is_caught() -> None:
    report = run_mutations(
        card_files([builtin_cards_dir()]), build_registry(), sample=SAMPLE, seed=7, seeds=2
    )
    assert report.total >= SAMPLE * 0.8  # most edits are not equivalent
    survivors = "\n".join(m.describe() for m in report.survivors)
    # The headline: edits of what a learner reads. A narrowed sweep or a widened tolerance
    # weakens a proof without making the card false, so those may survive (counted apart).
    assert report.visible_total >= 20
    assert report.visible_score >= GOAL, f"{report.visible_percent} caught:\n{survivors}"
    weakening = ("sweep", "tolerance")
    wrong = [m for m in report.survivors if not m.kind.startswith(weakening)]
    assert len(wrong) <= (1 - GOAL) * report.total, survivors
    kinds = {k.split(":")[0] for k in report.by_kind}
    assert {"number ×2", "number ÷2", "number +5%", "number −8%"} <= kinds


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


_CHOICE = """\
deck: t
cards:
  - id: pick
    type: choice
    front: Which are powers of two?
    options: ["{=a|GiB}", "{=b|GiB}", "{=c|GiB}"]
    correct: [0, 2]
    back: "Two of them."
    verify:
      - {name: a, run: units.convert_bytes, args: {bytes: 4GiB}, field: gib, expect: "4", tolerance: 1%}
      - {name: b, run: units.convert_bytes, args: {bytes: 3GiB}, field: gib, expect: "3"}
      - {name: c, run: units.convert_bytes, args: {bytes: 8GiB}, field: gib, expect: "8"}
"""


def test_list_valued_correct_tolerances_sweeps_and_expect_are_mutated(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from deck.proving.mutation import file_mutations

    path = tmp_path / "c.yaml"
    path.write_text(_CHOICE, encoding="utf-8")
    ms = file_mutations(path, build_registry())
    correct = {(m.kind, m.after) for m in ms if "correct" in m.kind}
    assert ("a correct option dropped", "[2]") in correct
    assert ("another option marked correct", "[0, 1, 2]") in correct
    assert ("a correct option swapped", "[0, 1]") in correct
    assert all(m.visible for m in ms if "correct" in m.kind)
    assert any(m.kind == "tolerance widened ×10" and m.after == "10%" for m in ms)
    assert not any(m.visible for m in ms if m.kind.startswith(("tolerance", "argument")))


def test_an_unchecked_edit_of_an_expect_is_never_equivalent() -> None:
    """The equivalence fingerprint holds the proofs' closed forms: two cards that differ
    only in an expect differ."""
    from deck.cards.loader import load_text
    from deck.proving.mutation import fingerprint

    registry = build_registry()
    one, _ = load_text(_CHOICE, "c.yaml", registry)
    two, _ = load_text(_CHOICE.replace('"3"}', '"3*1"}'), "c.yaml", registry)
    assert fingerprint(one[0], registry, 1) != fingerprint(two[0], registry, 1)
