"""The store's interview results: the ``interviews`` table (schema version 5) and sending an
interview's weak cards to review.

An interview is a practice session: storing its scorecard never touches a card's schedule.
Only :meth:`InterviewsMixin.make_due`, when the learner asks, moves a card's due time to now
— nothing else of its FSRS state (stability, difficulty, last review, reps, lapses, phase)
changes, and no review is logged, so the next real review is scheduled from the true
history. A new card is left alone: it is already waiting to be introduced.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deck.base.errors import DeckError
from deck.review.scheduler import format_time, parse_time
from deck.review.store.records import CorruptDatabase, StoreError
from deck.units import check_number

MAX_DOCUMENT_CHARS = 2_000_000  # 30 questions of 1,000-character answers fit many times over
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class InterviewRecord:
    """One stored interview: who asked what (the scorecard document) and how it went."""

    id: int
    uid: str
    interview: str
    topic: str
    started_at: datetime
    seed: int
    score: float
    questions: int
    ended: str
    document: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "interview": self.interview,
            "topic": self.topic,
            "started_at": format_time(self.started_at),
            "seed": self.seed,
            "score": self.score,
            "questions": self.questions,
            "ended": self.ended,
            "weak_cards": list(self.document.get("weak_cards", [])),
            "topics": dict(self.document.get("topics", {})),
        }


class InterviewsMixin:
    """Interview results, mixed into :class:`deck.review.store.Store`."""

    path: Path

    if TYPE_CHECKING:  # provided by Store

        def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...
        def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]: ...
        def _current(self, db: sqlite3.Connection, card_id: str, deck: str) -> Any: ...
        def _put(self, db: sqlite3.Connection, record: Any) -> bool: ...

    def record_interview(
        self, document: Mapping[str, Any], *, started_at: datetime
    ) -> InterviewRecord:
        """Store one interview's scorecard (committed before this returns). The document
        needs ``interview``, ``seed``, ``score``, ``questions`` (a list) and ``ended``."""
        text = json.dumps(document, ensure_ascii=False, allow_nan=False)
        if len(text) > MAX_DOCUMENT_CHARS:
            raise StoreError(
                f"an interview scorecard of {len(text):,} characters is too large to store"
            )
        record = _record(
            {
                "id": 0,
                "uid": uuid.uuid4().hex,
                "interview": document.get("interview"),
                "topic": document.get("topic", ""),
                "started_at": format_time(started_at),
                "seed": document.get("seed"),
                "score": document.get("score"),
                "questions": len(document.get("questions") or []),
                "ended": document.get("ended"),
                "document": text,
            },
            self.path,
            writing=True,
        )
        with self._write() as db:
            db.execute(
                "INSERT INTO interviews (uid, interview, topic, started_at, seed, score, questions, "
                "ended, document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.uid,
                    record.interview,
                    record.topic,
                    format_time(record.started_at),
                    record.seed,
                    record.score,
                    record.questions,
                    record.ended,
                    text,
                ),
            )
            row_id = db.execute("SELECT last_insert_rowid()").fetchone()[0]
        return replace(record, id=int(row_id))

    def interviews(self, *, topic: str | None = None) -> list[InterviewRecord]:
        """Stored interviews, oldest first, optionally of one topic."""
        sql, params = "SELECT * FROM interviews", []
        if topic is not None:
            sql += " WHERE topic = ?"
            params.append(topic)
        rows = self._query(sql + " ORDER BY started_at, id", params)
        return [_record(dict(r), self.path) for r in rows]

    def make_due(
        self, card_ids: Iterable[str], now: datetime, *, decks: Mapping[str, str]
    ) -> list[str]:
        """Make the cards due at ``now`` (their other FSRS state untouched, nothing logged);
        returns those that moved. New cards, and cards already due, stay as they are."""
        moved: list[str] = []
        with self._write() as db:
            for card_id in dict.fromkeys(card_ids):
                current = self._current(db, card_id, decks.get(card_id, ""))
                state = current.state
                if state.is_new or state.due is None or state.due <= now:
                    continue
                self._put(db, replace(current, state=replace(state, due=now)))
                moved.append(card_id)
        return moved


def _record(row: Mapping[str, Any], path: Path, *, writing: bool = False) -> InterviewRecord:
    """An ``interviews`` row, every field checked; junk is :class:`CorruptDatabase`."""
    with _checked(path, row.get("uid"), writing):
        document = row["document"]
        parsed = json.loads(document) if isinstance(document, str) else None
        if not isinstance(parsed, dict):
            raise ValueError("the scorecard is not a JSON object")
        names = {}
        for key in ("uid", "interview", "topic", "ended"):
            value = row[key]
            if not isinstance(value, str) or len(value) > MAX_NAME_CHARS:
                raise ValueError(f"{key} is not a short text")
            names[key] = value
        if not names["interview"]:
            raise ValueError("interview is empty")
        started = parse_time(row["started_at"])
        if started is None:
            raise ValueError("started_at is missing")
        return InterviewRecord(
            id=int(row["id"]),
            uid=names["uid"],
            interview=names["interview"],
            topic=names["topic"],
            started_at=started,
            seed=int(check_number(row["seed"], "seed", low=0, high=2**63 - 1, integer=True)),
            score=float(check_number(row["score"], "score", low=0, high=100)),
            questions=int(
                check_number(row["questions"], "questions", low=0, high=10**6, integer=True)
            ),
            ended=names["ended"],
            document=parsed,
        )


class _checked:
    """Turn a bad value into one line: the database is damaged (a read), or the scorecard
    cannot be stored (a write)."""

    def __init__(self, path: Path, key: object, writing: bool) -> None:
        self.path, self.key, self.writing = path, key, writing

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        if exc is None or not isinstance(
            exc, ValueError | TypeError | KeyError | RecursionError | DeckError
        ):
            return False
        what = (str(exc) if not isinstance(exc, KeyError) else f"missing {exc}")[:200]
        if self.writing:
            raise StoreError(f"cannot store the interview: {what}") from None
        raise CorruptDatabase(
            f"{self.path}: the review database is damaged (table interviews, row "
            f"{str(self.key)[:40]!r}: {what}); left unchanged"
        ) from None
