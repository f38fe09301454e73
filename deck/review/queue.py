"""What to review now: the daily queue, its limits and order, and the practice (cram) queue.

Day boundaries. A review day starts at ``rollover_hour`` (default 4, as in Anki) in the
local time zone, so a late-night session counts for the day it belongs to; the zone is
a parameter (``tz``; ``None`` = the system's local zone) and so is the current time,
which keeps every computation testable.

The daily queue, per deck:

- learning and relearning cards that are due now come first, earliest due first; they
  are not limited;
- review cards due by the end of the review day, lowest retrievability first, at most
  ``reviews_per_day`` (default 200) minus the reviews already done today in that deck;
- new cards in file order within a deck, taking turns across decks, at most ``new_per_day`` (default 20) minus those already
  introduced today, interleaved evenly among the reviews;
- learning cards due within the learn-ahead window (20 minutes by default) come last,
  marked ``ahead``: as in Anki, a short step is shown early only when nothing else is
  left, so a card rated Good → 10m is not asked again at the start of the next session,
  and they are not "due" in the counts.

During a session the queue is not a fixed list: :func:`next_entry` picks each next card
as Anki's scheduler does — a learning or relearning card whose step has come due is shown
at once, ahead of new and review cards (so "Again · 1m" means about a minute, not "after
the rest of the queue"); otherwise the queue's next card; and when only learning cards
remain, the earliest one within the learn-ahead limit.

Suspended, buried and (naturally) orphaned cards are left out. The practice queue
reviews ahead or by tag, ignores due dates and limits, and its reviews never change
the schedule (the session records them with ``practice=True``).
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from deck.review.scheduler import CardState, Config, Phase, Scheduler, utc
from deck.review.store import CardRecord, Store

if TYPE_CHECKING:
    from deck.cards.model import Card


NEW_STATE = CardState()  # frozen: every never-reviewed card shares it


class EntryKind(enum.Enum):
    NEW = "new"
    LEARNING = "learning"
    REVIEW = "review"


@dataclass(frozen=True)
class QueueEntry:
    """One card to show, with the state it is in and its recall probability now."""

    card: Card
    kind: EntryKind
    state: CardState
    retrievability: float
    ahead: bool = False  # a learning card not due yet, within the learn-ahead window

    @property
    def due_now(self) -> bool:
        """A card to count as due (not new, not learned ahead)."""
        return self.kind is not EntryKind.NEW and not self.ahead


def day_start(now: datetime, rollover_hour: int = 4, tz: tzinfo | None = None) -> datetime:
    """The UTC instant at which the review day containing ``now`` began."""
    local = utc(now).astimezone(tz)
    start = local.replace(hour=rollover_hour, minute=0, second=0, microsecond=0)
    if local < start:
        start -= timedelta(days=1)
    return start.astimezone(UTC)


def review_day(moment: datetime, rollover_hour: int = 4, tz: tzinfo | None = None) -> date:
    """The review day (a calendar date) that ``moment`` belongs to."""
    return (utc(moment).astimezone(tz) - timedelta(hours=rollover_hour)).date()


def day_bounds(
    now: datetime, rollover_hour: int = 4, tz: tzinfo | None = None
) -> tuple[datetime, datetime]:
    """``[start, end)`` of today's review day, in UTC."""
    start = day_start(now, rollover_hour, tz)
    return start, day_start(start + timedelta(hours=36), rollover_hour, tz)


def _interleave(reviews: list[QueueEntry], new: list[QueueEntry]) -> list[QueueEntry]:
    """Spread ``new`` evenly through ``reviews`` (a new card every len/(n+1) reviews)."""
    if not new or not reviews:
        return reviews + new
    out: list[QueueEntry] = []
    per_gap = len(reviews) / (len(new) + 1)
    r = 0
    for i, entry in enumerate(new, start=1):
        upto = math.ceil(i * per_gap)  # a due card always comes first
        out.extend(reviews[r:upto])
        r = max(r, upto)
        out.append(entry)
    out.extend(reviews[r:])
    return out


def is_available(record: CardRecord | None, now: datetime) -> bool:
    """Not suspended and not buried."""
    return record is None or not (record.suspended or record.is_buried(now))


