"""Export cards as notes for the Obsidian spaced-repetition plugin (multi-line card syntax).

A card is its question lines, a line ``?``, the answer lines and an end-marker line
(``+++``)::

    #flashcards/units

    How many GiB are 54 × 10^9 bytes?
    ?
    **Answer:** 50.29 GiB (54.00 GB)

    the worked answer, blank lines and all
    +++

The plugin ends a multi-line card at a blank line unless its setting "Characters denoting
the end of clozes and multiline flashcards" is set; with it set to ``+++`` every answer
survives whole, and each note says so at its end. The question may not contain a blank
line (the plugin reads one as the end of the question), so its paragraphs are joined.
A note holding several decks tags each question with its deck (``#flashcards/DECK``),
which the plugin reads as that card's deck.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from deck.cards.model import Card
from deck.cards.registry import Registry
from deck.interchange.export.common import RenderedCard, by_deck, option_letter, render_card
from deck.interchange.export.markdown import answer_line

END_MARKER = "+++"
TAG_ROOT = "flashcards"
SETTING_NOTE = (
    f"Each card above ends at a line `{END_MARKER}`. In the Spaced Repetition plugin's settings, "
    f'set "Characters denoting the end of clozes and multiline flashcards" to `{END_MARKER}`; '
    "with the default (a blank line) answers are cut after their first paragraph."
)
_BLANK_RUN = re.compile(r"\n[ \t]*\n+")


def _safe_line(line: str) -> str:
    """A line the plugin cannot misread: ``::`` would make an inline card (a zero-width
    space keeps it from matching), a lone ``?``/``??`` a separator, ``+++`` the card's end."""
    line = line.replace("::", ":\u200b:")
    if line.strip() in ("?", "??", END_MARKER):
        return "\\" + line.lstrip()
    return line


def _question(r: RenderedCard, deck_tag: str) -> list[str]:
    text = _BLANK_RUN.sub("\n", r.question.strip())
    lines = [_safe_line(line) for line in text.splitlines() if line.strip()]
    if deck_tag:
        lines[0] = f"{deck_tag} {lines[0]}"
    lines += [f"- ({option_letter(i)}) {_safe_line(opt)}" for i, opt in enumerate(r.options)]
    if r.hint:
        hint = " ".join(line.strip() for line in r.hint.splitlines() if line.strip())
        lines.append(f"<details><summary>Hint</summary>{_safe_line(hint)}</details>")
    return lines


def _answer(r: RenderedCard) -> list[str]:
    parts = []
    if r.answer:
        parts.append(answer_line(r))
    if r.solution:
        parts.append(r.solution)
    meta = [f"`{r.card.type.value}`"] + [f"`#{t}`" for t in r.card.tags]
    meta.append(f"card `{r.card.id}`")
    parts.append(" · ".join(meta))
    text = "\n\n".join(parts).strip()
    return [_safe_line(line) for line in text.splitlines()]


def obsidian_card(card: Card, seed: int, registry: Registry | None, deck_tag: str = "") -> str:
    """One card in the plugin's multi-line syntax, closed by the end marker."""
    r = render_card(card, seed, registry)
    return "\n".join([*_question(r, deck_tag), "?", *_answer(r), END_MARKER])


def _note(header: str, bodies: list[str]) -> str:
    return "\n\n".join([header, *bodies, "---", SETTING_NOTE]) + "\n"


def export_obsidian(
    cards: Sequence[Card],
    registry: Registry | None,
    *,
    seed: int = 0,
    on_card: Callable[..., Any] | None = None,
) -> dict[str, str]:
    """One note per deck: deck name → note text."""
    notes: dict[str, str] = {}
    done = 0
    for deck, dc in by_deck(cards).items():
        bodies = []
        for card in dc:
            if on_card is not None:
                on_card(done, len(cards), card)
            done += 1
            bodies.append(obsidian_card(card, seed, registry))
        notes[deck] = _note(f"#{TAG_ROOT}/{deck}", bodies)
    return notes


def export_obsidian_note(
    cards: Sequence[Card],
    registry: Registry | None,
    *,
    seed: int = 0,
    on_card: Callable[..., Any] | None = None,
) -> str:
    """Every card in one note; with several decks each question carries its deck's tag."""
    decks = by_deck(cards)
    if len(decks) == 1:
        return next(iter(export_obsidian(cards, registry, seed=seed, on_card=on_card).values()))
    bodies = []
    done = 0
    for deck, dc in decks.items():
        for card in dc:
            if on_card is not None:
                on_card(done, len(cards), card)
            done += 1
            bodies.append(obsidian_card(card, seed, registry, f"#{TAG_ROOT}/{deck}"))
    return _note(f"#{TAG_ROOT}", bodies)
