"""N4: every surface draws the same instance for the same card and seed, with its constraints.

``grade`` used to draw without the registry, so a constrained card's constraints were
skipped and it judged another instance than ``show`` (and printed raw ``{=…}`` spans for
choice answers); the TUI did the same after an in-app edit.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from deck.answers.checking import solve
from deck.cards.instances import draw, realistic, render_front, render_options
from deck.cards.placeholders import placeholders
from deck.review.scheduler import Config
from quizcoll.cli.main import main
from quizcoll.collection import load
from quizcoll.tui.services.review import ReviewSession

COLLECTION, REGISTRY = load()
CONSTRAINED = [c for c in COLLECTION.cards if c.constraints]


def test_a_constrained_card_cannot_be_drawn_without_the_registry() -> None:
    assert CONSTRAINED, "the collection has constrained cards"
    with pytest.raises(TypeError, match="constraints"):
        draw(CONSTRAINED[0], 0)


@pytest.mark.parametrize("seed", range(21))
def test_every_card_and_seed_draws_a_realistic_instance(seed: int) -> None:
    for card in COLLECTION.cards:
        inst = draw(card, seed, REGISTRY)
        assert realistic(card, inst.facts, REGISTRY), (card.id, seed)
        assert inst == draw(card, seed, REGISTRY)  # deterministic: one instance per seed
        for text in (render_front(card, inst), *render_options(card, inst)):
            assert not placeholders(text), (card.id, seed, text)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("seed", [0, 4, 7])
def test_grade_accepts_the_answer_show_displays(
    capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    card = COLLECTION.by_id()["mfu-from-throughput"]
    assert card.constraints
    code, out = _cli(capsys, "show", card.id, "--seed", str(seed), "--json")
    assert code == 0
    shown = json.loads(out)["answer"]
    code, out = _cli(capsys, "grade", card.id, "--seed", str(seed), "--answer", shown)
    assert code == 0, out
    assert out.startswith("correct:")


def test_grade_renders_a_choice_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _cli(capsys, "grade", "pcie-generations", "--seed", "0", "--answer", "a", "--json")
    assert code == 1  # b is right
    expected = json.loads(out)["expected"]
    assert "{" not in expected and "GB/s" in expected


def test_an_in_app_edit_keeps_the_constrained_instance() -> None:
    card = CONSTRAINED[0]
    session = ReviewSession(
        [card], REGISTRY, Config(), lambda: datetime(2026, 1, 1, tzinfo=UTC), lambda: 4
    )
    from deck.review.store import Store

    with Store.in_memory() as store:
        session.load(store)
        first = session.advance(store)
        assert first is not None and first.instance == draw(card, 4, REGISTRY)
        again = session.replace_card(card)
        assert again is not None and again.instance == first.instance
        assert (
            solve(card, again.instance, REGISTRY).text == solve(card, first.instance, REGISTRY).text
        )
