"""Placeholders: found and filled, LaTeX braces left alone."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from deck.cards.placeholders import fill, placeholders


def test_finds_names_not_latex() -> None:
    text = r"In $\frac{1}{N}$ with {n} ranks, x^{N}, \text{GiB}, {{literal}}, {result.steps} and {size}"
    assert placeholders(text) == ["n", "result.steps", "size"]


def test_fill() -> None:
    assert fill("{n} ranks send {{x}}", {"n": "8"}) == "8 ranks send {x}"
    assert fill("unknown {m} stays", {"n": "8"}) == "unknown {m} stays"
    assert fill(r"\frac{N-1}{N} for {n}", {"n": "4", "N": "X"}) == r"\frac{N-1}{N} for 4"


@given(st.text(max_size=80))
def test_fill_never_raises_and_is_identity_without_values(text: str) -> None:
    placeholders(text)
    assert fill(text, {}) == text.replace("{{", "{").replace("}}", "}")
