"""Statistics: true retention of mature cards, streak, forecast, per-deck counts, leeches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deck.cards.model import Card, CardType, Rating
from deck.review.scheduler import CardState, Config, Phase, Scheduler
from deck.review.stats import FORECAST_DAYS, compute_stats, deck_series
from deck.review.store import Store

NOW = datetime(2024, 6, 10, 12, 0, tzinfo=UTC)


def _card(card_id: str, deck: str = "d") -> Card:
    return Card(id=card_id, type=CardType.BASIC, deck=deck, front="?")


def _review_state(interval_days: float, due: datetime, lapses: int = 0) -> CardState:
    return CardState(
        phase=Phase.REVIEW,
        stability=interval_days,
        difficulty=5.0,
        due=due,
        last_review=due - timedelta(days=interval_days),
        reps=4,
        lapses=lapses,
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store.open(tmp_path / "r.db") as s:
        yield s


def test_empty_database(store: Store) -> None:
    stats = compute_stats(store, [_card("a"), _card("b", "e")], Config(), NOW, tz=UTC)
    doc = stats.to_dict()
    for key in (
        "reviews",
        "cards_seen",
        "due_today",
        "new_today",
        "retention",
        "streak_days",
        "decks",
    ):
        assert key in doc
    assert doc["reviews"] == 0 and doc["retention"] is None and doc["streak_days"] == 0
    assert doc["new_today"] == 2
    assert doc["decks"] == {
        "d": {
            "total": 1,
            "new": 1,
            "learning": 0,
            "review": 0,
            "due": 0,
            "suspended": 0,
            "leeches": 0,
            "orphaned": 0,
            "due_today": 0,
        },
        "e": {
            "total": 1,
            "new": 1,
            "learning": 0,
            "review": 0,
            "due": 0,
            "suspended": 0,
            "leeches": 0,
            "orphaned": 0,
            "due_today": 0,
        },
    }
    assert len(doc["forecast"]) == 30 and len(doc["reviews_per_day"]) == 30


def test_true_retention_counts_only_mature_cards(store: Store) -> None:
    # mature (interval >= 21 days) reviews: 3 passed, 1 failed
    for i, rating in enumerate([Rating.GOOD, Rating.HARD, Rating.EASY, Rating.AGAIN]):
        cid = f"m{i}"
        store.record_review(
            cid,
            Rating.GOOD,
            _review_state(30, NOW - timedelta(days=2)),
            reviewed_at=NOW - timedelta(days=40),
            deck="d",
        )
        store.record_review(
            cid,
            rating,
            _review_state(60, NOW + timedelta(days=60)),
            reviewed_at=NOW - timedelta(days=1),
            deck="d",
        )
    # a young card failing does not count
    store.record_review(
        "y", Rating.GOOD, _review_state(3, NOW), reviewed_at=NOW - timedelta(days=3), deck="d"
    )
    store.record_review(
        "y", Rating.AGAIN, _review_state(3, NOW + timedelta(days=1)), reviewed_at=NOW, deck="d"
    )
    # practice reviews never count
    store.record_review("m0", Rating.AGAIN, CardState(), reviewed_at=NOW, practice=True)
    stats = compute_stats(store, None, Config(), NOW, tz=UTC)
    assert stats.mature_reviews == 4
    assert stats.retention == pytest.approx(0.75)
    assert stats.reviews == 11 and stats.practice_reviews == 1


def test_streak_forecast_and_reviews_per_day(store: Store) -> None:
    sched = Scheduler()
    for days_ago in (0, 1, 2, 4):
        when = NOW - timedelta(days=days_ago)
        store.record_review(
            f"c{days_ago}",
            Rating.GOOD,
            sched.review(CardState(), Rating.GOOD, when),
            reviewed_at=when,
        )
    store.record_review(
        "due3", Rating.GOOD, _review_state(10, NOW + timedelta(days=3)), reviewed_at=NOW
    )
    store.record_review(
        "overdue", Rating.GOOD, _review_state(10, NOW - timedelta(days=5)), reviewed_at=NOW
    )
    store.record_review(
        "far", Rating.GOOD, _review_state(100, NOW + timedelta(days=90)), reviewed_at=NOW
    )
    stats = compute_stats(store, None, Config(), NOW, tz=UTC)
    assert stats.streak_days == 3
    assert stats.forecast[3] == 1
    assert stats.forecast[0] >= 1  # the overdue card (and today's learning cards)
    assert sum(stats.forecast) == 6  # all but "far"
    per_day = dict(stats.reviews_per_day)
    assert per_day[NOW.date()] == 4 and per_day[(NOW - timedelta(days=3)).date()] == 0
    assert stats.reviews_today == 4
    # with no review yet today the streak still counts up to yesterday
    tomorrow = compute_stats(store, None, Config(), NOW + timedelta(days=1), tz=UTC)
    assert tomorrow.streak_days == 3
    assert compute_stats(store, None, Config(), NOW + timedelta(days=2), tz=UTC).streak_days == 0


def test_deck_counts_leeches_orphans_and_retrievability(store: Store) -> None:
    cards = [_card("a1", "alpha"), _card("a2", "alpha"), _card("b1", "beta"), _card("new", "beta")]
    store.record_review(
        "a1",
        Rating.GOOD,
        _review_state(5, NOW - timedelta(hours=1)),
        reviewed_at=NOW - timedelta(days=5),
        deck="alpha",
    )
    store.record_review(
        "a2",
        Rating.AGAIN,
        _review_state(5, NOW + timedelta(days=1), lapses=8),
        reviewed_at=NOW,
        deck="alpha",
    )
    store.record_review(
        "b1", Rating.GOOD, _review_state(20, NOW + timedelta(days=20)), reviewed_at=NOW, deck="beta"
    )
    store.record_review(
        "gone",
        Rating.GOOD,
        _review_state(20, NOW + timedelta(days=20)),
        reviewed_at=NOW,
        deck="beta",
    )
    stats = compute_stats(store, cards, Config(), NOW, tz=UTC)
    decks = dict(stats.decks)
    assert decks["alpha"].total == 2 and decks["alpha"].review == 2 and decks["alpha"].due == 1
    assert decks["alpha"].suspended == 1 and decks["alpha"].leeches == 1
    assert decks["beta"].total == 2 and decks["beta"].new == 1 and decks["beta"].orphaned == 1
    assert stats.leeches == ("a2",)
    assert stats.cards_seen == 4
    assert stats.due_today == 1 and stats.new_today == 1
    assert stats.average_retrievability is not None and 0.5 < stats.average_retrievability <= 1.0


def test_deck_series_split_the_totals_by_deck(store: Store) -> None:
    cards = [_card("a1", "alpha"), _card("a2", "alpha"), _card("b1", "beta"), _card("c1", "gamma")]
    # alpha: a mature card passes, another lapses; b1 moved from "old" to beta since
    for cid, rating in (("a1", Rating.GOOD), ("a2", Rating.AGAIN)):
        store.record_review(
            cid,
            Rating.GOOD,
            _review_state(30, NOW - timedelta(days=1)),
            reviewed_at=NOW - timedelta(days=31),
            deck="alpha",
        )
        store.record_review(
            cid,
            rating,
            _review_state(40, NOW + timedelta(days=4)),
            reviewed_at=NOW - timedelta(days=1),
            deck="alpha",
        )
    store.record_review(
        "b1", Rating.GOOD, _review_state(2, NOW + timedelta(days=2)), reviewed_at=NOW, deck="old"
    )
    store.record_review("b1", Rating.AGAIN, CardState(), reviewed_at=NOW, practice=True)
    stats = compute_stats(store, cards, Config(), NOW, tz=UTC)
    series = dict(deck_series(store, cards, Config(), NOW, tz=UTC))

    assert list(series) == ["alpha", "beta", "gamma"]  # gamma: in the collection, never reviewed
    alpha, beta, gamma = series["alpha"], series["beta"], series["gamma"]
    assert (alpha.reviews, alpha.practice_reviews, alpha.mature_reviews) == (4, 0, 2)
    assert alpha.retention == pytest.approx(0.5)
    assert dict(alpha.reviews_per_day)[(NOW - timedelta(days=1)).date()] == 2
    assert alpha.forecast[4] == 2
    # the practice review is counted as a review but never in retention
    assert (beta.reviews, beta.practice_reviews, beta.retention) == (2, 1, None)
    assert dict(beta.reviews_per_day)[NOW.date()] == 2 and beta.forecast[2] == 1
    assert gamma.reviews == 0 and gamma.retention is None and sum(gamma.forecast) == 0
    assert len(gamma.forecast) == FORECAST_DAYS and len(gamma.reviews_per_day) == 30
    # summed over the decks, the series are the collection's
    assert sum(s.reviews for s in series.values()) == stats.reviews
    assert sum(s.mature_reviews for s in series.values()) == stats.mature_reviews
    for day, (d, n) in enumerate(stats.reviews_per_day):
        assert n == sum(s.reviews_per_day[day][1] for s in series.values())
        assert d == alpha.reviews_per_day[day][0]
    for day, n in enumerate(stats.forecast):
        assert n == sum(s.forecast[day] for s in series.values())
