"""Answer checking: numeric with units and tolerance, formulas, choices, suggested ratings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.answers.checking import check_answer, solve
from deck.cards.instances import draw, render_front
from deck.cards.loader import load_collection
from deck.cards.model import Card, Rating
from quizcoll.executables import build_registry

FIXTURE = Path(__file__).parent / "fixtures" / "engine_cards.yaml"


@pytest.fixture(scope="module")
def cards() -> dict[str, Card]:
    collection = load_collection([FIXTURE], build_registry())
    assert not collection.problems, [p.format() for p in collection.problems]
    return collection.by_id()


def seed_where(card: Card, name: str, value: object) -> int:
    return next(s for s in range(5000) if draw(card, s).values[name] == value)


def verdict(card: Card, text: str, seed: int = 0, **kw: object):  # type: ignore[no-untyped-def]
    return check_answer(card, draw(card, seed), text, build_registry(), **kw)  # type: ignore[arg-type]


def test_numeric_instance_is_seeded(cards: dict[str, Card]) -> None:
    card = cards["gib-of-decimal-bytes"]
    assert draw(card, 7) == draw(card, 7)
    fronts = {render_front(card, draw(card, s)) for s in range(20)}
    assert len(fronts) > 5


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("13.04 GiB", True),
        ("13.04", True),  # a bare number is read in the card's unit
        ("14 GB", True),
        ("14e9", False),  # bare: 14e9 GiB
        ("14000000000 B", True),
        ("13.04 GiB (14.00 GB)", True),  # the shown answer pasted back
        ("13 GiB", True),  # within 0.5%
        ("12.5 GiB", False),
        ("14 GiB", False),
        ("fourteen", False),
        ("", False),
    ],
)
def test_numeric_answers(cards: dict[str, Card], answer: str, ok: bool) -> None:
    card = cards["gib-of-decimal-bytes"]
    seed = seed_where(card, "n", 14)
    v = verdict(card, answer, seed)
    assert v.correct is ok, v.message
    assert "13.04 GiB" in v.exact and "14.00 GB" in v.exact


def test_unit_slip_is_explained(cards: dict[str, Card]) -> None:
    card = cards["gib-of-decimal-bytes"]
    seed = seed_where(card, "n", 14)
    v = verdict(card, "13.04 GB", seed)
    assert v.correct is False
    assert "would be right in GiB" in v.message


def test_bare_g_accepted_either_reading_and_both_units_said(cards: dict[str, Card]) -> None:
    card = cards["gib-of-decimal-bytes"]
    seed = seed_where(card, "n", 14)
    v = verdict(card, "14G", seed)
    assert v.correct is True
    assert "GB" in v.message and "GiB" in v.message


def test_strict_unit(cards: dict[str, Card]) -> None:
    card = cards["gib-strict"]
    assert verdict(card, "13.04 GiB").correct is True
    assert verdict(card, "13.04").correct is True
    v = verdict(card, "14 GB")
    assert v.correct is False and "asks for GiB" in v.message


def test_feedback_is_the_message_without_the_answer(cards: dict[str, Card]) -> None:
    card = cards["gib-of-decimal-bytes"]
    seed = seed_where(card, "n", 14)
    wrong = verdict(card, "12.5 GiB", seed)
    assert wrong.message.endswith(f"The answer is {wrong.exact}.")
    assert wrong.feedback == "Not quite: 12.5 GiB is 4.13% too low."
    assert "13.04" not in wrong.feedback and "14.00 GB" not in wrong.feedback
    empty = verdict(card, "", seed)
    assert empty.invalid and empty.feedback == "No answer given: type one first."
    slip = verdict(card, "13.04 GB", seed)
    assert "would be right in GiB" in slip.feedback and slip.exact not in slip.feedback
    formula = verdict(cards["ring-formula"], "2*S")
    assert formula.feedback.startswith("Not quite: ") and "The answer" not in formula.feedback
    # A message that does not end with the answer is its own feedback.
    basic = verdict(cards["self-graded"], "")
    assert basic.feedback == basic.message


@pytest.mark.parametrize(
    ("answer", "ok"), [("1.5S", True), ("1.5 × S", True), ("1.5", True), ("2S", False)]
)
def test_label_unit(cards: dict[str, Card], answer: str, ok: bool) -> None:
    card = cards["ratio-of-s"]
    seed = seed_where(card, "n", 4)
    assert verdict(card, answer, seed).correct is ok


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("2(N-1)/N * S", True),
        ("2*(n-1)*S/n", True),
        ("2S - 2S/N", True),
        ("2 (N − 1) S / N", True),
        ("(N-1)/N*S", False),
        ("2*S", False),
        ("2*(N-1)/N*T", False),
        ("2*(N-1", False),
    ],
)
def test_formula_answers(cards: dict[str, Card], answer: str, ok: bool) -> None:
    assert verdict(cards["ring-formula"], answer).correct is ok


def test_choice_letters_follow_the_shuffled_order(cards: dict[str, Card]) -> None:
    card = cards["which-reduces"]
    for seed in range(10):
        inst = draw(card, seed)
        letters = [chr(ord("a") + inst.option_order.index(i)) for i in (1, 2)]
        assert check_answer(card, inst, ",".join(letters), None).correct is True
        assert check_answer(card, inst, letters[0], None).correct is False
        wrong = chr(ord("a") + inst.option_order.index(0))
        assert check_answer(card, inst, wrong, None).correct is False
        assert check_answer(card, inst, "z", None).correct is False


@pytest.mark.parametrize(
    ("answer", "attempts", "elapsed", "rating"),
    [
        ("13.04 GiB", 1, 5.0, Rating.GOOD),
        ("13.04 GiB", 2, 5.0, Rating.HARD),
        ("13.04 GiB", 1, 300.0, Rating.HARD),
        ("1 GiB", 1, 5.0, Rating.AGAIN),
    ],
)
def test_suggested_rating(
    cards: dict[str, Card], answer: str, attempts: int, elapsed: float, rating: Rating
) -> None:
    card = cards["gib-of-decimal-bytes"]
    seed = seed_where(card, "n", 14)
    assert verdict(card, answer, seed, attempts=attempts, elapsed_s=elapsed).suggested is rating


def test_worked_solution_uses_the_executable_result(cards: dict[str, Card]) -> None:
    card = cards["gib-of-decimal-bytes"]
    seed = seed_where(card, "n", 14)
    sol = solve(card, draw(card, seed), build_registry())
    assert "14,000,000,000 bytes" in sol.markdown()
    assert "{" not in sol.markdown()


def test_basic_card_is_self_graded(cards: dict[str, Card]) -> None:
    v = verdict(cards["self-graded"], "")
    assert v.correct is None and v.suggested is Rating.GOOD
    assert "Copies the root" in v.solution


@settings(max_examples=200)
@given(st.text(max_size=40))
def test_checker_never_raises_on_junk(text: str) -> None:
    collection = load_collection([FIXTURE], build_registry())
    for card in collection.cards:
        v = check_answer(card, draw(card, 1), text, build_registry())
        assert v.correct in (True, False, None)
