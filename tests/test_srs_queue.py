"""The daily queue: limits per deck, order, suspended/buried cards, day boundaries, practice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from deck.cards.model import Card, CardType, Rating
from deck.review.queue import (
    EntryKind,
    build_queue,
    day_bounds,
    day_start,
    practice_queue,
    review_day,
)
from deck.review.scheduler import CardState, Config, Phase, Scheduler, Settings
from deck.review.store import Store

NOW = datetime(2024, 6, 10, 12, 0, tzinfo=UTC)


def _card(card_id: str, deck: str = "d", tags: tuple[str, ...] = ()) -> Card:
    return Card(id=card_id, type=CardType.BASIC, deck=deck, front="?", tags=tags)


def _due_review(store: Store, card_id: str, deck: str, stability: float, due: datetime) -> None:
    """Put a card in review, due at ``due``, with a given stability (so a given retrievability)."""
    state = CardState(
        phase=Phase.REVIEW,
        stability=stability,
        difficulty=5.0,
        due=due,
        last_review=due - timedelta(days=3),
        reps=3,
    )
    store.record_review(card_id, Rating.GOOD, state, reviewed_at=NOW - timedelta(days=3), deck=deck)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store.open(tmp_path / "r.db") as s:
        yield s


def test_new_cards_are_limited_per_deck_and_per_day(store: Store) -> None:
    cards = [_card(f"a{i:02}", "a") for i in range(30)] + [_card(f"b{i:02}", "b") for i in range(5)]
    queue = build_queue(cards, store, Config(), NOW, tz=UTC)
    assert [e.kind for e in queue] == [EntryKind.NEW] * 25
    assert sum(e.card.deck == "a" for e in queue) == 20
    assert [e.card.id for e in queue if e.card.deck == "a"] == [f"a{i:02}" for i in range(20)]
    # introduce 7 of deck a today: 13 more new cards of a remain for today
    sched = Scheduler()
    for card in cards[:7]:
        state = sched.review(CardState(), Rating.EASY, NOW, card.id)
        store.record_review(card.id, Rating.EASY, state, reviewed_at=NOW, deck="a")
    queue = build_queue(cards, store, Config(), NOW, tz=UTC)
    assert sum(e.card.deck == "a" for e in queue) == 13
    # tomorrow the limit is fresh again
    tomorrow = NOW + timedelta(days=1)
    assert (
        sum(
            e.card.deck == "a" and e.kind is EntryKind.NEW
            for e in build_queue(cards, store, Config(), tomorrow, tz=UTC)
        )
        == 20
    )


def test_review_limit_and_per_deck_override(store: Store) -> None:
    cards = [_card(f"r{i:03}", "big") for i in range(230)] + [
        _card(f"s{i}", "small") for i in range(10)
    ]
    for card in cards:
        _due_review(store, card.id, card.deck, stability=3.0, due=NOW - timedelta(hours=1))
    config = Config(decks=(("small", Settings(reviews_per_day=4)),))
    queue = build_queue(cards, store, config, NOW, tz=UTC)
    assert sum(e.card.deck == "big" for e in queue) == 200
    assert sum(e.card.deck == "small" for e in queue) == 4
    assert len(build_queue(cards, store, config, NOW, tz=UTC, deck="small")) == 4
    assert len(build_queue(cards, store, config, NOW, tz=UTC, limit=7)) == 7


def test_due_first_lowest_retrievability_first_new_interleaved(store: Store) -> None:
    strong, weak, middle = _card("strong"), _card("weak"), _card("middle")
    _due_review(store, "strong", "d", stability=50.0, due=NOW - timedelta(hours=2))
    _due_review(store, "weak", "d", stability=0.5, due=NOW - timedelta(hours=1))
    _due_review(store, "middle", "d", stability=5.0, due=NOW - timedelta(hours=3))
    later = _card("later")
    _due_review(store, "later", "d", stability=1.0, due=NOW + timedelta(days=3))
    new = [_card(f"new{i}") for i in range(3)]
    queue = build_queue([strong, weak, middle, later, *new], store, Config(), NOW, tz=UTC)
    reviews = [e.card.id for e in queue if e.kind is EntryKind.REVIEW]
    assert reviews == ["weak", "middle", "strong"]  # "later" is not due today
    rs = [e.retrievability for e in queue if e.kind is EntryKind.REVIEW]
    assert rs == sorted(rs)
    kinds = [e.kind for e in queue]
    assert kinds[0] is EntryKind.REVIEW and EntryKind.NEW in kinds[1:-1]  # new ones spread in
    assert len(queue) == 6


def test_learning_cards_come_first_within_the_learn_ahead_window(store: Store) -> None:
    sched = Scheduler(Settings(fuzz=False))
    state = sched.review(CardState(), Rating.AGAIN, NOW - timedelta(minutes=5), "l")  # due in 1m
    store.record_review("l", Rating.AGAIN, state, reviewed_at=NOW - timedelta(minutes=5))
    far = CardState(
        phase=Phase.LEARNING,
        step=1,
        stability=1.0,
        difficulty=5.0,
        due=NOW + timedelta(hours=2),
        last_review=NOW,
        reps=1,
    )
    store.record_review("far", Rating.GOOD, far, reviewed_at=NOW)
    _due_review(store, "r", "d", stability=1.0, due=NOW - timedelta(hours=1))
    # rated Good a minute ago: its 10-minute step ends in 9 minutes, inside the window
    soon = sched.review(CardState(), Rating.GOOD, NOW - timedelta(minutes=1), "soon")
    store.record_review("soon", Rating.GOOD, soon, reviewed_at=NOW - timedelta(minutes=1))
    cards = [_card("r"), _card("far"), _card("soon"), _card("l"), _card("n")]
    queue = build_queue(cards, store, Config(), NOW, tz=UTC)
    # due learning first; a step not due yet only once nothing else is left (learn ahead)
    assert [e.card.id for e in queue] == ["l", "r", "n", "soon"]
    assert queue[0].kind is EntryKind.LEARNING and queue[0].due_now
    assert queue[-1].ahead and not queue[-1].due_now
    assert [e.card.id for e in queue if e.due_now] == ["l", "r"]


def test_suspended_and_buried_cards_are_left_out(store: Store) -> None:
    cards = [_card("s"), _card("b"), _card("ok")]
    store.suspend("s")
    _, end = day_bounds(NOW, 4, UTC)
    store.bury("b", end)
    assert [e.card.id for e in build_queue(cards, store, Config(), NOW, tz=UTC)] == ["ok"]
    next_day = end + timedelta(minutes=1)
    assert [e.card.id for e in build_queue(cards, store, Config(), next_day, tz=UTC)] == ["b", "ok"]


def test_day_boundaries_use_the_rollover_hour_in_the_given_zone() -> None:
    assert day_start(datetime(2024, 6, 10, 3, 59, tzinfo=UTC), 4, UTC) == datetime(
        2024, 6, 9, 4, tzinfo=UTC
    )
    assert day_start(datetime(2024, 6, 10, 4, 0, tzinfo=UTC), 4, UTC) == datetime(
        2024, 6, 10, 4, tzinfo=UTC
    )
    tokyo = timezone(timedelta(hours=9))
    # 20:00 UTC is 05:00 next day in Tokyo: past the rollover, so that day started at 04:00 JST
    assert day_start(datetime(2024, 6, 10, 20, 0, tzinfo=UTC), 4, tokyo) == datetime(
        2024, 6, 10, 19, tzinfo=UTC
    )
    assert review_day(datetime(2024, 6, 10, 2, 0, tzinfo=UTC), 4, UTC).isoformat() == "2024-06-09"
    assert review_day(datetime(2024, 6, 10, 2, 0, tzinfo=UTC), 0, UTC).isoformat() == "2024-06-10"
    start, end = day_bounds(NOW, 4, UTC)
    assert end - start == timedelta(days=1) and start <= NOW < end


def test_reviews_done_late_at_night_count_for_the_previous_day(store: Store) -> None:
    cards = [_card(f"n{i}") for i in range(25)]
    sched = Scheduler()
    late = datetime(2024, 6, 11, 2, 30, tzinfo=UTC)  # before the 04:00 rollover
    for card in cards[:20]:
        store.record_review(
            card.id,
            Rating.EASY,
            sched.review(CardState(), Rating.EASY, late),
            reviewed_at=late,
            deck="d",
        )
    assert (
        build_queue(cards, store, Config(), datetime(2024, 6, 11, 3, 0, tzinfo=UTC), tz=UTC) == []
    )
    assert (
        len(build_queue(cards, store, Config(), datetime(2024, 6, 11, 5, 0, tzinfo=UTC), tz=UTC))
        == 5
    )


def test_practice_queue_by_tag_ignores_due_and_limits(store: Store) -> None:
    cards = [_card(f"t{i}", tags=("ring",)) for i in range(25)] + [_card("other", tags=("tree",))]
    _due_review(store, "t3", "d", stability=100.0, due=NOW + timedelta(days=60))  # not due
    store.suspend("t4")
    queue = practice_queue(cards, store, Config(), NOW, tag="ring")
    ids = [e.card.id for e in queue]
    assert len(ids) == 24 and "other" not in ids and "t4" not in ids
    assert ids[0] == "t3"  # cards already seen first, new ones after
    assert len(practice_queue(cards, store, Config(), NOW, tag="ring", limit=5)) == 5
    assert [e.card.id for e in practice_queue(cards, store, Config(), NOW, tag="tree")] == ["other"]


def test_a_step_not_due_yet_is_not_asked_first_in_the_next_plain_session(store: Store) -> None:
    """`printf '\\n3\\n' | quizcoll review --plain` twice: the card rated Good (→ 10m) a
    minute ago waits behind the new cards instead of being asked again at once."""
    import io

    from quizcoll.cli.cmd_review import plain_session

    cards = [_card(f"c{i}") for i in range(3)]
    config = Config(default=Settings(fuzz=False))

    def session(at: datetime) -> str:
        out = io.StringIO()
        plain_session(cards, None, store, config, lambda: at, io.StringIO("\n3\n"), out)
        return out.getvalue()

    assert "saved: c0 3" in session(NOW)
    second = session(NOW + timedelta(minutes=1))
    assert "saved: c1 3" in second and "c0" not in second.split("saved:")[0]
