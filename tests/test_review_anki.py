"""Anki's conveniences on fsrs (deck.review.anki): leech re-alerts, the load balancer with
easy days, rescheduling after a settings change.

Oracles: the fsrs package itself (its fuzz draws, its reschedule_card) and Anki's manual:
"Leeches … Anki will … continue to alert you every half of the leech threshold" (docs.ankiweb.net,
Deck Options → Lapses → Leech threshold; default 8, so 8, 12, 16 …).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import fsrs
import pytest

from deck.cards.model import Rating
from deck.review.anki import balance, due_per_day, fuzz_days, leech_alert, reschedule
from deck.review.scheduler import CardState, Phase, Scheduler, Settings
from deck.review.store import Store

NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("threshold", "alerts"),
    [(8, [8, 12, 16, 20]), (5, [5, 8, 11]), (1, [1, 2, 3]), (0, [])],
)
def test_leech_alerts_at_the_threshold_and_every_half_after(
    threshold: int, alerts: list[int]
) -> None:
    assert [n for n in range(1, 21) if leech_alert(n, threshold)][: len(alerts)] == alerts
    if not alerts:
        assert not any(leech_alert(n, threshold) for n in range(100))


def test_the_store_suspends_a_leech_again_at_the_next_alert() -> None:
    with Store.in_memory() as store:
        suspended_at = []
        for lapses in range(1, 13):
            state = CardState(Phase.RELEARNING, 0, 1.0, 5.0, NOW, NOW, reps=lapses, lapses=lapses)
            store.record_review(
                "c", Rating.AGAIN, state, reviewed_at=NOW, deck="d", leech_threshold=8
            )
            record = store.card("c")
            assert record is not None
            if record.suspended:
                suspended_at.append(lapses)
                store.suspend("c", False, deck="d")  # the user unsuspends it
        assert suspended_at == [8, 12]


@pytest.mark.parametrize("days", [3, 7, 20, 60, 90])
def test_fuzz_days_are_exactly_what_fsrs_can_draw(days: int) -> None:
    scheduler = fsrs.Scheduler(enable_fuzzing=True)
    low, high = fuzz_days(scheduler, days)
    random.seed(days)  # fsrs draws with the random module
    seen = {scheduler._get_fuzzed_interval(interval=timedelta(days=days)).days for _ in range(3000)}
    assert seen == set(range(low, high + 1))


def _review_state(stability: float = 20.0) -> CardState:
    return CardState(Phase.REVIEW, None, stability, 5.0, NOW, NOW - timedelta(days=20), reps=5)


def test_the_balancer_picks_the_empty_day_within_fsrs_range() -> None:
    scheduler = Scheduler(Settings(fuzz=True))
    state = _review_state()
    plain = Scheduler(Settings(fuzz=False)).review(state, Rating.GOOD, NOW, "x")
    days = round((plain.due - NOW).total_seconds() / 86400)
    low, high = fuzz_days(Scheduler(Settings(fuzz=False)).fsrs, days)
    assert high > low
    empty = low + 1
    load = {NOW.date() + timedelta(days=d): (0 if d == empty else 50) for d in range(low, high + 1)}
    for seed in range(20):
        out = balance(
            scheduler, state, Rating.GOOD, NOW, "x", load, rng=random.Random(seed), tz=UTC
        )
        assert out.due == NOW + timedelta(days=empty)
        assert (out.stability, out.difficulty) == (plain.stability, plain.difficulty)


def test_easy_days_get_no_review_when_another_day_can_take_it() -> None:
    scheduler = Scheduler(Settings(fuzz=True))
    state = _review_state()
    plain = Scheduler(Settings(fuzz=False)).review(state, Rating.GOOD, NOW, "x")
    days = round((plain.due - NOW).total_seconds() / 86400)
    low, high = fuzz_days(Scheduler(Settings(fuzz=False)).fsrs, days)
    easy = (NOW.date() + timedelta(days=low)).strftime("%a").lower()
    for seed in range(30):
        out = balance(
            scheduler,
            state,
            Rating.GOOD,
            NOW,
            "x",
            {},
            easy_days=(easy,),
            rng=random.Random(seed),
            tz=UTC,
        )
        assert low <= (out.due - NOW).days <= high
        assert out.due.strftime("%a").lower() != easy


def test_learning_steps_are_not_balanced() -> None:
    scheduler = Scheduler(Settings(fuzz=True))
    out = balance(scheduler, CardState(), Rating.AGAIN, NOW, "x", {}, rng=random.Random(0))
    assert out.due == NOW + timedelta(minutes=1)


def test_rescheduling_replays_the_log_through_fsrs() -> None:
    old = Scheduler(Settings(fuzz=False, desired_retention=0.8))
    new = Scheduler(Settings(fuzz=False, desired_retention=0.95))
    history = [
        (NOW, Rating.GOOD),
        (NOW + timedelta(minutes=10), Rating.GOOD),
        (NOW + timedelta(days=3), Rating.GOOD),
    ]
    state = CardState()
    for when, rating in history:
        state = old.review(state, rating, when, "c")
    again = reschedule(new, "c", history, state)
    expected = CardState()
    for when, rating in history:
        expected = new.review(expected, rating, when, "c")
    assert (again.due, again.stability, again.phase) == (
        expected.due,
        expected.stability,
        expected.phase,
    )
    assert again.due < state.due  # a higher retention asks sooner
    assert (again.reps, again.lapses) == (state.reps, state.lapses)


def test_due_per_day_counts_review_cards_only() -> None:
    states = [
        _review_state(),
        _review_state(),
        CardState(),
        CardState(Phase.LEARNING, 0, 1, 5, NOW, NOW),
    ]
    assert due_per_day(states, UTC) == {NOW.date(): 2}


def test_a_new_retention_reschedules_the_stored_cards() -> None:
    from deck.review.anki import changed_decks, reschedule_cards
    from deck.review.scheduler import Config

    before = Config(default=Settings(fuzz=False, desired_retention=0.8))
    after = Config(default=Settings(fuzz=False, desired_retention=0.95))
    assert changed_decks(before, after, ["d"]) == ["d"]
    assert changed_decks(before, before, ["d"]) == []
    scheduler = Scheduler(before.default)
    with Store.in_memory() as store:
        state = CardState()
        for when in (NOW, NOW + timedelta(minutes=10), NOW + timedelta(days=3)):
            state = scheduler.review(state, Rating.GOOD, when, "c")
            store.record_review("c", Rating.GOOD, state, reviewed_at=when, deck="d")
        old_due = store.state("c").due
        assert reschedule_cards(store, after, ["d"]) == 1
        assert store.state("c").due < old_due
        assert reschedule_cards(store, after, ["d"]) == 0  # already in line with the settings
