"""Protocol and unit tests of the review-3 usability findings N15–N18
(notes/review-3/usability.md); the TUI ones are in test_tui_review3_usability.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from deck.answers.checking import check_answer
from deck.cards.instances import draw
from deck.cards.loader import load_text
from deck.cards.prose import Kind, unproven
from quizcoll.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # N17: the subtraction in 2(N-1) was read as the negative number '-1'
        ("2(N-1)", [(Kind.FORMULA, "2(N-1)")]),
        ("sends 2(N-1)/N·S bytes", [(Kind.FORMULA, "2(N-1)/N·S")]),
        ("N-1 steps.", [(Kind.FORMULA, "N-1")]),
        # N17: the MathJax delimiter \( was read as part of the formula '(x^2'
        (r"Formula \(x^2\)", [(Kind.FORMULA, "x^2")]),
        (r"\[x^2 + 1\]", [(Kind.FORMULA, "x^2 + 1")]),
        # what stays as it was: signs, ranges, units and hyphenated words
        ("costs -1 dB", [(Kind.NUMBER, "-1 dB")]),
        ("x = -1", [(Kind.NUMBER, "-1")]),
        ("a range 3-5", [(Kind.NUMBER, "3"), (Kind.NUMBER, "5")]),
        ("a 100 GB/s link", [(Kind.NUMBER, "100 GB/s")]),
        ("ring all-reduce 2·S", [(Kind.FORMULA, "2·S")]),
        ("the all-reduce of top-1 hits", []),
    ],
)
def test_imported_text_is_scanned_as_written(text: str, found: list[tuple[Kind, str]]) -> None:
    assert [(u.kind, u.text) for u in unproven(text)] == found


def test_anki_round_trip_gives_back_the_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """N18: quizcoll → Anki → quizcoll gave decks 'quizcoll-units', 'quizcoll-extra'."""
    pytest.importorskip("genanki")
    fixture = ROOT / "tests" / "fixtures" / "export" / "cards.yaml"
    apkg, back = tmp_path / "out.apkg", tmp_path / "back.yaml"
    export = ["export", "--format", "apkg", "--cards", str(fixture), "--instances", "1"]
    assert main([*export, "-o", str(apkg)]) == 0
    assert main(["import", str(apkg), "-o", str(back)]) == 0, capsys.readouterr().err
    original, _ = load_text(fixture.read_text(encoding="utf-8"), "cards.yaml")
    again, problems = load_text(back.read_text(encoding="utf-8"), "back.yaml")
    assert not problems
    assert {c.id: c.deck for c in again} == {c.id: c.deck for c in original}


# A node of 8 GPUs with 80 GB each, and the ring all-reduce's bytes per rank (Patarasuk & Yuan
# 2009: 2(N−1)/N·S) as a formula. Self-contained: the built-in cards are other engineers' work.
N15_CARDS = """
deck: n15
unproven: warn
cards:
  - id: node-memory
    type: numeric
    front: How much GPU memory has a node of {gpus} GPUs with {mem} each?
    back: "{answer}"
    params:
      gpus: {choices: [8]}
      mem: {choices: [80], unit: GB}
    answer: {expr: gpus * mem, unit: GB, tolerance: 0.1%}
  - id: ring-bytes
    type: formula
    front: Bytes each rank sends in a ring all-reduce over N ranks of an S-byte buffer?
    back: "{answer}"
    variables:
      N: {range: [2, 512], integer: true, meaning: ranks}
      S: {range: [1024, 1073741824], integer: true, meaning: bytes}
    answer: {formula: "2*(N-1)/N*S"}
"""


def _n15(card_id: str, answer: str):  # type: ignore[no-untyped-def]
    cards, problems = load_text(N15_CARDS, "n15.yaml")
    assert not problems, problems
    card = {c.id: c for c in cards}[card_id]
    return check_answer(card, draw(card, 0, None), answer, None)


@pytest.mark.parametrize(
    "answer",
    [
        "640 GB",
        "8*80 GB",  # N15: arithmetic was "unknown unit '*80 GB'"
        "8 × 80 GB",
        "(4+4)*80 GB",
        "2^3*80 GB",
        "1280/2 GB",
        "596.05 GiB",
        "596.05 Gi",  # N15: a binary prefix alone was "unknown unit 'Gi'"
        "640e9 B",
    ],
)
def test_numeric_answers_in_their_common_spellings(answer: str) -> None:
    verdict = _n15("node-memory", answer)
    assert not verdict.invalid and verdict.correct, verdict.feedback


def test_wrong_arithmetic_is_judged_on_its_result() -> None:
    verdict = _n15("node-memory", "8*40 GB")
    assert not verdict.invalid and not verdict.correct
    assert "8*40 GB = 320 GB" in verdict.feedback  # what was read, said back


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("640/0 GB", "divides by zero"),
        ("2^1000 GB", "exponent"),
        ("8*", ""),
        ("600-700 GB", "range"),  # a range, not 600 − 700 = −100 GB "of the wrong sign"
        ("600 – 700 GB", "range"),
    ],
)
def test_arithmetic_that_cannot_be_done_is_unreadable(answer: str, why: str) -> None:
    verdict = _n15("node-memory", answer)
    assert verdict.invalid and why in verdict.feedback


def test_a_difference_that_is_no_range_is_worked_out() -> None:
    assert not _n15("node-memory", "700-60 GB").invalid


@pytest.mark.parametrize(
    "answer", ["2*(N-1)/N*S bytes", "2*(N-1)/N*S B", "2*(N-1)*S/N bytes", "2*(N-1)/N*S"]
)
def test_a_unit_after_a_formula_is_set_aside(answer: str) -> None:
    """N15: "(N-1)/N*S bytes" was "unknown variable 'bytes'"."""
    verdict = _n15("ring-bytes", answer)
    assert not verdict.invalid and verdict.correct, verdict.feedback


def test_a_variable_after_a_formula_is_not_taken_for_a_unit() -> None:
    verdict = _n15("ring-bytes", "2*(N-1)/N S")  # S is the card's variable: "… times S"
    assert verdict.correct and "set aside" not in verdict.feedback
    assert not _n15("ring-bytes", "2*(N-1)/N s").correct  # the unit s is set aside: no S


@pytest.mark.parametrize(("batch", "said"), [(1, "1 KV cache of"), (8, "8 KV caches of")])
def test_explanations_count_in_words_not_with_parenthesised_plurals(batch: int, said: str) -> None:
    """N19: "1 KV cache(s)", "on 1 GPU(s)" in worked solutions."""
    from quizcoll.executables import build_registry

    registry = build_registry()
    ex = registry.get("serving.decode")
    args = ex.bind({"model": "llama-3.1-8b", "batch": batch})
    text = ex.explain(args, registry.call("serving.decode", args))
    assert said in text and "(s)" not in text
