"""Named mistakes: the engine's unit slips, the subject's detectors, cards' own mistakes:, and
the ratings they suggest."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from deck.answers.checking import Solution, Verdict, check_answer, solve
from deck.answers.mistakes import UNIT_DETECTORS, FactorDetector, detect
from deck.cards.instances import draw
from deck.cards.loader import load_collection
from deck.cards.loader.mistakes import MISTAKE_KEYS
from deck.cards.model import Card, CardType, MistakeKind, Rating
from deck.cards.registry import Registry
from deck.formula.equivalence import equivalent
from quizcoll.collection import load
from quizcoll.executables.mistakes import DETECTORS

COLLECTION, REGISTRY = load()
CARDS = COLLECTION.by_id()


def grade(card_id: str, answer: str | Callable[[Solution], str], seed: int = 1) -> Verdict:
    card = CARDS[card_id]
    instance = draw(card, seed, REGISTRY)
    if callable(answer):
        answer = answer(solve(card, instance, REGISTRY))
    return check_answer(card, instance, answer, REGISTRY)


def times(factor: float, unit: str = "B") -> Callable[[Solution], str]:
    """The exact answer times ``factor``, written in base units."""
    return lambda sol: f"{sol.value * factor!r} {unit}"  # type: ignore[operator]


# ----------------------------------------------------------------------------- the subject


@pytest.mark.parametrize(
    ("card_id", "answer", "mistake", "rating"),
    [
        # the study notes' three errors, on the cards they concern
        ("ring-reducescatter-bytes-per-rank", times(2), "all-reduce-volume", Rating.AGAIN),
        ("ring-reducescatter-bytes-formula", "2(N-1)/N S", "all-reduce-volume", Rating.AGAIN),
        ("reducescatter-traffic-seed-mistake", None, "all-reduce-volume", Rating.AGAIN),
        ("weights-in-gib-strict", "13 G", "gb-vs-gib", Rating.HARD),
        ("weights-in-gib-strict", "13 GB", "gb-vs-gib", Rating.HARD),
        ("gb-vs-gib-four-g-mistake", None, "gb-vs-gib", Rating.HARD),
        ("kv-cache-linear-not-quadratic", None, "kv-cache-quadratic", Rating.AGAIN),
        # the subject's classic slips
        ("ring-allgather-bytes-per-rank", times(2), "all-reduce-volume", Rating.AGAIN),
        ("ring-allreduce-bytes-formula", "2*S", "n-minus-one-over-n-dropped", Rating.AGAIN),
        ("tp-bytes-per-step-formula", "16 L b s h", "n-minus-one-over-n-dropped", Rating.AGAIN),
        ("ring-allreduce-busbw", times(2, "B/s"), "both-directions", Rating.AGAIN),
        ("ring-allreduce-time", times(0.5, "s"), "both-directions", Rating.AGAIN),
        ("kv-cache-size", times(0.5), "kv-counted-once", Rating.AGAIN),
        ("kv-bytes-per-token-formula", "L kv d b", "kv-counted-once", Rating.AGAIN),
        ("training-model-states", times(0.25), "optimizer-states-forgotten", Rating.AGAIN),
        ("training-model-states", times(0.75), "fp32-master-forgotten", Rating.AGAIN),
        ("zero1-per-gpu-formula", "4P", "optimizer-states-forgotten", Rating.AGAIN),
        ("zero3-per-gpu-formula", "12 P/N", "fp32-master-forgotten", Rating.AGAIN),
        # the engine's unit slips
        ("ring-allreduce-busbw", times(1 / 8, "B/s"), "bits-vs-bytes", Rating.HARD),
        ("ring-allreduce-time", times(1000, "s"), "unit-prefix", Rating.HARD),
        ("weights-bytes-by-dtype", times(2**30 / 1e9), "gb-vs-gib", Rating.HARD),
        (
            "ring-allreduce-busbw",
            times(1.024**3, "B/s"),
            "decimal-vs-binary-bandwidth",
            Rating.HARD,
        ),
    ],
)
def test_the_verdict_names_the_mistake(
    card_id: str, answer: str | Callable[[Solution], str] | None, mistake: str, rating: Rating
) -> None:
    card = CARDS[card_id]
    if answer is None:  # a choice card: its option for this mistake, by its letter
        spec = next(m for m in card.mistakes if m.id == mistake)
        order = draw(card, 1, REGISTRY).option_order
        answer = chr(ord("a") + order.index(spec.option))
    verdict = grade(card_id, answer)
    assert verdict.correct is False and not verdict.invalid
    assert verdict.mistake is not None and verdict.mistake.id == mistake
    assert verdict.mistake.message in verdict.message
    assert verdict.suggested is rating


def test_grouped_query_attention_ignored() -> None:
    from quizcoll.memory.catalog import load_model

    card = CARDS["kv-bytes-per-token-by-model"]
    named = 0
    for seed in range(12):
        instance = draw(card, seed, REGISTRY)
        sol = solve(card, instance, REGISTRY)
        config = load_model(sol.args["model"])  # type: ignore[index]
        ratio = config.num_heads / config.num_kv_heads
        verdict = check_answer(card, instance, f"{sol.value * ratio!r} B", REGISTRY)  # type: ignore[operator]
        if ratio == 1:  # multi-head attention: the answer itself, not a mistake
            assert verdict.correct is True
            continue
        assert verdict.mistake is not None and verdict.mistake.id == "gqa-ignored"
        assert f"{config.num_kv_heads} key/value heads" in verdict.mistake.message
        named += 1
    assert named >= 3


def test_the_all_reduce_message_quotes_the_correct_volume() -> None:
    verdict = grade("ring-reducescatter-bytes-formula", "2*(N-1)/N*S")
    assert verdict.mistake is not None
    assert "That is the all-reduce volume" in verdict.mistake.message
    assert "(N−1)/N·S" in verdict.mistake.message


def test_a_bare_g_is_not_accepted_where_the_card_insists_on_a_unit() -> None:
    decimal = grade("weights-in-gib-strict", "13 G")
    assert "4 G" in decimal.feedback and "GiB" in decimal.feedback
    binary = grade("weights-in-gib-strict", "12.11 G")
    assert binary.correct is False and binary.mistake is not None
    assert binary.mistake.id == "bare-prefix" and binary.suggested is Rating.HARD
    assert grade("weights-in-gib-strict", "12.11 GiB").correct is True


def test_detectors_stay_where_they_apply() -> None:
    # ×2 on an all-reduce card is not "the all-reduce volume", nor on a memory card.
    twice = grade("ring-allreduce-bytes-per-rank", times(2))
    assert twice.mistake is None or twice.mistake.id != "all-reduce-volume"
    assert grade("kv-cache-size", times(2)).mistake is None
    # Units slips are about physical units: a count off by 8 is just wrong.
    steps = grade("ring-allreduce-steps", lambda sol: str(sol.value * 8))  # type: ignore[operator]
    assert steps.mistake is None and steps.suggested is Rating.AGAIN


def test_a_right_answer_names_no_mistake() -> None:
    for card in COLLECTION.cards:
        if card.type not in (CardType.NUMERIC, CardType.FORMULA):
            continue
        instance = draw(card, 2, REGISTRY)
        sol = solve(card, instance, REGISTRY)
        verdict = check_answer(card, instance, sol.typed, REGISTRY)
        assert verdict.correct is True, (card.id, sol.typed, verdict.message)
        assert verdict.mistake is None


def test_declared_mistakes_are_not_the_answer() -> None:
    """A card's mistake that equals its answer would turn a right answer into a wrong one."""
    for card in COLLECTION.cards:
        for spec in card.mistakes:
            if spec.option is not None:
                assert spec.option not in card.correct
            elif spec.formula is not None and card.type is CardType.FORMULA:
                assert card.answer is not None and card.answer.formula is not None
                from deck.formula import parse
                from deck.formula.equivalence import substitute

                wrong = substitute(parse(spec.formula), {"answer": parse(card.answer.formula)})
                assert not equivalent(card.answer.formula, wrong, card.variables), card.id
            else:
                assert spec.factor != 1


