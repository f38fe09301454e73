"""N14 and the attention explanation: feedback shows magnitudes a reader takes in at a glance.

Before: "1e29 ms is 1,746,229,827,404,022,067,534,757,888× too high", a formula
counterexample "at N = 2, S = 1.67772e+07 it is 1.67772e+07", and a training-FLOPs
explanation "attention 12·L·H·Q·T = 0" when no model shape was given.
"""

from __future__ import annotations

import re

import pytest

from deck.answers.checking import check_answer
from deck.cards.instances import draw
from quizcoll.collection import load
from quizcoll.executables import build_registry

COLLECTION, REGISTRY = load()


def test_a_huge_ratio_reads_as_a_power_of_ten() -> None:
    card = COLLECTION.by_id()["ring-allreduce-time"]
    verdict = check_answer(card, draw(card, 0, REGISTRY), "1e29 ms", REGISTRY)
    assert verdict.correct is False
    assert re.search(r"\d(\.\d)?×10\^\d+ times too high", verdict.feedback), verdict.feedback
    assert not re.search(r"\d{1,3}(,\d{3}){4,}", verdict.feedback)  # no 13+ digit figure


@pytest.mark.parametrize(("answer", "words"), [("4.5 GB", "12.5% too high")])
def test_small_misses_keep_their_percentage(answer: str, words: str) -> None:
    card = COLLECTION.by_id()["weights-bytes-by-dtype"]
    verdict = check_answer(card, draw(card, 1, REGISTRY), answer, REGISTRY)
    assert words in verdict.feedback


def test_a_counterexample_writes_whole_numbers_out() -> None:
    card = COLLECTION.by_id()["ring-reducescatter-bytes-formula"]
    verdict = check_answer(card, draw(card, 3, REGISTRY), "(N-1)*S", REGISTRY)
    assert verdict.correct is False
    assert "e+" not in verdict.feedback, verdict.feedback
    assert re.search(r"\d,\d{3},\d{3}", verdict.feedback), verdict.feedback


def test_training_flops_without_a_shape_claims_no_zero_attention() -> None:
    registry = build_registry()
    function = registry.get("training.flops")
    args = {
        "params": 7e9,
        "tokens": 1e12,
        "seq_len": 0,
        "model": None,
        "layers": 0,
        "heads": 0,
        "head_dim": 0,
        "recompute": "none",
    }
    text = function.explain(args, registry.call("training.flops", {"params": 7e9, "tokens": 1e12}))
    assert "= 0" not in text and "attention not counted" in text
    assert "4.2×10^22 model FLOPs" in text  # 6 × 7e9 × 1e12 (Kaplan et al. 2020: C ≈ 6ND)
