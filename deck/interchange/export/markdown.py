"""Export cards to one GitHub-flavoured Markdown document (GitHub and Obsidian render it).

Each card is a ``### card-id`` section: the question (and options), the hint and the
answer folded in ``<details>`` so a reader can test themselves, formula answers as math
(``$…$``) beside the typed form in a code span, checked facts with their sweeps, and
backticked card ids as links to those cards. Same cards and seed: byte-identical text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from deck.answers.checking import code_span
from deck.cards.model import Card, CardType
from deck.cards.registry import Registry
from deck.interchange.export.common import (
    RenderedCard,
    by_deck,
    link_card_ids,
    option_letter,
    render_card,
)

Href = Callable[[str], str | None]


def _folded(summary: str, body: str) -> list[str]:
    # The blank lines around the body let GitHub and Obsidian render its Markdown.
    return [f"<details><summary>{summary}</summary>", "", body.strip(), "", "</details>", ""]


def answer_line(r: RenderedCard) -> str:
    """``**Answer:** …``: a formula as ``$math$`` and as typed; other answers as text."""
    if r.latex:
        return f"**Answer:** ${r.latex}$ (type it as {code_span(r.answer)})"
    if r.card.type is CardType.FORMULA:
        return f"**Answer:** {code_span(r.answer)}"
    return f"**Answer:** {r.answer}"


def card_markdown(
    card: Card, seed: int, registry: Registry | None, href: Href | None = None
) -> str:
    """One card's section; ``href`` turns backticked ids of other cards into links."""
    r = render_card(card, seed, registry)
    link = (lambda text: link_card_ids(text, href)) if href else (lambda text: text)
    lines = [f"### {card.id}", "", link(r.question), ""]
    for i, opt in enumerate(r.options):
        lines.append(f"- ({option_letter(i)}) {opt}")
    if r.options:
        lines.append("")
    if card.parametric and card.params:
        lines += [f"*One instance (seed {seed}); every review draws new values.*", ""]
    if r.hint:
        lines += _folded("Hint", link(r.hint))
    body: list[str] = []
    if r.answer:
        body += [answer_line(r), ""]
    if r.solution:
        body += [link(r.solution), ""]
    if r.claims():
        body += ["**Checked facts** (`quizcoll check` runs these):", ""]
        body += [f"- ✔ {claim}" for claim in r.claims()]
        body.append("")
    if body:
        lines += _folded("Answer", "\n".join(body))
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
    link_for: Href | None = None,
) -> str:
    """The cards as one Markdown document, a section per deck.

    ``link_for(card_id)`` gives the link target of a card outside ``cards`` (another
    deck's file), or None; cards inside link to their own section.
    """
    decks = by_deck(cards)
    here = {c.id for c in cards}

    def href(card_id: str) -> str | None:
        if card_id in here:
            return f"#{card_id}"
        return link_for(card_id) if link_for else None

    out = [f"# {title}", "", "| deck | cards |", "|---|---:|"]
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
            out.append(card_markdown(card, seed, registry, href))
    return "\n".join(out).rstrip() + "\n"
