"""Protocol and unit tests of the review-3 usability findings N15–N18
(notes/review-3/usability.md); the TUI ones are in test_tui_review3_usability.py."""

from __future__ import annotations

import pytest

from deck.cards.prose import Kind, unproven


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
