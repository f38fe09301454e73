"""History export/import: lossless round trip, merge without duplicates, bad files refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deck.cards.model import Rating
from deck.review.history import HistoryError, export_history, import_history, parse_history
from deck.review.scheduler import CardState, Scheduler, Settings
from deck.review.store import Store

T0 = datetime(2024, 2, 1, 7, 30, tzinfo=UTC)
SCHED = Scheduler(Settings(fuzz=False))


def _fill(store: Store, prefix: str, start: datetime, n: int = 6) -> None:
    now = start
    for i in range(n):
        cid = f"{prefix}{i % 3}"
        rating = [Rating.GOOD, Rating.AGAIN, Rating.EASY, Rating.HARD][i % 4]
        state = SCHED.review(store.state(cid), rating, now, cid)
        store.record_review(
            cid,
            rating,
            state,
            reviewed_at=now,
            deck="d",
            duration_ms=100 * i,
            answer=f"ans {i} ✓",
            correct=rating is not Rating.AGAIN,
            seed=i * 7919,
        )
        now += timedelta(minutes=17)
    store.record_review(f"{prefix}0", Rating.HARD, CardState(), reviewed_at=now, practice=True)
    store.suspend(f"{prefix}9", deck="d")
    store.bury(f"{prefix}8", start + timedelta(days=1), deck="d")


def _without_time(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "exported_at"}


def test_round_trip_is_lossless(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as a:
        _fill(a, "c", T0)
        a.sync_cards([("c0", "d"), ("c1", "d")])  # c2, c8, c9 orphaned
        exported = export_history(a, T0)
    text = json.dumps(exported)
    with Store.open(tmp_path / "b.db") as b:
        result = import_history(b, json.loads(text))
        assert result.added == len(exported["reviews"]) and result.skipped == 0
        again = export_history(b, T0 + timedelta(days=3))
        assert _without_time(again) == _without_time(exported)
        with Store.open(tmp_path / "a.db") as a2:
            ours = [r.to_dict() for r in a2.reviews()]
            assert ours == [r.to_dict() for r in b.reviews()]
            assert a2.cards() == b.cards()


def test_import_twice_does_not_duplicate(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as a:
        _fill(a, "c", T0)
        doc = export_history(a, T0)
        result = import_history(a, doc)  # into itself
        assert (result.added, result.skipped) == (0, len(doc["reviews"]))
        assert a.review_count() == len(doc["reviews"])


def test_merge_two_histories(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        _fill(a, "x", T0)
        _fill(b, "y", T0 + timedelta(minutes=5))
        # b also reviewed x0 later than a did: its newer state wins for x0
        later = T0 + timedelta(days=2)
        state = SCHED.review(CardState(), Rating.EASY, later, "x0")
        b.record_review("x0", Rating.EASY, state, reviewed_at=later, deck="d")
        n_a, n_b = a.review_count(), b.review_count()
        result = import_history(a, export_history(b, later))
        assert result.added == n_b and a.review_count() == n_a + n_b
        assert a.state("x0") == state
        assert {"y0", "y1", "y2"} <= set(a.cards())
        times = [r.reviewed_at for r in a.reviews()]
        assert len(times) == n_a + n_b
        import_history(a, export_history(b, later))
        assert a.review_count() == n_a + n_b


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"format": "something-else"},
        {"format": "quizcoll-history", "version": 99},
        {"format": "quizcoll-history", "version": 1, "reviews": {}},
        {"format": "quizcoll-history", "version": 1, "reviews": [{"uid": "u"}]},
        {
            "format": "quizcoll-history",
            "version": 1,
            "cards": [{"card_id": "c", "state": {"phase": "zombie"}}],
        },
    ],
)
def test_bad_history_is_refused(doc: object, tmp_path: Path) -> None:
    with pytest.raises(HistoryError) as info:
        parse_history(doc, "h.json")
    assert str(info.value).startswith("h.json")
    with Store.open(tmp_path / "r.db") as store, pytest.raises(HistoryError):
        import_history(store, doc)
