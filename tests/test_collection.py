"""The built-in collection: big enough, well formed, and every number in it proven by running it."""

from __future__ import annotations

from collections import Counter

import pytest

from deck.cards.instances import draw, render_front, render_options
from deck.cards.model import CardType, Collection
from deck.cards.placeholders import placeholders
from deck.cards.registry import Registry
from deck.proving.verify import check_instances, run_checks
from quizcoll.collection import load


@pytest.fixture(scope="module")
def loaded() -> tuple[Collection, Registry]:
    return load()


def test_collection_loads_without_problems(loaded: tuple[Collection, Registry]) -> None:
    collection, _ = loaded
    assert not collection.problems, "\n".join(p.format() for p in collection.problems)


def test_card_counts(loaded: tuple[Collection, Registry]) -> None:
    collection, _ = loaded
    types = Counter(c.type for c in collection.cards)
    assert len(collection.cards) >= 80
    assert types[CardType.NUMERIC] + types[CardType.FORMULA] >= 40
    assert {"collectives", "memory"} <= set(collection.decks())


def test_computed_cards_have_parameters_and_executables(
    loaded: tuple[Collection, Registry],
) -> None:
    collection, _ = loaded
    computed = [c for c in collection.cards if c.type is CardType.NUMERIC and c.computed]
    assert len(computed) >= 35
    assert sum(1 for c in computed if c.params) >= 35


def test_every_card_is_tagged_and_sourced_or_computed(loaded: tuple[Collection, Registry]) -> None:
    collection, _ = loaded
    untagged = [c.id for c in collection.cards if not c.tags]
    assert not untagged
    unsourced = [c.id for c in collection.cards if not c.source and not c.computed and not c.verify]
    assert not unsourced


def test_whole_collection_checks_green(loaded: tuple[Collection, Registry]) -> None:
    collection, registry = loaded
    report = run_checks(collection, registry, seeds=3)
    assert report.ok, "\n".join(f.format() for f in report.failures)
    assert report.claims >= 60


def test_numeric_and_formula_cards_run_for_20_seeds(loaded: tuple[Collection, Registry]) -> None:
    collection, registry = loaded
    failures = []
    for card in collection.cards:
        if card.type in (CardType.NUMERIC, CardType.FORMULA):
            n, fails = check_instances(card, registry, seeds=20)
            assert n == (20 if card.params else 1) or fails
            failures += fails
    assert not failures, "\n".join(f.format() for f in failures)


def test_no_rendered_text_keeps_a_placeholder(loaded: tuple[Collection, Registry]) -> None:
    collection, registry = loaded
    for card in collection.cards:
        for seed in range(5):
            inst = draw(card, seed, registry)
            texts = [render_front(card, inst), *render_options(card, inst)]
            for text in texts:
                assert not placeholders(text), (card.id, text)


def test_parametric_cards_ask_new_instances(loaded: tuple[Collection, Registry]) -> None:
    collection, registry = loaded
    for card in collection.cards:
        if card.params and card.type is CardType.NUMERIC:
            fronts = {render_front(card, draw(card, s, registry)) for s in range(12)}
            assert len(fronts) >= 2, card.id
