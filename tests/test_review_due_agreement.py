"""N11: home and stats agree on "due" (what a review shows now), and stats says how many
more come due later in the day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from deck.cards.model import Rating
from deck.review.scheduler import CardState, Config, Phase, Settings
from deck.review.stats import compute_stats
from deck.review.store import Store
from quizcoll.collection import load
from quizcoll.tui.services.summary import home_summary

NOW = datetime(2026, 3, 3, 12, tzinfo=UTC)
CONFIG = Config(default=Settings(fuzz=False))


def test_home_and_stats_count_the_same_due(tmp_path: Path) -> None:
    body = "".join(
        f"  - id: c{i}\n    type: basic\n    front: 'Q{i}?'\n    back: 'A{i}.'\n" for i in range(4)
    )
    path = tmp_path / "d.yaml"
    path.write_text(f"deck: d\ncards:\n{body}", encoding="utf-8")
    collection, _ = load([path])
    with Store.in_memory() as store:
        due_review = CardState(
            Phase.REVIEW, None, 5.0, 5.0, NOW - timedelta(hours=1), NOW - timedelta(days=5), reps=3
        )
        later_step = CardState(
            Phase.LEARNING, 1, 1.0, 5.0, NOW + timedelta(minutes=10), NOW, reps=1
        )
        store.record_review(
            "c0", Rating.GOOD, due_review, reviewed_at=NOW - timedelta(days=5), deck="d"
        )
        store.record_review("c1", Rating.GOOD, later_step, reviewed_at=NOW, deck="d")
        home = home_summary(store, collection.cards, CONFIG, NOW, UTC)
        stats = compute_stats(store, collection.cards, CONFIG, NOW, tz=UTC)
    assert home.due_now == stats.due_now == 1
    assert dict(stats.decks)["d"].due == home.decks[0].due == 1
    assert stats.due_today == 2  # the 10-minute step comes due later today
    assert stats.to_dict()["due_now"] == 1