def test_the_registry_holds_the_subjects_detectors() -> None:
    assert [d.id for d in REGISTRY.detectors] == [d.id for d in DETECTORS]
    registry = Registry()
    registry.add_detector(DETECTORS[0])
    with pytest.raises(ValueError, match="registered twice"):
        registry.add_detector(DETECTORS[0])


def test_detect_order_card_then_registered_then_units() -> None:
    card = CARDS["ring-allreduce-busbw"]
    instance = draw(card, 1, REGISTRY)
    sol = solve(card, instance, REGISTRY)
    from deck.answers.mistakes import Attempt

    attempt = Attempt(card, instance, sol, "x", (sol.value / 8,), "B/s")  # type: ignore[operator]
    mine = FactorDetector("mine", "registered first", (Fraction(1, 8),))
    assert detect(attempt, [mine]).id == "mine"  # type: ignore[union-attr]
    assert detect(attempt).id == "bits-vs-bytes"  # type: ignore[union-attr]
    assert {d.id for d in UNIT_DETECTORS} >= {"gb-vs-gib", "bits-vs-bytes", "unit-prefix"}


# ----------------------------------------------------------------------------- card files

CARD_FILE = """\
cards:
  - id: doubled
    type: numeric
    front: "{n} doubled?"
    params: {n: [2, 4]}
    answer: {expr: "n*2"}
    mistakes:
      - {id: halved, message: "That is half of it.", factor: 0.5, kind: units}
      - {message: "That is n squared.", formula: "n^2 + answer - answer"}
  - id: pick
    type: choice
    front: Which?
    options: [right, wrong]
    correct: 0
    shuffle: false
    mistakes:
      - {id: the-wrong-one, message: "Not that one.", option: 1, tag: classic}
  - id: f
    type: formula
    front: N plus one?
    variables: {N: {range: [1, 100], integer: true}}
    answer: {formula: "N + 1"}
    mistakes:
      - {id: off-by-one, message: "One short.", formula: "answer - 1"}
"""

