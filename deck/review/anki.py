"""Anki's scheduling conveniences on top of fsrs: leech re-alerts, the load balancer with
easy days, and rescheduling cards when the desired retention or the parameters change.

None of this computes an interval: fsrs does (:class:`fsrs.Scheduler`), this module only
chooses among the days fsrs itself could have given.

- **Leeches** (Anki manual, "Leeches"): a card is a leech when its lapses reach the
  threshold, and Anki alerts again every half threshold after that (8, 12, 16, … for the
  default 8), so a leech the user unsuspended comes back to their attention later.
- **Load balancer** (Anki 24.11, "Load balancing"): a review card's next due day is chosen
  among the days fsrs's fuzz can give (the same range, so retention is not touched),
  preferring days with fewer cards due — weight ``(1/count)^2.15 · (1/interval)^3`` for a
  day with cards, 1 for an empty day, as in Anki's ``load_balancer.rs``; intervals above
  90 days are left as fsrs drew them. The choice is drawn with a passed
  :class:`random.Random`, so a test fixes it.
- **Easy days**: weekdays on which as few reviews as possible are scheduled (Anki's
  "Minimum"): such a day gets weight 0 unless every candidate day is one.
- **Rescheduling**: after the desired retention or the parameters change, every card's
  state is replayed from its review log through fsrs's own
  :meth:`fsrs.Scheduler.reschedule_card`, so its due date is what the new settings give.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from deck.cards.rating import Rating
from deck.review.scheduler import (
    CardState,
    Config,
    Phase,
    Scheduler,
    from_fsrs,
    fsrs_card_id,
    utc,
)

if TYPE_CHECKING:  # fsrs is imported where a card is scheduled (the store imports this module)
    import fsrs

MAX_BALANCED_DAYS = 90  # Anki: beyond this the need to balance is low
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def leech_alert(lapses: int, threshold: int) -> bool:
    """Whether reaching ``lapses`` lapses alerts (the threshold, then every half of it)."""
    if threshold <= 0 or lapses < threshold:
        return False
    return (lapses - threshold) % max(1, math.ceil(threshold / 2)) == 0


_FUZZ_LOCK = threading.Lock()


def fuzz_days(scheduler: fsrs.Scheduler, interval_days: int) -> tuple[int, int]:
    """The fewest and most days fsrs's fuzz can turn ``interval_days`` into: its own
    :meth:`_get_fuzzed_interval` run with its random draw at both ends of [0, 1)."""
    import fsrs.scheduler as fsrs_scheduler

    outcomes = []
    with _FUZZ_LOCK:
        original = fsrs_scheduler.random
        try:
            for draw in (0.0, math.nextafter(1.0, 0.0)):
                fsrs_scheduler.random = lambda draw=draw: draw  # type: ignore[misc]
                fuzzed = scheduler._get_fuzzed_interval(interval=timedelta(days=interval_days))
                outcomes.append(fuzzed.days)
        finally:
            fsrs_scheduler.random = original
    return min(outcomes), max(outcomes)


def preview(
    scheduler: Scheduler,
    state: CardState,
    now: datetime,
    card_id: str,
    states: Iterable[CardState],
    *,
    rng: random.Random | None = None,
    tz: tzinfo | None = None,
) -> dict[Rating, CardState]:
    """Each rating's outcome as :meth:`Scheduler.preview` gives it, load-balanced over the
    other cards' ``states`` where the settings ask for it (``fuzz`` on: the balancer picks
    within fsrs's fuzz range instead of a blind draw; ``easy_days`` honoured)."""
    settings = scheduler.settings
    if not settings.fuzz:
        return scheduler.preview(state, now, card_id)
    counts = due_per_day(states, tz)
    return {
        rating: balance(
            scheduler,
            state,
            rating,
            now,
            card_id,
            counts,
            easy_days=settings.easy_days,
            rng=rng,
            tz=tz,
        )
        for rating in Rating
    }


def day_weight(count: int, interval: int, easy: bool) -> float:
    if easy:
        return 0.0
    if count == 0:
        return 1.0
    return (1 / count) ** 2.15 * (1 / interval) ** 3


