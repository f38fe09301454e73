"""Protocol and unit tests of the review-3 usability findings N15–N18
(notes/review-3/usability.md); the TUI ones are in test_tui_review3_usability.py."""

from __future__ import annotations

from pathlib import Path

import pytest

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
