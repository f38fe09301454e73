"""The SQLite review store: card states, the review log, suspend/bury/leech, undo, merge.

Guarantees:

- **Nothing is lost.** WAL journal, ``synchronous=FULL``, and one ``BEGIN IMMEDIATE``
  transaction per review that is committed before :meth:`Store.record_review` returns,
  so a caller acknowledges only what is on disk. A ``kill -9`` at any moment leaves the
  database consistent; a busy timeout lets two sessions share one file.
- **A file that is not ours is never touched.** Before SQLite opens an existing file
  for writing, its header is read: it must be an SQLite file carrying quizcoll's
  ``application_id``; then a read-only connection checks the schema version and runs
  ``PRAGMA quick_check``. A text file, another program's database, a corrupt file or
  one from a newer quizcoll raises a :class:`StoreError` subclass and the file stays
  byte-for-byte as it was (no WAL or journal files are created next to a foreign file).
- **New databases appear atomically.** The schema is built in a temporary file that is
  then hard-linked into place, so a half-made database never sits at the path.
- The schema version is ``PRAGMA user_version``; older databases are migrated in one
  transaction (see ``_MIGRATIONS``).

A card's identity is its YAML id. Cards that disappear from the YAML are marked
orphaned (:meth:`Store.sync_cards`), keep their history and come back when the id
returns. Each review stores the card's full state (scheduling state and flags)
before and after, so :meth:`Store.undo` restores it exactly.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from deck.base.safeio import database_path
from deck.cards.rating import Rating
from deck.review.anki import leech_alert
from deck.review.scheduler import CardState, Phase, format_time
from deck.review.store.interviews import InterviewRecord, InterviewsMixin
from deck.review.store.maintenance import Maintenance
from deck.review.store.records import (
    MAX_ANSWER_TEXT,
    MAX_DURATION_MS,
    MAX_NAME_CHARS,
    CardRecord,
    CorruptDatabase,
    MergeResult,
    NewerDatabase,
    NoDatabase,
    NotQuizcollDatabase,
    Review,
    Snapshot,
    StaleState,
    StoreError,
    SyncResult,
    UndoError,
)
from deck.review.store.schema import (
    APPLICATION_ID,
    BUSY_TIMEOUT_S,
    SCHEMA_VERSION,
    _check_header,
    _create,
    _damaged,
    _inspect_read_only,
    _migrate,
    _row_to_record,
    _row_to_review,
)
from deck.review.store.sessions import SessionBusy, SessionLock

# The records, errors and limits callers use come from here, with the Store.
__all__ = [
    "APPLICATION_ID",
    "MAX_ANSWER_TEXT",
    "MAX_DURATION_MS",
    "MAX_NAME_CHARS",
    "SCHEMA_VERSION",
    "CardRecord",
    "CorruptDatabase",
    "InterviewRecord",
    "MergeResult",
    "NewerDatabase",
    "NoDatabase",
    "NotQuizcollDatabase",
    "Review",
    "SessionBusy",
    "Snapshot",
    "StaleState",
    "Store",
    "StoreError",
    "SyncResult",
    "UndoError",
]

# -- the store ----------------------------------------------------------------------------


class Store(Maintenance, InterviewsMixin):
    """An open review database. Use :meth:`open`; close it (or use it as a context manager)."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path = path
        self._db = db
        self._session: SessionLock | None = None

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> Store:
        """Open (creating if absent, unless ``create`` is false) the review database at ``path``.

        Raises :class:`NotQuizcollDatabase`, :class:`CorruptDatabase`,
        :class:`NewerDatabase`, :class:`NoDatabase` or :class:`StoreError`; the file is then
        left untouched. A device, FIFO, folder or dangling link at ``path`` is refused
        (:func:`deck.base.safeio.database_path`).
        """
        path = database_path(path)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            size = None
        if size is None and not create:
            raise NoDatabase(
                f"no review database at {path} (the first review creates it); nothing created"
            )
        if size is None or size == 0:
            _create(path, replace_empty=size == 0)
        _check_header(path)
        version = _inspect_read_only(path)
        try:
            db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the review database: {exc}") from None
        db.row_factory = sqlite3.Row
        store = cls(path, db)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            if version < SCHEMA_VERSION:
                with store._write():
                    current = int(db.execute("PRAGMA user_version").fetchone()[0])
                    if current < SCHEMA_VERSION:  # another process may have migrated meanwhile
                        _migrate(db, current, SCHEMA_VERSION)
        except BaseException:
            db.close()
            raise
        return store

    @classmethod
    def in_memory(cls) -> Store:
        """An empty store that lives in memory only (for reading when no database exists)."""
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.row_factory = sqlite3.Row
        _migrate(db, 0, SCHEMA_VERSION)
        return cls(Path(":memory:"), db)

    # -- plumbing ------------------------------------------------------------------------

    def close(self) -> None:
        if self._session is not None:
            self._session.release()
            self._session = None
        self._db.close()

    def hold_session(self) -> None:
        """Mark this store as an open review session until :meth:`close`: a ``rename`` in
        another process is refused meanwhile (:mod:`deck.review.store.sessions`)."""
        if self._session is None and self.path != Path(":memory:"):
            self._session = SessionLock(self.path, exclusive=False)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front (``IMMEDIATE``) so it never deadlocks.

        It is committed when the block ends: a caller that returns has its change on disk.
        """
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _damaged(self.path, exc) from None
        try:
            yield db
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise _damaged(self.path, exc) from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise _damaged(self.path, exc) from None

    @property
    def schema_version(self) -> int:
        return int(self._query("PRAGMA user_version")[0][0])

    def integrity_check(self) -> str:
        """``"ok"`` or SQLite's first complaint (``PRAGMA integrity_check``)."""
        return str(self._query("PRAGMA integrity_check")[0][0])

    # -- reading -------------------------------------------------------------------------

    def card(self, card_id: str) -> CardRecord | None:
        rows = self._query("SELECT * FROM cards WHERE card_id = ?", (card_id,))
        return _row_to_record(rows[0], self.path) if rows else None

    def state(self, card_id: str) -> CardState:
        """The card's scheduling state; a fresh new state for a card never seen."""
        record = self.card(card_id)
        return record.state if record else CardState()

    def state_version(self, card_id: str) -> tuple[CardState, int]:
        """The card's scheduling state and its row version (0 for a card never seen): pass
        the version to :meth:`record_review` as ``expected_version``."""
        record = self.card(card_id)
        return (record.state, record.version) if record else (CardState(), 0)

    def cards(self) -> dict[str, CardRecord]:
        return {
            r["card_id"]: _row_to_record(r, self.path) for r in self._query("SELECT * FROM cards")
        }

    def reviews(
        self,
        card_id: str | None = None,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[Review]:
        """Stored reviews in commit order, optionally of one card and within ``[since, until)``."""
        where, params = [], []
        if card_id is not None:
            where.append("card_id = ?")
            params.append(card_id)
        if since is not None:
            where.append("reviewed_at >= ?")
            params.append(format_time(since))
        if until is not None:
            where.append("reviewed_at < ?")
            params.append(format_time(until))
        sql = "SELECT * FROM reviews" + (" WHERE " + " AND ".join(where) if where else "")
        return [_row_to_review(r, self.path) for r in self._query(sql + " ORDER BY id", params)]

    def review_count(self, *, practice: bool | None = None) -> int:
        if practice is None:
            return int(self._query("SELECT count(*) FROM reviews")[0][0])
        rows = self._query("SELECT count(*) FROM reviews WHERE practice = ?", (int(practice),))
        return int(rows[0][0])

    def has_review(self, uid: str) -> bool:
        return bool(self._query("SELECT 1 FROM reviews WHERE uid = ?", (uid,)))

    def last_review(self, card_id: str | None = None) -> Review | None:
        if card_id is None:
            rows = self._query("SELECT * FROM reviews ORDER BY id DESC LIMIT 1")
        else:
            rows = self._query(
                "SELECT * FROM reviews WHERE card_id = ? ORDER BY id DESC LIMIT 1", (card_id,)
            )
        return _row_to_review(rows[0], self.path) if rows else None

    def done_between(self, start: datetime, end: datetime) -> dict[str, tuple[int, int]]:
        """Per deck, scheduled reviews in ``[start, end)``: (new cards introduced, review-phase reviews).

        These are what the daily limits count; practice reviews do not count.
        """
        rows = self._query(
            "SELECT deck, "
            "sum(phase_before = ?) AS new, sum(phase_before = ?) AS rev "
            "FROM reviews WHERE practice = 0 AND reviewed_at >= ? AND reviewed_at < ? "
            "GROUP BY deck",
            (int(Phase.NEW), int(Phase.REVIEW), format_time(start), format_time(end)),
        )
        return {r["deck"]: (int(r["new"] or 0), int(r["rev"] or 0)) for r in rows}

    # -- writing -------------------------------------------------------------------------

    def _put(
        self, db: sqlite3.Connection, record: CardRecord, *, expected_version: int | None = None
    ) -> bool:
        """Write a card's row, bumping its version; with ``expected_version``, only if the
        row still has that version (compare-and-swap). Returns whether it was written."""
        cas = "" if expected_version is None else " WHERE cards.version = ?"
        cur = db.execute(
            "INSERT INTO cards (card_id, deck, phase, due, state, suspended, leech, "
            "buried_until, orphaned, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1) "
            "ON CONFLICT (card_id) DO UPDATE SET deck = excluded.deck, phase = excluded.phase, "
            "due = excluded.due, state = excluded.state, suspended = excluded.suspended, "
            "leech = excluded.leech, buried_until = excluded.buried_until, "
            "orphaned = excluded.orphaned, version = cards.version + 1" + cas,
            (
                record.card_id,
                record.deck,
                int(record.state.phase),
                format_time(record.state.due),
                json.dumps(record.state.to_dict()),
                int(record.suspended),
                int(record.leech),
                format_time(record.buried_until),
                int(record.orphaned),
                *(() if expected_version is None else (expected_version,)),
            ),
        )
        return cur.rowcount == 1

    def _current(self, db: sqlite3.Connection, card_id: str, deck: str) -> CardRecord:
        row = db.execute("SELECT * FROM cards WHERE card_id = ?", (card_id,)).fetchone()
        if row is None:
            return CardRecord(card_id=card_id, deck=deck)
        record = _row_to_record(row, self.path)
        return replace(record, deck=deck or record.deck, orphaned=False)

    def _exists(self, db: sqlite3.Connection, card_id: str) -> bool:
        return (
            db.execute("SELECT 1 FROM cards WHERE card_id = ?", (card_id,)).fetchone() is not None
        )

    def _insert_review(self, db: sqlite3.Connection, review: Review) -> bool:
        cur = db.execute(
            "INSERT OR IGNORE INTO reviews (uid, card_id, deck, reviewed_at, rating, duration_ms, "
            "answer, correct, seed, practice, phase_before, before, after, hinted, given) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                review.uid,
                review.card_id,
                review.deck,
                format_time(review.reviewed_at),
                int(review.rating),
                review.duration_ms,
                review.answer,
                None if review.correct is None else int(review.correct),
                review.seed,
                int(review.practice),
                int(review.before.state.phase),
                json.dumps(review.before.to_dict()),
                json.dumps(review.after.to_dict()),
                int(review.hinted),
                json.dumps(dict(review.given)) if review.given else None,
            ),
        )
        return cur.rowcount == 1

    def record_review(
        self,
        card_id: str,
        rating: Rating,
        after: CardState,
        *,
        reviewed_at: datetime,
        deck: str = "",
        duration_ms: int | None = None,
        answer: str | None = None,
        correct: bool | None = None,
        seed: int | None = None,
        practice: bool = False,
        leech_threshold: int = 8,
        hinted: bool = False,
        expected_version: int | None = None,
        given: tuple[tuple[str, float], ...] = (),
    ) -> Review:
        """Store one review and the card's new state in one committed transaction.

        The state before is read inside the transaction (so undo restores what was
        really there). ``practice`` logs the review and leaves the schedule alone.
        At ``leech_threshold`` lapses (0: never), and every half threshold after that, the
        card is tagged leech and suspended (as Anki alerts again).

        ``expected_version`` is the version :meth:`state_version` returned with the state
        ``after`` was computed from: if another session has written the card since, nothing
        is stored and :class:`StaleState` carries the card's current state and version, to
        compute ``after`` again. So two sessions reviewing one card serialise: its ``reps``
        never falls behind its review count.
        """
        rating = Rating(int(rating))
        with self._write() as db:
            current = self._current(db, card_id, deck)
            if (
                expected_version is not None
                and not practice
                and current.version != expected_version
            ):
                raise StaleState(card_id, current.state, current.version)
            if practice:
                new = current
            else:
                new = replace(current, state=after)
                # At the threshold and every half threshold after it (deck.review.anki).
                became_leech = after.lapses > current.state.lapses and leech_alert(
                    after.lapses, leech_threshold
                )
                if became_leech:
                    new = replace(new, leech=True, suspended=True)
            review = Review(
                uid=uuid.uuid4().hex,
                card_id=card_id,
                deck=new.deck,
                reviewed_at=reviewed_at,
                rating=rating,
                before=current.snapshot(),
                after=new.snapshot(),
                duration_ms=duration_ms,
                answer=answer,
                correct=correct,
                seed=seed,
                practice=practice,
                hinted=hinted,
                given=tuple(sorted(given)),
            )
            # a practised card never seen keeps having no record
            written = (practice and not self._exists(db, card_id)) or self._put(
                db, new, expected_version=current.version
            )
            if not written:
                raise StaleState(card_id, current.state, current.version)
            self._insert_review(db, review)
            row_id = db.execute("SELECT last_insert_rowid()").fetchone()[0]
        return replace(review, id=int(row_id))

    def undo(self, review_id: int | None = None) -> Review:
        """Remove a review (default: the latest stored) and restore its card's state before it.

        Only a card's latest review can be undone (later ones were computed from it).
        """
        with self._write() as db:
            if review_id is None:
                row = db.execute("SELECT * FROM reviews ORDER BY id DESC LIMIT 1").fetchone()
                if row is None:
                    raise UndoError("there is no review to undo")
            else:
                row = db.execute("SELECT * FROM reviews WHERE id = ?", (review_id,)).fetchone()
                if row is None:
                    raise UndoError(f"review {review_id} is not in the database")
            review = _row_to_review(row, self.path)
            later = db.execute(
                "SELECT count(*) FROM reviews WHERE card_id = ? AND id > ?",
                (review.card_id, review.id),
            ).fetchone()[0]
            if later:
                raise UndoError(
                    f"card {review.card_id!r} has been reviewed since; only its latest review "
                    "can be undone"
                )
            current = self._current(db, review.card_id, review.deck)
            self._put(db, current.with_snapshot(review.before))
            db.execute("DELETE FROM reviews WHERE id = ?", (review.id,))
        return review

    def _update_flags(self, card_id: str, deck: str, **changes: Any) -> CardRecord:
        with self._write() as db:
            record = replace(self._current(db, card_id, deck), **changes)
            self._put(db, record)
        return record

    def suspend(self, card_id: str, suspended: bool = True, *, deck: str = "") -> CardRecord:
        """Suspend (or unsuspend) a card: it leaves every queue until unsuspended."""
        return self._update_flags(card_id, deck, suspended=suspended)

    def bury(self, card_id: str, until: datetime | None, *, deck: str = "") -> CardRecord:
        """Hide a card from the queue until ``until`` (the next day start); ``None`` unburies."""
        return self._update_flags(card_id, deck, buried_until=until)

    def set_leech(self, card_id: str, leech: bool, *, deck: str = "") -> CardRecord:
        return self._update_flags(card_id, deck, leech=leech)