def balance(
    scheduler: Scheduler,
    state: CardState,
    rating: Rating,
    now: datetime,
    card_id: str,
    due_per_day: Mapping[date, int],
    *,
    easy_days: Sequence[str] = (),
    rng: random.Random | None = None,
    tz: tzinfo | None = None,
) -> CardState:
    """The state after rating ``state`` ``rating`` at ``now``, its due day load-balanced.

    Outside a review interval fsrs fuzzes (under 3 days, over 90, a learning step) it is
    fsrs's own outcome. ``due_per_day`` counts the review cards due on each local date.
    """
    plain = Scheduler(replace(scheduler.settings, fuzz=False))
    outcome = plain.review(state, rating, now, card_id)
    if outcome.phase is not Phase.REVIEW or outcome.due is None:
        return scheduler.review(state, rating, now, card_id)
    days = round((outcome.due - utc(now)).total_seconds() / 86400)
    if days < 3 or days > MAX_BALANCED_DAYS:
        return scheduler.review(state, rating, now, card_id)
    low, high = fuzz_days(plain.fsrs, days)
    today = utc(now).astimezone(tz).date()
    easy = {WEEKDAYS.index(d) for d in easy_days}
    candidates = list(range(low, high + 1))
    weights = [
        day_weight(
            due_per_day.get(today + timedelta(days=d), 0),
            d,
            (today + timedelta(days=d)).weekday() in easy,
        )
        for d in candidates
    ]
    if not any(weights):  # every candidate is an easy day: ignore them
        weights = [
            day_weight(due_per_day.get(today + timedelta(days=d), 0), d, False) for d in candidates
        ]
    chosen = (rng or random.Random()).choices(candidates, weights=weights)[0]
    return _with_interval(outcome, now, chosen)


def _with_interval(state: CardState, now: datetime, days: int) -> CardState:
    return replace(state, due=utc(now) + timedelta(days=days))


def due_per_day(states: Iterable[CardState], tz: tzinfo | None = None) -> dict[date, int]:
    """How many review cards fall due on each local date."""
    counts: dict[date, int] = {}
    for state in states:
        if state.phase is Phase.REVIEW and state.due is not None:
            day = state.due.astimezone(tz).date()
            counts[day] = counts.get(day, 0) + 1
    return counts


def reschedule(
    scheduler: Scheduler,
    card_id: str,
    reviews: Sequence[tuple[datetime, Rating]],
    before: CardState,
) -> CardState:
    """``card_id``'s state as ``scheduler``'s settings would have left it after ``reviews``
    (time and rating of each scheduled review; the caller leaves practice out), replayed by
    fsrs's own :meth:`fsrs.Scheduler.reschedule_card`. Review and lapse counts are the
    history's and stay as they were."""
    if not reviews:
        return before
    import fsrs

    key = fsrs_card_id(card_id)
    logs = [
        fsrs.ReviewLog(
            card_id=key, rating=fsrs.Rating(int(r)), review_datetime=utc(t), review_duration=None
        )
        for t, r in reviews
    ]
    replayed = scheduler.fsrs.reschedule_card(fsrs.Card(card_id=key), logs)
    state = from_fsrs(replayed, before, Rating(int(reviews[-1][1])))
    return replace(state, reps=before.reps, lapses=before.lapses)


# The settings that change what fsrs schedules (a new limit or step order does not).
SCHEDULING_SETTINGS = ("desired_retention", "parameters", "maximum_interval")


def changed_decks(before: Config, after: Config, decks: Iterable[str]) -> list[str]:
    """The decks whose desired retention, parameters or maximum interval changed."""
    return [
        d
        for d in decks
        if any(
            getattr(before.for_deck(d), k) != getattr(after.for_deck(d), k)
            for k in SCHEDULING_SETTINGS
        )
    ]


def reschedule_cards(store: Any, config: Config, decks: Iterable[str]) -> int:
    """Reschedule every reviewed card of ``decks`` in ``store`` (a
    :class:`deck.review.store.Store`) with ``config`` from its review log; returns how many
    cards moved. Practice reviews are left out (they never changed the schedule)."""
    wanted = set(decks)
    records = {k: r for k, r in store.cards().items() if r.deck in wanted and not r.state.is_new}
    history: dict[str, list[tuple[datetime, Rating]]] = {}
    for review in store.reviews():
        if review.card_id in records and not review.practice:
            history.setdefault(review.card_id, []).append((review.reviewed_at, review.rating))
    states = {}
    for card_id, record in records.items():
        scheduler = Scheduler(replace(config.for_deck(record.deck), fuzz=False))
        new = reschedule(scheduler, card_id, history.get(card_id, []), record.state)
        if new != record.state:
            states[card_id] = new
    return store.set_states(states)
