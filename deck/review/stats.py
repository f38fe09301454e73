"""Review statistics computed from the store: what ``quizcoll stats`` reports.

- reviews per day (the last 30 review days),
- true retention: the share of passing reviews (Hard, Good or Easy) among scheduled
  reviews of mature cards (in review with a scheduled interval of at least 21 days, as
  Anki defines maturity); ``None`` until there is such a review,
- a 30-day due forecast (day 0 includes everything overdue),
- the streak: consecutive review days with at least one review, ending today (or
  yesterday, when today has no review yet),
- per-deck counts, the leeches, and the average retrievability of the cards seen;
- :func:`deck_series`: the plotted figures (reviews per day, retention, forecast) of each
  deck, every card counted in the deck it belongs to now.

Days are review days (see :mod:`deck.review.queue`); the clock and time zone are passed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from deck.cards.rating import Rating
from deck.review.queue import QueueEntry, build_queue, day_bounds, review_day
from deck.review.scheduler import Config, Phase, Scheduler, utc
from deck.review.store import CardRecord, Review, Store

if TYPE_CHECKING:
    from deck.cards.model import Card

MATURE_INTERVAL = timedelta(days=21)
FORECAST_DAYS = 30
HISTORY_DAYS = 30


@dataclass(frozen=True)
class DeckCounts:
    """Card counts of one deck. ``new`` counts collection cards never reviewed; ``due`` the
    cards a review would show now (the home screen's count: daily limit applied, learning
    steps not yet due left out); ``due_today`` every card due by the end of the day."""

    total: int = 0
    new: int = 0
    learning: int = 0
    review: int = 0
    due: int = 0
    suspended: int = 0
    leeches: int = 0
    orphaned: int = 0
    due_today: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Stats:
    """Everything ``quizcoll stats`` prints; :meth:`to_dict` is the ``--json`` document."""

    reviews: int
    practice_reviews: int
    reviews_today: int
    cards_seen: int
    due_today: int  # every card due by the end of the review day (learning steps included)
    new_today: int
    retention: float | None
    mature_reviews: int
    streak_days: int
    average_retrievability: float | None
    reviews_per_day: tuple[tuple[date, int], ...]
    forecast: tuple[int, ...]
    leeches: tuple[str, ...]
    decks: tuple[tuple[str, DeckCounts], ...] = field(default=())
    due_now: int = 0  # what a review shows now: the home screen's "due" (see DeckCounts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviews": self.reviews,
            "practice_reviews": self.practice_reviews,
            "reviews_today": self.reviews_today,
            "cards_seen": self.cards_seen,
            "due_today": self.due_today,
            "due_now": self.due_now,
            "new_today": self.new_today,
            "retention": self.retention,
            "mature_reviews": self.mature_reviews,
            "streak_days": self.streak_days,
            "average_retrievability": self.average_retrievability,
            "reviews_per_day": [
                {"date": d.isoformat(), "reviews": n} for d, n in self.reviews_per_day
            ],
            "forecast": list(self.forecast),
            "leeches": list(self.leeches),
            "decks": {name: counts.to_dict() for name, counts in self.decks},
        }


@dataclass(frozen=True)
class DeckSeries:
    """One deck's share of the plotted statistics; summed over decks they give the totals."""

    reviews: int
    practice_reviews: int
    retention: float | None
    mature_reviews: int
    reviews_per_day: tuple[tuple[date, int], ...]
    forecast: tuple[int, ...]


def _history(days: Counter[date], today: date) -> tuple[tuple[date, int], ...]:
    return tuple(
        (today - timedelta(days=i), days.get(today - timedelta(days=i), 0))
        for i in range(HISTORY_DAYS - 1, -1, -1)
    )


def _mature(reviews: Sequence[Review]) -> list[Review]:
    """The scheduled reviews of mature cards: what true retention is measured on."""
    return [
        r
        for r in reviews
        if not r.practice
        and r.before.state.phase is Phase.REVIEW
        and (r.before.state.interval or timedelta(0)) >= MATURE_INTERVAL
    ]


def _retention(mature: Sequence[Review]) -> float | None:
    passed = sum(1 for r in mature if r.rating is not Rating.AGAIN)
    return passed / len(mature) if mature else None


def _forecast_day(rec: CardRecord, today: date, rollover: int, tz: tzinfo | None) -> int | None:
    """The forecast slot of a scheduled card (0 includes overdue); None: not in the forecast."""
    state = rec.state
    if state.is_new or rec.suspended or state.due is None:
        return None
    offset = (review_day(state.due, rollover, tz) - today).days
    return max(offset, 0) if offset < FORECAST_DAYS else None


