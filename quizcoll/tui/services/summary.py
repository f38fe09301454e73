"""What the home, browse and stats screens show, read from the store in one go."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from deck.review.queue import EntryKind, build_queue
from deck.review.scheduler import Config
from deck.review.stats import DeckSeries, Stats, compute_stats, deck_series
from deck.review.store import CardRecord, Review, Store

if TYPE_CHECKING:
    from deck.cards.model import Card
    from quizcoll.compiled import CardRef


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
    next_due: datetime | None = None  # the earliest card not due yet (learning or review)

    @property
    def left_today(self) -> int:
        return self.due_now + self.new_now


def home_summary(
    store: Store,
    cards: Sequence[Card] | Sequence[CardRef],
    config: Config,
    now: datetime,
    tz: tzinfo | None,
) -> HomeSummary:
    """Per-deck counts from today's queue (limits applied) and today's progress. Only the
    cards' ids, decks and order are read, so the card index gives the same counts as the
    collection (before it is loaded)."""
    queue = build_queue(cards, store, config, now, tz=tz)
    stats = compute_stats(store, cards, config, now, tz=tz, queue=queue)  # the same queue
    new = Counter(e.card.deck for e in queue if e.kind is EntryKind.NEW)
    # Learning cards within the learn-ahead window are not due yet: they do not count.
    due = Counter(e.card.deck for e in queue if e.due_now)
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
        next_due=next_due(store, cards, now),
    )


def next_due(
    store: Store, cards: Sequence[Card] | Sequence[CardRef], now: datetime
) -> datetime | None:
    """When the next card of ``cards`` that is not due yet comes due (None: none is waiting)."""
    ids = {c.id for c in cards}
    waiting = [
        r.state.due
        for r in store.cards().values()
        if r.card_id in ids
        and not r.suspended
        and not r.orphaned
        and r.state.due is not None
        and r.state.due > now
    ]
    return min(waiting, default=None)


@dataclass(frozen=True)
class StatsView:
    """The stats screen's data: the collection's statistics and each deck's plotted series."""

    stats: Stats
    decks: tuple[tuple[str, DeckSeries], ...]

    @property
    def deck_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.decks)

    def series(self, deck: str | None) -> DeckSeries:
        """The plotted figures of ``deck``; ``None`` (or a deck gone since) is all decks."""
        found = dict(self.decks).get(deck) if deck is not None else None
        if found is not None:
            return found
        s = self.stats
        return DeckSeries(
            reviews=s.reviews,
            practice_reviews=s.practice_reviews,
            retention=s.retention,
            mature_reviews=s.mature_reviews,
            reviews_per_day=s.reviews_per_day,
            forecast=s.forecast,
        )


def stats_view(
    store: Store, cards: Sequence[Card], config: Config, now: datetime, tz: tzinfo | None
) -> StatsView:
    """Everything the stats screen plots, in one call on the database thread."""
    return StatsView(
        stats=compute_stats(store, cards, config, now, tz=tz),
        decks=deck_series(store, cards, config, now, tz=tz),
    )


def card_records(store: Store) -> dict[str, CardRecord]:
    return store.cards()


def set_suspended(store: Store, card: Card, suspended: bool) -> CardRecord:
    return store.suspend(card.id, suspended, deck=card.deck)


def card_history(store: Store, card_id: str) -> list[Review]:
    return store.reviews(card_id)
