"""Learner-visible text stands on its own: it never points at notes the learner has not seen
(review-3: 87 places said "the notes" or "study notes"), and seed mistakes say "a common slip"."""

from __future__ import annotations

import re

from quizcoll.collection import load

_NOTES = re.compile(r"\bnotes\b", re.I)
_ALLOWED = re.compile(r"release notes", re.I)


def _texts(card):  # type: ignore[no-untyped-def]
    yield "front", card.front
    yield "back", card.back
    yield "hint", card.hint
    yield "source", card.source
    for i, opt in enumerate(card.options):
        yield f"options[{i}]", opt
    for i, m in enumerate(card.mistakes):
        yield f"mistakes[{i}]", m.message
    for i, c in enumerate(card.verify):
        yield f"verify[{i}]", c.text or ""


def test_no_learner_text_mentions_the_notes() -> None:
    collection, _ = load()
    bad = [
        f"{card.id} {field}"
        for card in collection.cards
        for field, text in _texts(card)
        if _NOTES.search(_ALLOWED.sub("", text or ""))
    ]
    assert bad == []
