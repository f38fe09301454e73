"""Export a collection to Markdown (GitHub and Obsidian render it) or to the Obsidian
spaced-repetition plugin's card syntax.

Output is deterministic: the same cards and seed give byte-identical text. Parametric
cards show one worked instance (drawn with the seed and solved by their executable);
verify claims are listed as checked facts.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from deck.checking import CheckError, solve
from deck.instances import draw, render_front, render_options
from deck.model import Card, CardType, Claim
from deck.registry import Registry


class ExportFormat(enum.Enum):
    MARKDOWN = "markdown"
    OBSIDIAN = "obsidian"


def _by_deck(cards: Sequence[Card]) -> dict[str, list[Card]]:
    decks: dict[str, list[Card]] = {}
    for card in cards:
        decks.setdefault(card.deck, []).append(card)
    return {d: decks[d] for d in sorted(decks)}


def _sweep_text(claim: Claim) -> str:
    parts = []
    for p in claim.where:
        if p.choices is not None:
            values = ", ".join(str(c) for c in p.choices)
            parts.append(f"{p.name} ∈ {{{values}}}{' ' + p.unit if p.unit else ''}")
        elif p.range is not None:
            lo, hi = p.range
            parts.append(f"{p.name} = {lo:g}…{hi:g}{' ' + p.unit if p.unit else ''}")
    return f" (for {', '.join(parts)})" if parts else ""


def _answer_block(
    card: Card, seed: int, registry: Registry | None
) -> tuple[str, str, list[str], str]:
    """(question, short answer, options, worked solution) of the card's instance for ``seed``."""
    inst = draw(card, seed, registry)
    question = render_front(card, inst).strip()
    options = render_options(card, inst) if card.type is CardType.CHOICE else []
    try:
        sol = solve(card, inst, registry)
        return question, sol.text, options, sol.markdown()
    except CheckError as exc:
        return question, "", options, f"*(could not compute: {exc})*"


def card_markdown(card: Card, seed: int, registry: Registry | None) -> str:
    question, answer, options, solution = _answer_block(card, seed, registry)
    lines = [f"### {card.id}", "", question, ""]
    for i, opt in enumerate(options):
        lines.append(f"- ({chr(ord('a') + i)}) {opt}")
    if options:
        lines.append("")
    if card.parametric and card.params:
        lines += [f"*One instance (seed {seed}); every review draws new values.*", ""]
    if answer:
        shown = f"`{answer}`" if card.type is CardType.FORMULA else answer
        lines += [f"**Answer:** {shown}", ""]
    if solution:
        lines += [solution, ""]
    if card.verify:
        lines.append("**Checked facts** (`quizcoll check` runs these):")
        lines.append("")
        for claim in card.verify:
            lines.append(f"- ✔ {claim.text}{_sweep_text(claim)}")
        lines.append("")
    meta = [f"`{card.type.value}`"] + [f"`#{t}`" for t in card.tags]
    if card.source:
        meta.append(f"source: {card.source}")
    lines += [" · ".join(meta), ""]
    return "\n".join(lines)


def export_markdown(
    cards: Sequence[Card],
    registry: Registry | None,
    *,
    seed: int = 0,
    title: str = "quizcoll cards",
    on_card: Callable[..., Any] | None = None,
) -> str:
    """The whole collection as one GitHub-flavoured Markdown document."""
    decks = _by_deck(cards)
    out = [f"# {title}", ""]
    out.append("| deck | cards |")
    out.append("|---|---:|")
    for deck, dc in decks.items():
        out.append(f"| [{deck}](#deck-{deck}) | {len(dc)} |")
    out.append("")
    done = 0
    for deck, dc in decks.items():
        out += [f"## Deck: {deck}", ""]
        for card in dc:
            if on_card is not None:
                on_card(done, len(cards), card)
            done += 1
            out.append(card_markdown(card, seed, registry))
    return "\n".join(out).rstrip() + "\n"


def _obsidian_card(card: Card, seed: int, registry: Registry | None) -> str:
    question, answer, options, solution = _answer_block(card, seed, registry)
    q = [question] + [f"({chr(ord('a') + i)}) {opt}" for i, opt in enumerate(options)]
    a = [f"**{answer}**"] if answer else []
    if solution:
        a.append(solution)
    body = "\n".join(q) + "\n?\n" + "\n\n".join(a).strip()
    return f"<!-- {card.id} -->\n{body}"


def export_obsidian(
    cards: Sequence[Card],
    registry: Registry | None,
    *,
    seed: int = 0,
    on_card: Callable[..., Any] | None = None,
) -> dict[str, str]:
    """One note per deck in the Obsidian spaced-repetition plugin's multi-line syntax."""
    notes: dict[str, str] = {}
    done = 0
    for deck, dc in _by_deck(cards).items():
        parts = [f"#flashcards/{deck}", ""]
        for card in dc:
            if on_card is not None:
                on_card(done, len(cards), card)
            done += 1
            parts += [_obsidian_card(card, seed, registry), ""]
        notes[deck] = "\n".join(parts).rstrip() + "\n"
    return notes


def filter_deck(cards: Iterable[Card], deck: str | None) -> list[Card]:
    return [c for c in cards if deck is None or c.deck == deck]
