"""A learner's view computes only the facts it can read (not the second methods a card is
proven by): every built-in card, at several seeds, renders exactly as it does with every
fact computed — question, options, hint, answer, worked solution and checked claims."""

from __future__ import annotations

import pytest

from deck.cards.instances import draw, shown_fact_names
from deck.interchange.export import common
from quizcoll.collection import load

COLLECTION, REGISTRY = load(None)
CARDS = [c for c in COLLECTION.cards if c.verify]


def _shown(card, seed: int, all_facts: bool, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(
        common, "draw", lambda c, s, r: draw(c, s, r, all_facts=all_facts), raising=True
    )
    r = common.render_card(card, seed, REGISTRY)
    return (r.question, r.options, r.answer, r.solution, r.hint, r.claims(), r.failed)


@pytest.mark.parametrize("card", CARDS, ids=[c.id for c in CARDS])
def test_a_learners_view_reads_only_what_it_computes(card, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for seed in (0, 1, 2):
        assert _shown(card, seed, False, monkeypatch) == _shown(card, seed, True, monkeypatch)
        assert (
            draw(card, seed, REGISTRY).values == draw(card, seed, REGISTRY, all_facts=True).values
        )


def test_second_methods_are_not_run_to_show_a_card() -> None:
    card = next(c for c in COLLECTION.cards if c.id == "weights-bytes-by-dtype")
    witnesses = {
        c.name
        for c in card.verify
        if c.name and c.computation and c.computation.run.startswith("witness.")
    }
    assert witnesses, "the card holds its answer to a second method"
    assert not witnesses & shown_fact_names(card)
    assert not witnesses & set(draw(card, 0, REGISTRY).facts)
