"""What the home and browse screens show, read from the store in one go."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from deck.model import Card
from deck.queue import EntryKind, build_queue
from deck.scheduler import Config
from deck.stats import Stats, compute_stats
from deck.store import CardRecord, Store


@dataclass(frozen=True)
class DeckRow:
    """One deck on the home screen: what a review would show today, and its size."""

    name: str
    new: int
    due: int
    total: int
    suspended: int


@dataclass(frozen=True)
class HomeSummary:
    decks: tuple[DeckRow, ...]
    reviews_today: int
    streak_days: int
    retention: float | None
    due_now: int
    new_now: int

    @property
    def left_today(self) -> int:
        return self.due_now + self.new_now


def home_summary(
    store: Store, cards: Sequence[Card], config: Config, now: datetime, tz: tzinfo | None
) -> HomeSummary:
    """Per-deck counts from today's queue (limits applied) and today's progress."""
    stats = compute_stats(store, cards, config, now, tz=tz)
    queue = build_queue(cards, store, config, now, tz=tz)
    new = Counter(e.card.deck for e in queue if e.kind is EntryKind.NEW)
    due = Counter(e.card.deck for e in queue if e.kind is not EntryKind.NEW)
    counts = dict(stats.decks)
    names = sorted({c.deck for c in cards})
    rows = tuple(
        DeckRow(
            name,
            new.get(name, 0),
            due.get(name, 0),
            counts[name].total if name in counts else 0,
            counts[name].suspended if name in counts else 0,
        )
        for name in names
    )
    return HomeSummary(
        decks=rows,
        reviews_today=stats.reviews_today,
        streak_days=stats.streak_days,
        retention=stats.retention,
        due_now=sum(due.values()),
        new_now=sum(new.values()),
    )


def full_stats(
    store: Store, cards: Sequence[Card], config: Config, now: datetime, tz: tzinfo | None
) -> Stats:
    return compute_stats(store, cards, config, now, tz=tz)


def card_records(store: Store) -> dict[str, CardRecord]:
    return store.cards()


def set_suspended(store: Store, card: Card, suspended: bool) -> CardRecord:
    return store.suspend(card.id, suspended, deck=card.deck)