BAD_FILE = """\
cards:
  - id: t1
    type: numeric
    front: "x {n}"
    params: {n: [2, 4]}
    answer: {expr: "n*2"}
    mistakes:
      - {message: "counted once", factor: 0.5, kind: units}
      - {id: Bad_id, message: "x", factor: 1}
      - {message: "y", formula: "answer * q"}
      - {message: "z", option: 1}
      - {message: "w", factor: 2, formula: "n"}
      - "text"
      - {message: "v", factor: 2, kind: typo}
      - {message: "", factor: 3, colour: red}
  - id: t2
    type: choice
    front: q
    options: [a, b, c]
    correct: 0
    mistakes:
      - {message: "a", option: 0}
      - {message: "a", option: 7}
      - {message: "a", factor: 2}
      - {id: same, message: "a", option: 1}
      - {id: same, message: "b", option: 2}
  - id: t3
    type: basic
    front: q
    mistakes: []
"""


def _file(tmp_path: Path, text: str) -> list[Card]:
    path = tmp_path / "cards.yaml"
    path.write_text(text, encoding="utf-8")
    collection = load_collection([path], REGISTRY)
    assert not collection.problems, [p.format() for p in collection.problems]
    return list(collection.cards)


def test_cards_declare_their_mistakes(tmp_path: Path) -> None:
    doubled, pick, f = _file(tmp_path, CARD_FILE)
    half = check_answer(doubled, draw(doubled, 0), str(draw(doubled, 0).values["n"]), None)
    assert half.mistake is not None and half.mistake.id == "halved"
    assert half.suggested is Rating.HARD and half.mistake.kind is MistakeKind.UNITS
    seed = next(k for k in range(50) if draw(doubled, k).values["n"] == 4)
    squared = check_answer(doubled, draw(doubled, seed), "16", None)  # n² where 2n is right
    assert squared.mistake is not None and squared.mistake.id == "mistake-2"  # default id
    assert squared.suggested is Rating.AGAIN  # a concept, by default
    wrong = check_answer(pick, draw(pick, 0), "b", None)
    assert wrong.mistake is not None and (wrong.mistake.id, wrong.mistake.tag) == (
        "the-wrong-one",
        "classic",
    )
    short = check_answer(f, draw(f, 0), "N", None)
    assert short.mistake is not None and short.mistake.id == "off-by-one"
    assert short.feedback == "Not quite. One short."


def test_bad_mistakes_are_reported_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_FILE, encoding="utf-8")
    problems = [p.format() for p in load_collection([path], REGISTRY).problems]
    expected = [
        ":9:14: card 't1': mistakes[1].id: must be lowercase letters, digits and '-'",
        ":9:44: card 't1': mistakes[1].factor: expected a positive number other than 1",
        ":10:33: card 't1': mistakes[2].formula: unknown name(s) q; known: answer, n",
        ":11:32: card 't1': mistakes[3].option: only choice cards have options",
        ":12:9: card 't1': mistakes[4]: needs exactly one of factor, formula or option",
        ":13:9: card 't1': mistakes[5]: expected a mapping",
        ":14:41: card 't1': mistakes[6].kind: expected units or concept, found 'typo'",
        ":15:19: card 't1': mistakes[7].message: is empty",
        ":15:34: card 't1': mistakes[7].colour: unknown key",
        ":22:32: card 't2': mistakes[0].option: option 0 is a correct option, not a mistake",
        ":23:32: card 't2': mistakes[1].option: expected an option index 0..2",
        ":24:32: card 't2': mistakes[2].factor: choice cards name a wrong option",
        ":26:14: card 't2': mistakes[4].id: duplicate id",
        ":30:15: card 't3': mistakes: basic cards are self-graded",
    ]
    for line in expected:
        assert any(line in p for p in problems), (line, problems)
    assert all(p.startswith(str(path)) for p in problems)


def test_the_schema_knows_the_mistake_keys() -> None:
    import json

    schema = json.loads(
        (Path(__file__).resolve().parent.parent / "deck" / "cards" / "card.schema.json").read_text()
    )
    assert set(schema["$defs"]["mistake"]["properties"]) == set(MISTAKE_KEYS)