def build_queue(
    cards: Sequence[Card],
    store: Store,
    config: Config,
    now: datetime,
    *,
    deck: str | None = None,
    limit: int | None = None,
    tz: tzinfo | None = None,
) -> list[QueueEntry]:
    """Today's queue for ``cards`` (optionally one deck), in the order to show them."""
    now = utc(now)
    rollover = config.default.rollover_hour
    start, end = day_bounds(now, rollover, tz)
    done = store.done_between(start, end)
    records = store.cards()
    learning: list[QueueEntry] = []
    ahead: list[QueueEntry] = []
    reviews: list[QueueEntry] = []
    new_by_deck: list[list[QueueEntry]] = []
    by_deck: dict[str, list[Card]] = {}
    for card in cards:
        if deck is None or card.deck == deck:
            by_deck.setdefault(card.deck, []).append(card)
    for name, deck_cards in by_deck.items():
        settings = config.for_deck(name)
        scheduler = Scheduler(settings)
        new_done, reviews_done = done.get(name, (0, 0))
        deck_reviews: list[QueueEntry] = []
        deck_new: list[QueueEntry] = []
        for card in deck_cards:
            record = records.get(card.id)
            if not is_available(record, now):
                continue
            state = record.state if record else NEW_STATE
            if state.is_new:
                deck_new.append(QueueEntry(card, EntryKind.NEW, state, 0.0))
                continue
            assert state.due is not None
            r = scheduler.retrievability(state, now)
            if state.phase in (Phase.LEARNING, Phase.RELEARNING):
                if state.due <= now:
                    learning.append(QueueEntry(card, EntryKind.LEARNING, state, r))
                elif state.due <= now + settings.learn_ahead:
                    ahead.append(QueueEntry(card, EntryKind.LEARNING, state, r, ahead=True))
            elif state.due < end:
                deck_reviews.append(QueueEntry(card, EntryKind.REVIEW, state, r))
        deck_reviews.sort(key=lambda e: (e.retrievability, e.state.due, e.card.id))
        reviews.extend(deck_reviews[: max(0, settings.reviews_per_day - reviews_done)])
        new_by_deck.append(deck_new[: max(0, settings.new_per_day - new_done)])
    # New cards keep their file order within a deck (authors order them to teach) and take
    # turns across decks, so a session mixes subjects instead of draining one deck first.
    new = [e for group in itertools.zip_longest(*new_by_deck) for e in group if e is not None]
    learning.sort(key=lambda e: (e.state.due, e.card.id))
    ahead.sort(key=lambda e: (e.state.due, e.card.id))
    reviews.sort(key=lambda e: (e.retrievability, e.state.due, e.card.id))
    queue = learning + _interleave(reviews, new) + ahead
    return queue if limit is None else queue[: max(0, limit)]


def practice_queue(
    cards: Sequence[Card],
    store: Store,
    config: Config,
    now: datetime,
    *,
    deck: str | None = None,
    tag: str | None = None,
    limit: int | None = None,
) -> list[QueueEntry]:
    """Cards to practise regardless of due dates and limits: weakest first, new ones last.

    Suspended cards stay out; buried ones are included (practice is deliberate).
    """
    now = utc(now)
    records = store.cards()
    seen: list[QueueEntry] = []
    new: list[QueueEntry] = []
    for card in cards:
        if deck is not None and card.deck != deck:
            continue
        if tag is not None and tag not in card.tags:
            continue
        record = records.get(card.id)
        if record is not None and record.suspended:
            continue
        state = record.state if record else NEW_STATE
        if state.is_new:
            new.append(QueueEntry(card, EntryKind.NEW, state, 0.0))
        else:
            r = Scheduler(config.for_deck(card.deck)).retrievability(state, now)
            kind = EntryKind.REVIEW if state.phase is Phase.REVIEW else EntryKind.LEARNING
            seen.append(QueueEntry(card, kind, state, r))
    seen.sort(key=lambda e: (e.retrievability, e.card.id))
    queue = seen + new
    return queue if limit is None else queue[: max(0, limit)]


def learning_entries(
    cards: Sequence[Card],
    store: Store,
    config: Config,
    now: datetime,
    *,
    deck: str | None = None,
    ahead: bool = False,
) -> list[QueueEntry]:
    """The learning and relearning cards due by ``now`` (with ``ahead``: within each deck's
    learn-ahead limit too), earliest due first."""
    now = utc(now)
    records = store.cards()
    out: list[QueueEntry] = []
    for card in cards:
        if deck is not None and card.deck != deck:
            continue
        record = records.get(card.id)
        if record is None or not is_available(record, now):
            continue
        state = record.state
        if state.phase not in (Phase.LEARNING, Phase.RELEARNING) or state.due is None:
            continue
        settings = config.for_deck(card.deck)
        limit = now + settings.learn_ahead if ahead else now
        if state.due <= limit:
            r = Scheduler(settings).retrievability(state, now)
            out.append(QueueEntry(card, EntryKind.LEARNING, state, r, ahead=state.due > now))
    out.sort(key=lambda e: (e.state.due, e.card.id))
    return out


def next_entry(
    queue: list[QueueEntry],
    cards: Sequence[Card],
    store: Store,
    config: Config,
    now: datetime,
    *,
    deck: str | None = None,
    exclude: frozenset[str] = frozenset(),
) -> QueueEntry | None:
    """Take the card to show at ``now`` out of ``queue`` (which this changes), as Anki does.

    1. a learning or relearning card whose step is due, earliest first, wherever it is;
    2. else the queue's next new or review card (an ``ahead`` entry is skipped: its state
       may be stale, step 3 reads it afresh);
    3. else the earliest learning card within the learn-ahead limit, leaving out the ids
       in ``exclude`` (the card just rated, so it is not asked twice in a row).

    Returns None when there is nothing to show.
    """
    due = learning_entries(cards, store, config, now, deck=deck)
    if due:
        return _take(queue, due[0])
    while queue:
        entry = queue.pop(0)
        if not entry.ahead and entry.kind is not EntryKind.LEARNING:
            return entry
    ahead = [
        e
        for e in learning_entries(cards, store, config, now, deck=deck, ahead=True)
        if e.card.id not in exclude
    ]
    return _take(queue, ahead[0]) if ahead else None


def _take(queue: list[QueueEntry], entry: QueueEntry) -> QueueEntry:
    queue[:] = [e for e in queue if e.card.id != entry.card.id]
    return entry
