"""Browse: one row per card with its review state, and the search language that filters them.

Rows sort by file order, due time, lapses, stability or id (:data:`SORTS`); the
preview lists a card's stored reviews (:func:`history_markdown`).

A query is words (all must appear in the id, front, deck or tags) and filters:
``deck:NAME``, ``tag:NAME``, ``type:numeric``, ``is:due``, ``is:new``, ``is:suspended``,
``is:leech``. Matching is case-insensitive.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from deck.cards.model import Card
from deck.review.store import CardRecord, Review


@dataclass(frozen=True)
class BrowseRow:
    card: Card
    record: CardRecord | None

    @property
    def suspended(self) -> bool:
        return bool(self.record and self.record.suspended)

    @property
    def leech(self) -> bool:
        return bool(self.record and self.record.leech)

    @property
    def new(self) -> bool:
        return self.record is None or self.record.state.is_new

    def due_at(self) -> datetime | None:
        return None if self.record is None else self.record.state.due

    def is_due(self, now: datetime) -> bool:
        due = self.due_at()
        return due is not None and due <= now and not self.suspended

    def haystack(self) -> str:
        c = self.card
        return " ".join((c.id, c.deck, c.front, " ".join(c.tags), c.type.value)).lower()


def rows(cards: Sequence[Card], records: Mapping[str, CardRecord]) -> list[BrowseRow]:
    return [BrowseRow(c, records.get(c.id)) for c in cards]


def matches(row: BrowseRow, query: str, now: datetime) -> bool:
    """Whether ``row`` satisfies every term of ``query``."""
    text = row.haystack()
    for term in query.lower().split():
        key, sep, value = term.partition(":")
        if sep and key == "deck":
            if row.card.deck.lower() != value:
                return False
        elif sep and key == "tag":
            if value not in (t.lower() for t in row.card.tags):
                return False
        elif sep and key == "type":
            if row.card.type.value != value:
                return False
        elif sep and key == "is":
            flags = {
                "due": row.is_due(now),
                "new": row.new,
                "suspended": row.suspended,
                "leech": row.leech,
            }
            if not flags.get(value, False):
                return False
        elif term not in text:
            return False
    return True


def filter_rows(all_rows: Sequence[BrowseRow], query: str, now: datetime) -> list[BrowseRow]:
    return [r for r in all_rows if matches(r, query, now)]


def _due_key(row: BrowseRow, now: datetime) -> tuple[int, datetime]:
    due = row.due_at()
    # suspended last, new after every scheduled card, the rest soonest first
    return (2 if row.suspended else 1 if due is None else 0, due or now)


SORTS: dict[str, Callable[[Sequence[BrowseRow], datetime], list[BrowseRow]]] = {
    "file order": lambda rs, now: list(rs),
    "due": lambda rs, now: sorted(rs, key=lambda r: _due_key(r, now)),
    "lapses": lambda rs, now: sorted(rs, key=lambda r: -(r.record.state.lapses if r.record else 0)),
    "stability": lambda rs, now: sorted(
        rs, key=lambda r: (r.record.state.stability or 0.0) if r.record else 0.0
    ),
    "id": lambda rs, now: sorted(rs, key=lambda r: r.card.id),
}

HISTORY_SHOWN = 10


def count_line(shown: int, total: int, sort: str, width: int) -> str:
    """The line above the table: how many cards match, the sort, and the keys, in the longest
    form that fits ``width`` columns (a cut line lost "L the leeches" at 80 columns)."""
    count = f"{shown} of {total} cards"
    forms = (
        f"{count} · sorted by {sort} (s) · ! suspends or unsuspends · L the leeches",
        f"{count} · sorted by {sort} (s) · ! suspend · L leeches",
        f"{count} · sorted by {sort} (s)",
        f"{count} · {sort}",
    )
    return next((f for f in forms if len(f) <= width), count)


def history_markdown(reviews: Sequence[Review]) -> str:
    """A card's reviews, newest first, as a Markdown table (at most :data:`HISTORY_SHOWN`)."""
    if not reviews:
        return "**History:** never reviewed"
    lines = [
        f"**History:** {len(reviews)} review(s)",
        "",
        "| when (UTC) | rating | answer | |",
        "|---|---|---|---|",
    ]
    for r in list(reversed(reviews))[:HISTORY_SHOWN]:
        verdict = {True: "right", False: "wrong", None: "self-graded"}[r.correct]
        notes = [verdict] + (["hint"] if r.hinted else []) + (["practice"] if r.practice else [])
        answer = (r.answer or "").replace("|", "\\|").replace("`", "'")
        lines.append(
            f"| {r.reviewed_at:%Y-%m-%d %H:%M} | {r.rating.name.capitalize()} | "
            f"`{answer}` | {', '.join(notes)} |"
            if answer
            else f"| {r.reviewed_at:%Y-%m-%d %H:%M} | {r.rating.name.capitalize()} | | "
            f"{', '.join(notes)} |"
        )
    return "\n".join(lines)
