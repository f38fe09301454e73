"""The review store: what a review keeps, undo, leech, suspend/bury, orphans, refusing foreign files."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deck.base.errors import DeckError
from deck.cards.model import Rating
from deck.review.scheduler import CardState, Phase, Scheduler, Settings
from deck.review.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    CorruptDatabase,
    NewerDatabase,
    NotQuizcollDatabase,
    Store,
    UndoError,
    _migrate,
)

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
SCHED = Scheduler(Settings(fuzz=False))


def _review(store: Store, card_id: str, rating: Rating, now: datetime, **kw) -> CardState:
    state = SCHED.review(store.state(card_id), rating, now, card_id)
    store.record_review(card_id, rating, state, reviewed_at=now, **kw)
    return state


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_review_keeps_everything(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        after = SCHED.review(CardState(), Rating.GOOD, T0, "c1")
        review = store.record_review(
            "c1",
            Rating.GOOD,
            after,
            reviewed_at=T0,
            deck="d",
            duration_ms=1234,
            answer="42 GiB",
            correct=True,
            seed=987654,
        )
        assert review.id is not None
    with Store.open(tmp_path / "r.db") as store:  # reopened: it is on disk
        (stored,) = store.reviews()
        assert stored == review
        assert stored.reviewed_at == T0 and stored.reviewed_at.tzinfo is not None
        assert (stored.duration_ms, stored.answer, stored.correct, stored.seed) == (
            1234,
            "42 GiB",
            True,
            987654,
        )
        assert stored.before.state == CardState() and stored.after.state == after
        assert store.card("c1") is not None and store.state("c1") == after
        assert store.card("c1").deck == "d"  # type: ignore[union-attr]
        assert store.schema_version == SCHEMA_VERSION
        assert store.integrity_check() == "ok"


def test_new_database_is_wal_and_marked_as_ours(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "r.db"
    Store.open(path).close()
    header = path.read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    assert header[18:20] == b"\x02\x02"  # WAL read/write versions
    assert not list(path.parent.glob(".*creating*"))


def test_an_empty_file_becomes_a_database(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with Store.open(path) as store:
        assert store.review_count() == 0


def test_undo_restores_the_exact_state(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        now = T0
        for rating in (Rating.GOOD, Rating.GOOD, Rating.EASY):
            state = _review(store, "c1", rating, now, deck="d")
            now = state.due or now
        store.suspend("c2", deck="d")
        before = store.card("c1")
        _review(store, "c1", Rating.AGAIN, now, deck="d")
        assert store.card("c1") != before
        undone = store.undo()
        assert undone.card_id == "c1" and undone.rating is Rating.AGAIN
        assert store.card("c1") == before
        assert store.review_count() == 3
        # a new card's first review undone: back to new
        _review(store, "c3", Rating.GOOD, now)
        store.undo()
        assert store.state("c3") == CardState()


def test_undo_only_the_latest_review_of_a_card(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        with pytest.raises(UndoError):
            store.undo()
        _review(store, "a", Rating.GOOD, T0)
        first = store.last_review("a")
        _review(store, "a", Rating.GOOD, T0 + timedelta(minutes=10))
        _review(store, "b", Rating.GOOD, T0 + timedelta(minutes=11))
        assert first is not None and first.id is not None
        with pytest.raises(UndoError):
            store.undo(first.id)
        latest_a = store.last_review("a")
        assert latest_a is not None
        store.undo(latest_a.id)  # not the latest overall, but a's latest: fine
        assert store.state("a") == first.after.state
        with pytest.raises(UndoError):
            store.undo(99999)


def _lapse_until_leech(store: Store, threshold: int) -> tuple[int, datetime]:
    now = T0
    state = _review(store, "hard-card", Rating.EASY, now, leech_threshold=threshold)
    lapses = 0
    while not store.card("hard-card").leech:  # type: ignore[union-attr]
        assert state.due is not None
        now = state.due
        state = _review(store, "hard-card", Rating.AGAIN, now, leech_threshold=threshold)
        lapses += 1
        if state.phase is Phase.RELEARNING:
            now = state.due  # type: ignore[assignment]
            state = _review(store, "hard-card", Rating.GOOD, now, leech_threshold=threshold)
        assert lapses <= threshold
    return lapses, now


@pytest.mark.parametrize("threshold", [8, 3])
def test_leech_is_tagged_and_suspended_after_threshold_lapses(
    tmp_path: Path, threshold: int
) -> None:
    with Store.open(tmp_path / "r.db") as store:
        lapses, _ = _lapse_until_leech(store, threshold)
        assert lapses == threshold
        record = store.card("hard-card")
        assert record is not None and record.leech and record.suspended
        assert record.state.lapses == threshold
        store.undo()  # the GOOD after the last lapse
        store.undo()  # the lapse that made it a leech
        record = store.card("hard-card")
        assert record is not None and not record.leech and not record.suspended


def test_leech_detection_can_be_turned_off(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        state = CardState(
            phase=Phase.REVIEW, stability=1.0, difficulty=5.0, due=T0, last_review=T0, lapses=20
        )
        store.record_review("x", Rating.AGAIN, state, reviewed_at=T0, leech_threshold=0)
        assert not store.card("x").leech  # type: ignore[union-attr]


def test_practice_review_is_logged_but_changes_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        _review(store, "c", Rating.GOOD, T0)
        record = store.card("c")
        other = SCHED.review(store.state("c"), Rating.AGAIN, T0 + timedelta(hours=1))
        review = store.record_review("c", Rating.AGAIN, other, reviewed_at=T0, practice=True)
        assert review.practice and review.before == review.after
        assert store.card("c") == record
        assert store.review_count(practice=True) == 1 and store.review_count() == 2


def test_suspend_and_bury(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        rec = store.suspend("s", deck="d")
        assert rec.suspended and rec.state.is_new
        assert not store.suspend("s", False).suspended
        until = T0 + timedelta(days=1)
        rec = store.bury("b", until)
        assert rec.is_buried(T0) and not rec.is_buried(until)
        assert not store.bury("b", None).is_buried(T0)


def test_orphaned_cards_keep_history_and_come_back(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        _review(store, "kept", Rating.GOOD, T0, deck="d")
        state = _review(store, "gone", Rating.EASY, T0, deck="d")
        result = store.sync_cards([("kept", "d")])
        assert result.orphaned == ("gone",)
        record = store.card("gone")
        assert record is not None and record.orphaned and record.state == state
        assert len(store.reviews("gone")) == 1
        assert store.sync_cards([("kept", "d")]).orphaned == ()  # nothing new to change
        result = store.sync_cards([("kept", "d"), ("gone", "renamed-deck")])
        assert result.returned == ("gone",)
        record = store.card("gone")
        assert record is not None and not record.orphaned and record.state == state
        assert record.deck == "renamed-deck"


def test_migrates_an_old_database_and_keeps_its_reviews(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA journal_mode = WAL")
    _migrate(db, 0, 1)
    db.close()
    with Store.open(path) as store:
        assert store.schema_version == 1 or store.schema_version == SCHEMA_VERSION
        _review(store, "c", Rating.GOOD, T0)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "reviews_by_card" in indexes
    db.close()
    with Store.open(path) as store:
        assert store.review_count() == 1


# -- files that are not ours ---------------------------------------------------------------


def _foreign_sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO users (name) VALUES ('ada')")
    db.commit()
    db.close()


def _newer(path: Path) -> None:
    Store.open(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def _corrupt_pages(path: Path) -> None:
    with Store.open(path) as store:
        for i in range(300):
            _review(store, f"card-{i}", Rating.GOOD, T0, answer="x" * 200)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for offset in range(page + 8, len(data), page):  # trash every b-tree page header
        data[offset - 8 : offset + 24] = b"\xa5" * 32
    path.write_bytes(bytes(data))


def _truncated(path: Path) -> None:
    _corrupt_pages(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3 + 17])


BAD_FILES = {
    "text": (lambda p: p.write_text("shopping list\n- milk\n" * 20), NotQuizcollDatabase),
    "foreign": (_foreign_sqlite, NotQuizcollDatabase),
    "newer": (_newer, NewerDatabase),
    "corrupt": (_corrupt_pages, CorruptDatabase),
    "truncated": (_truncated, DeckError),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_database_is_refused_and_left_unchanged(tmp_path: Path, kind: str) -> None:
    make, error = BAD_FILES[kind]
    path = tmp_path / "r.db"
    make(path)
    for extra in tmp_path.glob("r.db-*"):
        extra.unlink()
    digest = _digest(path)
    with pytest.raises(error) as info:
        Store.open(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert _digest(path) == digest
    if kind in ("text", "foreign"):
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]  # no -wal, no -shm


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeckError):
        Store.open(tmp_path)


def test_done_between_counts_new_and_review_per_deck(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        _review(store, "n1", Rating.GOOD, T0, deck="a")
        _review(store, "n1", Rating.GOOD, T0 + timedelta(minutes=10), deck="a")  # learning
        state = CardState(
            phase=Phase.REVIEW,
            stability=5.0,
            difficulty=5.0,
            due=T0,
            last_review=T0 - timedelta(days=5),
        )
        store.record_review("r1", Rating.GOOD, state, reviewed_at=T0, deck="b")
        store.record_review("r1", Rating.GOOD, state, reviewed_at=T0, deck="b")
        store.record_review("n2", Rating.GOOD, state, reviewed_at=T0, deck="b", practice=True)
        counts = store.done_between(T0 - timedelta(hours=1), T0 + timedelta(hours=1))
        # r1's first review introduced it (new), its second was a review-phase review
        assert counts == {"a": (1, 0), "b": (1, 1)}
        assert store.done_between(T0 + timedelta(hours=1), T0 + timedelta(hours=2)) == {}
