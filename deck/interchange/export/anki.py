"""Cards as Anki notes: one note type, decks ``ROOT::deck``, tags kept, math as MathJax.

A card with parameters becomes ``instances`` frozen notes (instance ``i`` drawn with seed
``seed + i``, each with its own worked answer, identical draws kept once); any other card
becomes one note. A note's GUID is derived from the card id (and the instance number), so
exporting again and importing into the same Anki collection updates the notes in place.
Card text is Markdown and becomes field HTML here; a formula answer is shown as
``\\(…\\)`` (MathJax, which every Anki renders) beside the form to type.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Sequence
from typing import Any

from deck.cards.model import Card
from deck.cards.registry import Registry
from deck.interchange.export.apkg import AnkiNote, NoteType, note_guid
from deck.interchange.export.common import RenderedCard, option_letter, render_card

DEFAULT_INSTANCES = 3  # frozen instances per parametric card: enough variety, few notes
MAX_INSTANCES = 100

FIELDS = ("Question", "Answer", "Worked answer", "Hint", "Source", "Card id", "Instance")

_FRONT = """<div class="question">{{Question}}</div>
{{#Hint}}<div class="hint">{{hint:Hint}}</div>{{/Hint}}"""
_BACK = """{{FrontSide}}
<hr id="answer">
<div class="answer">{{Answer}}</div>
{{#Worked answer}}<div class="worked">{{Worked answer}}</div>{{/Worked answer}}
<div class="meta">{{#Source}}{{Source}} · {{/Source}}<code>{{Card id}}</code>{{#Instance}} · {{Instance}}{{/Instance}}</div>"""
_CSS = """.card { font-family: sans-serif; font-size: 18px; text-align: left; max-width: 46em;
  margin: 0 auto; }
.answer { font-weight: bold; margin: .5em 0; }
.worked table { border-collapse: collapse; }
.worked td, .worked th { border: 1px solid #8888; padding: 2px 6px; }
.meta { color: #888; font-size: 13px; margin-top: 1em; }
code { font-size: 90%; }"""


def note_type(root: str) -> NoteType:
    """The note type every exported card uses, named after the collection ``root``."""
    return NoteType(f"{root} card", FIELDS, _FRONT, _BACK, _CSS)


@functools.cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    # Raw HTML in card text is escaped, not passed on: a card file from anywhere must not be
    # able to put script into someone's Anki.
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def markdown_html(text: str) -> str:
    """Card Markdown as HTML for an Anki field (raw HTML in it shows as text)."""
    return _markdown().render(text).strip() if text.strip() else ""


def _answer_html(r: RenderedCard) -> str:
    if r.latex:
        math = html.escape(r.latex, quote=False)
        return f"\\({math}\\)<br><code>{html.escape(r.answer)}</code>"
    if r.failed:
        return markdown_html(r.solution)
    return html.escape(r.answer)


def _question_markdown(r: RenderedCard) -> str:
    options = [f"- ({option_letter(i)}) {opt}" for i, opt in enumerate(r.options)]
    return "\n\n".join(p for p in (r.question, "\n".join(options)) if p)


def _worked_markdown(r: RenderedCard) -> str:
    parts = [] if r.failed else [r.solution]
    if r.claims():
        facts = "\n".join(f"- ✔ {c}" for c in r.claims())
        parts.append(f"**Checked facts**\n\n{facts}")
    return "\n\n".join(p for p in parts if p)


def _note(
    r: RenderedCard, root: str, index: int | None, count: int, registry_seed: int
) -> AnkiNote:
    card = r.card
    instance = (
        f"instance {index + 1} of {count} (seed {registry_seed})" if index is not None else ""
    )
    guid = note_guid(root, card.id) if index is None else note_guid(root, card.id, str(index))
    fields = (
        markdown_html(_question_markdown(r)),
        _answer_html(r),
        markdown_html(_worked_markdown(r)),
        markdown_html(r.hint),
        html.escape(card.source, quote=False),
        html.escape(card.id),
        instance,
    )
    return AnkiNote(guid, f"{root}::{card.deck}", fields, card.tags)


def anki_notes(
    cards: Sequence[Card],
    registry: Registry | None,
    *,
    instances: int = DEFAULT_INSTANCES,
    seed: int = 0,
    root: str = "cards",
    on_card: Callable[..., Any] | None = None,
) -> list[AnkiNote]:
    """The notes for ``cards``: ``instances`` per parametric card, one for the others."""
    if not 1 <= instances <= MAX_INSTANCES:
        raise ValueError(f"instances must be 1..{MAX_INSTANCES}, got {instances}")
    notes: list[AnkiNote] = []
    for done, card in enumerate(cards):
        if on_card is not None:
            on_card(done, len(cards), card)
        if not card.params:
            notes.append(_note(render_card(card, seed, registry), root, None, 1, seed))
            continue
        seen: set[tuple[str, str]] = set()
        for i in range(instances):
            r = render_card(card, seed + i, registry)
            if (r.question, r.answer) in seen:
                continue  # a small parameter space drew the same instance again
            seen.add((r.question, r.answer))
            notes.append(_note(r, root, i, instances, seed + i))
    return notes
