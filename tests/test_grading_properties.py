"""Every formula card of the built-in collection, graded as a review grades it, at 50 seeds:
structural mutations of its answer are rejected, rewritings of it are accepted.

The mutations and rewritings are generated from the parsed answer (tests/formula_mutations.py),
not written per card; sympy is the independent oracle that each mutation is a different
function.
"""

from __future__ import annotations

import pytest
from formula_mutations import implicit, mutations, reordered, rewritings

from deck.answers.checking import check_answer
from deck.cards.instances import draw
from deck.cards.model import Card, CardType
from deck.formula import parse
from quizcoll.collection import load

SEEDS = range(50)
COLLECTION, REGISTRY = load()
FORMULA_CARDS = [c for c in COLLECTION.cards if c.type is CardType.FORMULA]


def _answer(card: Card) -> str:
    assert card.answer is not None and card.answer.formula is not None
    return card.answer.formula


def test_the_collection_has_formula_cards() -> None:
    assert len(FORMULA_CARDS) >= 15


@pytest.mark.parametrize("card", FORMULA_CARDS, ids=lambda c: c.id)
def test_mutations_are_rejected_at_every_seed(card: Card) -> None:
    mutated = mutations(_answer(card), card.variables)
    assert len(mutated) >= 5
    accepted = [
        (name, str(expr), seed)
        for name, expr in mutated.items()
        for seed in SEEDS
        if check_answer(card, draw(card, seed), str(expr), REGISTRY).correct is not False
    ]
    assert not accepted


@pytest.mark.parametrize("card", FORMULA_CARDS, ids=lambda c: c.id)
def test_rewritings_are_accepted_at_every_seed(card: Card) -> None:
    rewritten = rewritings(_answer(card), card.variables)
    rejected = [
        (name, text, seed)
        for name, text in rewritten.items()
        for seed in SEEDS
        if check_answer(card, draw(card, seed), text, REGISTRY).correct is not True
    ]
    assert not rejected


def test_the_generators_produce_each_kind() -> None:
    ring = next(c for c in FORMULA_CARDS if c.id == "ring-allreduce-time-formula")
    names = " | ".join(mutations(_answer(ring), ring.variables))
    for kind in ("drop term", "coefficient", "N → N−1", "N−1 → N", "swap", "square term"):
        assert kind in names
    texts = rewritings("2*(N-1)/N*S", ring.variables)
    assert texts["implicit multiplication"] == "2(N - 1)/N S"
    assert "·" in texts["middle dot"] and "×" in texts["times sign"]
    assert "−" in texts["minus sign"]
    assert str(reordered(parse("a + 2*b - c"))) == "-c + b*2 + a"
    assert implicit(parse("2*(N-1)*a + 2*(N-1)/N*S/B")) == "2(N - 1) a + 2(N - 1)/N S/B"