def deck_series(
    store: Store,
    cards: Sequence[Card] | None,
    config: Config,
    now: datetime,
    *,
    tz: tzinfo | None = None,
) -> tuple[tuple[str, DeckSeries], ...]:
    """Per deck (sorted by name), the figures :func:`compute_stats` plots for all decks.

    A card counts in its collection deck when ``cards`` knows it, else in the deck the
    database recorded; every deck of the collection appears, reviewed or not."""
    rollover = config.default.rollover_hour
    today = review_day(utc(now), rollover, tz)
    records = store.cards()
    known = {c.id: c for c in cards} if cards is not None else None

    def deck_of(card_id: str, recorded: str) -> str:
        if known is not None and card_id in known:
            return known[card_id].deck
        rec = records.get(card_id)
        return rec.deck if rec is not None and rec.deck else recorded

    by_deck: dict[str, list[Review]] = {c.deck: [] for c in cards or ()}
    for r in store.reviews():
        by_deck.setdefault(deck_of(r.card_id, r.deck), []).append(r)
    forecasts: dict[str, list[int]] = {}
    for cid, rec in records.items():
        name = deck_of(cid, rec.deck)
        by_deck.setdefault(name, [])
        active = (known is None and not rec.orphaned) or (known is not None and cid in known)
        slot = _forecast_day(rec, today, rollover, tz) if active else None
        if slot is not None:
            forecasts.setdefault(name, [0] * FORECAST_DAYS)[slot] += 1

    out = []
    for name, reviews in sorted(by_deck.items()):
        mature = _mature(reviews)
        days = Counter(review_day(r.reviewed_at, rollover, tz) for r in reviews)
        out.append(
            (
                name,
                DeckSeries(
                    reviews=len(reviews),
                    practice_reviews=sum(1 for r in reviews if r.practice),
                    retention=_retention(mature),
                    mature_reviews=len(mature),
                    reviews_per_day=_history(days, today),
                    forecast=tuple(forecasts.get(name, [0] * FORECAST_DAYS)),
                ),
            )
        )
    return tuple(out)


def _streak(days: set[date], today: date) -> int:
    day = today if today in days else today - timedelta(days=1)
    streak = 0
    while day in days:
        streak += 1
        day -= timedelta(days=1)
    return streak


def compute_stats(
    store: Store,
    cards: Sequence[Card] | None,
    config: Config,
    now: datetime,
    *,
    tz: tzinfo | None = None,
    queue: Sequence[QueueEntry] | None = None,
) -> Stats:
    """Statistics at ``now``. ``cards`` (the collection) gives new-card and per-deck counts;
    without it only what the database holds is counted. ``queue``: today's queue of
    ``cards`` at ``now`` when the caller has built it already (:func:`build_queue`)."""
    now = utc(now)
    rollover = config.default.rollover_hour
    start, end = day_bounds(now, rollover, tz)
    today = review_day(now, rollover, tz)
    records = store.cards()
    reviews = store.reviews()
    scheduled = [r for r in reviews if not r.practice]

    per_day = Counter(review_day(r.reviewed_at, rollover, tz) for r in reviews)
    history = _history(per_day, today)
    mature = _mature(scheduled)
    retention = _retention(mature)

    known = {c.id: c for c in cards} if cards is not None else None
    active = {
        cid: rec
        for cid, rec in records.items()
        if (known is None and not rec.orphaned) or (known is not None and cid in known)
    }
    forecast = [0] * FORECAST_DAYS
    retrievabilities = []
    for rec in active.values():
        state = rec.state
        if state.is_new or rec.suspended or state.due is None:
            continue
        slot = _forecast_day(rec, today, rollover, tz)
        if slot is not None:
            forecast[slot] += 1
        retrievabilities.append(Scheduler(config.for_deck(rec.deck)).retrievability(state, now))

    deck_counts: dict[str, Counter[str]] = {}
    deck_of = {
        cid: (known[cid].deck if known and cid in known else rec.deck)
        for cid, rec in records.items()
    }
    for cid, rec in records.items():
        counts = deck_counts.setdefault(deck_of[cid], Counter())
        if rec.orphaned or (known is not None and cid not in known):
            counts["orphaned"] += 1
            continue
        counts["total"] += 1
        state = rec.state
        if state.is_new:
            counts["new"] += 1
        elif state.phase is Phase.REVIEW:
            counts["review"] += 1
        else:
            counts["learning"] += 1
        counts["suspended"] += rec.suspended
        counts["leeches"] += rec.leech
        if (
            not rec.suspended
            and not rec.is_buried(now)
            and state.due is not None
            and state.due < end
        ):
            counts["due_today"] += 1
    if known is not None:
        for card in known.values():
            if card.id not in records:
                counts = deck_counts.setdefault(card.deck, Counter())
                counts["total"] += 1
                counts["new"] += 1

    due_today = sum(c["due_today"] for c in deck_counts.values())
    due_now = 0
    if known is not None:
        # The very queue the home screen counts, so both say the same "due".
        if queue is None:
            queue = build_queue(list(known.values()), store, config, now, tz=tz)
        new_today = sum(1 for e in queue if e.kind.value == "new")
        for entry in queue:
            if entry.due_now:
                deck_counts.setdefault(entry.card.deck, Counter())["due"] += 1
                due_now += 1
    else:
        new_today = 0
    decks = tuple(
        (name, DeckCounts(**{k: int(v) for k, v in counts.items()}))
        for name, counts in sorted(deck_counts.items())
    )
    return Stats(
        reviews=len(reviews),
        practice_reviews=len(reviews) - len(scheduled),
        reviews_today=sum(1 for r in reviews if start <= r.reviewed_at < end),
        cards_seen=sum(1 for rec in records.values() if rec.state.reps > 0),
        due_today=due_today,
        due_now=due_now,
        new_today=new_today,
        retention=retention,
        mature_reviews=len(mature),
        streak_days=_streak(set(per_day), today),
        average_retrievability=(
            sum(retrievabilities) / len(retrievabilities) if retrievabilities else None
        ),
        reviews_per_day=history,
        forecast=tuple(forecast),
        leeches=tuple(sorted(cid for cid, rec in active.items() if rec.leech)),
        decks=decks,
    )
