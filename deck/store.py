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
import functools
import json
import os
import re
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from deck.errors import DeckError
from deck.model import Rating
from deck.safeio import database_path
from deck.scheduler import CardState, Phase, format_time, parse_time
from deck.units import check_number

APPLICATION_ID = 0x51434F4C  # "QCOL", in the SQLite header at offset 68
SCHEMA_VERSION = 4
BUSY_TIMEOUT_S = 30.0
_SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(DeckError):
    """The review database cannot be used."""


class NotQuizcollDatabase(StoreError):
    """The file is not a quizcoll review database (another program's, or not SQLite)."""


class CorruptDatabase(StoreError):
    """The file is a quizcoll database that SQLite finds damaged."""


class NewerDatabase(StoreError):
    """The database was written by a newer quizcoll (a schema version we do not know)."""


class NoDatabase(StoreError):
    """No database exists at the path, and the command only reads one."""


class StaleState(StoreError):
    """Another session wrote the card since its state was read; nothing was stored.

    ``state`` and ``version`` are the card's current ones: compute the review again from them.
    """

    def __init__(self, card_id: str, state: CardState, version: int) -> None:
        super().__init__(
            f"card {card_id!r} was reviewed in another session meanwhile; "
            "its review must be computed again from the new state"
        )
        self.card_id = card_id
        self.state = state
        self.version = version


class UndoError(StoreError):
    """There is nothing to undo, or the review is not the card's latest."""


# -- checking what is read ----------------------------------------------------------------
# A row of the database or an entry of an imported history may hold anything: every field is
# checked on the way in, so junk is refused (an import) or reported as damage (a row), never
# passed on to the scheduler or the statistics.

_CARD_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # the card format's id rule
_UID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_NAME_CHARS = 200  # a card id or a deck name
MAX_ANSWER_TEXT = 10_000  # a stored answer (typed answers are capped at 1,000)
MAX_DURATION_MS = 2**31 - 1  # about 24 days
MAX_SQL_INT = 2**63 - 1  # SQLite's INTEGER


def _mapping(data: Any, what: str) -> None:
    if not isinstance(data, dict):
        raise TypeError(f"expected a {what} mapping, got {type(data).__name__}")


def _flag(value: Any, what: str) -> bool:
    """true/false, or SQLite's 0/1."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{what} must be true or false, got {str(value)[:40]!r}")


def _text(value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be text, got {type(value).__name__}")
    if len(value) > limit:
        raise ValueError(f"{what} is {len(value):,} characters long (at most {limit:,})")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} holds characters that are not text (lone surrogates)") from None
    return value


def _optional_text(value: Any, what: str, limit: int) -> str | None:
    return None if value is None else _text(value, what, limit)


def _card_id(value: Any) -> str:
    card_id = _text(value, "card_id", MAX_NAME_CHARS)
    if not _CARD_ID.match(card_id):
        raise ValueError(
            f"card_id {card_id[:40]!r} is not a card id (lowercase letters, digits, '-')"
        )
    return card_id


def _optional_int(value: Any, what: str, high: int) -> int | None:
    if value is None:
        return None
    return int(check_number(value, what, low=0, high=high, integer=True))


# -- values -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything about a card that a review can change."""

    state: CardState = field(default_factory=CardState)
    suspended: bool = False
    leech: bool = False
    buried_until: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state.to_dict(),
            "suspended": self.suspended,
            "leech": self.leech,
            "buried_until": format_time(self.buried_until),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Snapshot:
        """The inverse of :meth:`to_dict`, every field checked (``ValueError``/``TypeError``)."""
        _mapping(data, "snapshot")
        return cls(
            state=CardState.from_dict(data["state"]),
            suspended=_flag(data.get("suspended", False), "suspended"),
            leech=_flag(data.get("leech", False), "leech"),
            buried_until=parse_time(data.get("buried_until")),
        )


@dataclass(frozen=True)
class CardRecord:
    """A card as the store knows it. Cards never reviewed nor flagged have no record."""

    card_id: str
    deck: str = ""
    state: CardState = field(default_factory=CardState)
    suspended: bool = False
    leech: bool = False
    buried_until: datetime | None = None
    orphaned: bool = False
    # Bumped by every write of the card's row: the compare-and-swap token of record_review.
    # Local to one database (never exported), so not part of a record's identity.
    version: int = field(default=0, compare=False)

    def snapshot(self) -> Snapshot:
        return Snapshot(self.state, self.suspended, self.leech, self.buried_until)

    def with_snapshot(self, snap: Snapshot) -> CardRecord:
        return replace(
            self,
            state=snap.state,
            suspended=snap.suspended,
            leech=snap.leech,
            buried_until=snap.buried_until,
        )

    def is_buried(self, now: datetime) -> bool:
        return self.buried_until is not None and self.buried_until > now

    def to_dict(self) -> dict[str, Any]:
        return {"card_id": self.card_id, "deck": self.deck, "orphaned": self.orphaned} | (
            self.snapshot().to_dict()
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardRecord:
        """The inverse of :meth:`to_dict`, every field checked (``ValueError``/``TypeError``)."""
        _mapping(data, "card record")
        return cls(
            card_id=_card_id(data["card_id"]),
            deck=_text(data.get("deck", ""), "deck", MAX_NAME_CHARS),
            orphaned=_flag(data.get("orphaned", False), "orphaned"),
        ).with_snapshot(Snapshot.from_dict(data))


@dataclass(frozen=True)
class Review:
    """One stored review. ``uid`` is its identity across databases (history merge)."""

    uid: str
    card_id: str
    deck: str
    reviewed_at: datetime
    rating: Rating
    before: Snapshot
    after: Snapshot
    duration_ms: int | None = None
    answer: str | None = None
    correct: bool | None = None
    seed: int | None = None
    practice: bool = False  # cram review: logged, schedule unchanged
    id: int | None = None  # local row id, in commit order
    hinted: bool = False  # the card's hint was shown before answering

    def to_dict(self) -> dict[str, Any]:
        """JSON form without the local row id (which is not portable)."""
        return {
            "uid": self.uid,
            "card_id": self.card_id,
            "deck": self.deck,
            "reviewed_at": format_time(self.reviewed_at),
            "rating": int(self.rating),
            "duration_ms": self.duration_ms,
            "answer": self.answer,
            "correct": self.correct,
            "seed": self.seed,
            "practice": self.practice,
            "hinted": self.hinted,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review:
        """The inverse of :meth:`to_dict`, every field checked before anything is stored
        (``ValueError``/``KeyError``/``TypeError`` naming the field)."""
        _mapping(data, "review")
        uid = data["uid"]
        if not isinstance(uid, str) or not _UID.match(uid):
            raise ValueError(f"uid {str(uid)[:40]!r} is not a review id (1–64 letters and digits)")
        reviewed_at = parse_time(data["reviewed_at"])
        if reviewed_at is None:
            raise ValueError("reviewed_at is missing")
        correct = data.get("correct")
        return cls(
            uid=uid,
            card_id=_card_id(data["card_id"]),
            deck=_text(data.get("deck", ""), "deck", MAX_NAME_CHARS),
            reviewed_at=reviewed_at,
            rating=Rating(check_number(data["rating"], "rating", low=1, high=4, integer=True)),
            before=Snapshot.from_dict(data["before"]),
            after=Snapshot.from_dict(data["after"]),
            duration_ms=_optional_int(data.get("duration_ms"), "duration_ms", MAX_DURATION_MS),
            answer=_optional_text(data.get("answer"), "answer", MAX_ANSWER_TEXT),
            correct=None if correct is None else _flag(correct, "correct"),
            seed=_optional_int(data.get("seed"), "seed", MAX_SQL_INT),
            practice=_flag(data.get("practice", False), "practice"),
            hinted=_flag(data.get("hinted", False), "hinted"),
        )


@dataclass(frozen=True)
class SyncResult:
    """What :meth:`Store.sync_cards` changed."""

    orphaned: tuple[str, ...] = ()
    returned: tuple[str, ...] = ()


@dataclass(frozen=True)
class MergeResult:
    """What :meth:`Store.merge` did: reviews added and skipped (already there), cards updated."""

    added: int = 0
    skipped: int = 0
    cards_updated: int = 0


# -- schema -------------------------------------------------------------------------------

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # version N: the statements that take a version N-1 database to version N
    1: (
        """CREATE TABLE cards (
            card_id TEXT PRIMARY KEY,
            deck TEXT NOT NULL DEFAULT '',
            phase INTEGER NOT NULL,
            due TEXT,
            state TEXT NOT NULL,
            suspended INTEGER NOT NULL DEFAULT 0,
            leech INTEGER NOT NULL DEFAULT 0,
            buried_until TEXT,
            orphaned INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE reviews (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            card_id TEXT NOT NULL,
            deck TEXT NOT NULL DEFAULT '',
            reviewed_at TEXT NOT NULL,
            rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
            duration_ms INTEGER,
            answer TEXT,
            correct INTEGER,
            seed INTEGER,
            practice INTEGER NOT NULL DEFAULT 0,
            phase_before INTEGER NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL
        )""",
    ),
    # version 2: indexes for the per-card undo lookup, daily counts and the due forecast
    2: (
        "CREATE INDEX reviews_by_card ON reviews (card_id, id)",
        "CREATE INDEX reviews_by_time ON reviews (reviewed_at)",
        "CREATE INDEX cards_by_due ON cards (due)",
    ),
    # version 3: a version per card row, bumped by every write: the compare-and-swap token
    # that makes two sessions reviewing one card serialise (record_review(expected_version))
    3: ("ALTER TABLE cards ADD COLUMN version INTEGER NOT NULL DEFAULT 0",),
    # version 4: whether the hint was shown (older reviews: it was not, there were no hints)
    4: ("ALTER TABLE reviews ADD COLUMN hinted INTEGER NOT NULL DEFAULT 0",),
}


@functools.cache
def _expected_tables(version: int) -> dict[str, tuple[tuple[str, str, int, int], ...]]:
    """Our tables at schema ``version``: name -> columns (name, type, not null, primary key)."""
    db = sqlite3.connect(":memory:")
    try:
        _migrate(db, 0, version)
        return _tables(db)
    finally:
        db.close()


def _tables(db: sqlite3.Connection) -> dict[str, tuple[tuple[str, str, int, int], ...]]:
    names = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
        )
    ]
    return {
        name: tuple(
            (str(c[1]), str(c[2]).upper(), int(c[3]), int(c[5]))
            for c in db.execute(f"PRAGMA table_info({_quote(name)})")
        )
        for name in sorted(names)
    }


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _migrate(db: sqlite3.Connection, start: int, target: int) -> None:
    for version in range(start + 1, target + 1):
        for statement in _MIGRATIONS[version]:
            db.execute(statement)
    db.execute(f"PRAGMA user_version = {int(target)}")


# -- opening ------------------------------------------------------------------------------


def _check_header(path: Path) -> None:
    """Refuse a file that is not an SQLite database carrying quizcoll's application id."""
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the review database: {exc}") from None
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise NotQuizcollDatabase(
            f"{path}: not a quizcoll review database (not an SQLite file); left unchanged"
        )
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != APPLICATION_ID:
        raise NotQuizcollDatabase(
            f"{path}: an SQLite database of another program, not a quizcoll "
            "review database; left unchanged"
        )


def _damaged(path: Path, exc: sqlite3.Error) -> StoreError:
    """The right error for an SQLite failure on a file whose header said it is ours."""
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith("SQLITE_FULL"):
        return StoreError(
            f"{path}: the disk is full (SQLite: {exc}); nothing was written, the review "
            "database is as it was"
        )
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreError(f"{path}: the review database stays locked by another program: {exc}")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_PERM")):
        return StoreError(f"{path}: cannot use the review database: {exc}")
    return CorruptDatabase(f"{path}: the review database is damaged ({exc}); left unchanged")


def _inspect_read_only(path: Path) -> int:
    """The schema version of a quizcoll database, checked read-only for damage."""
    uri = "file:" + quote(str(path.resolve())) + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise _damaged(path, exc) from None
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise NewerDatabase(
                f"{path}: written by a newer quizcoll (schema version {version}, "
                f"this one knows up to {SCHEMA_VERSION}); upgrade quizcoll; left unchanged"
            )
        result = db.execute("PRAGMA quick_check").fetchall()
        if [tuple(r) for r in result] != [("ok",)]:
            first = " ".join(str(result[0][0]).split()) if result else "no result"
            raise CorruptDatabase(
                f"{path}: the review database is damaged ({first}); left unchanged"
            )
        _check_schema(path, version, _tables(db))
        if 0 < version < SCHEMA_VERSION:
            # A migration will write to the file: check every row first, so that a damaged
            # old database is reported, and left, exactly as it was.
            db.row_factory = sqlite3.Row
            for row in db.execute("SELECT * FROM cards"):
                _row_to_record(row, path)
            for row in db.execute("SELECT * FROM reviews"):
                _row_to_review(row, path)
        return version
    except sqlite3.Error as exc:
        raise _damaged(path, exc) from None
    finally:
        db.close()


def _check_schema(path: Path, version: int, found: dict[str, Any]) -> None:
    """Refuse a file that carries our application id but not our tables (checked read-only,
    before anything is written, so such a file stays byte-for-byte as it was)."""
    expected = _expected_tables(version)
    if found == expected:
        return
    extra = sorted(set(found) - set(expected))
    missing = sorted(set(expected) - set(found))
    if extra or missing:
        what = f"tables {', '.join(extra)} are not ours" if extra else f"no table {missing[0]!r}"
    else:
        table = next(t for t in sorted(expected) if found[t] != expected[t])
        what = f"table {table!r} has other columns than quizcoll's"
    raise NotQuizcollDatabase(
        f"{path}: carries quizcoll's application id, but its schema is not a quizcoll review "
        f"database's (schema version {version}: {what}); left unchanged"
    )


def _create(path: Path, *, replace_empty: bool) -> None:
    """Build a fresh database next to ``path`` and move it into place atomically."""
    try:
        # An empty file reached through a link is replaced where it is, never the link.
        _build(path.resolve() if path.is_symlink() else path, replace_empty=replace_empty)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot create the review database: {exc}") from None


def _build(path: Path, *, replace_empty: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    now = time.time()
    for stale in path.parent.glob(f".{path.name}.*.creating"):
        # left by a creation that was killed; a live one finishes in well under a minute
        with contextlib.suppress(OSError):
            if now - stale.stat().st_mtime > 60:
                stale.unlink()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.creating")
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("PRAGMA journal_mode = WAL")  # persistent: the file is WAL from the start
            db.execute("BEGIN IMMEDIATE")
            _migrate(db, 0, SCHEMA_VERSION)
            db.execute("COMMIT")
        finally:
            db.close()
        if replace_empty:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if another process created it first: keep theirs
            except FileExistsError:
                pass
            except OSError:  # a filesystem without hard links
                if not path.exists():
                    os.replace(tmp, path)
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _row_to_record(row: sqlite3.Row, path: Path) -> CardRecord:
    """A ``cards`` row, every field checked; junk is :class:`CorruptDatabase`."""
    with _row_checked(path, "cards", row["card_id"]):
        record = CardRecord.from_dict(
            {
                "card_id": row["card_id"],
                "deck": row["deck"],
                "orphaned": row["orphaned"],
                "state": json.loads(row["state"]),
                "suspended": row["suspended"],
                "leech": row["leech"],
                "buried_until": row["buried_until"],
            }
        )
        columns = row.keys()
        version = row["version"] if "version" in columns else 0  # before schema version 3
        return replace(record, version=int(check_number(version, "version", low=0, integer=True)))


def _row_to_review(row: sqlite3.Row, path: Path) -> Review:
    """A ``reviews`` row, every field checked; junk is :class:`CorruptDatabase`."""
    with _row_checked(path, "reviews", row["uid"]):
        review = Review.from_dict(
            {
                "uid": row["uid"],
                "card_id": row["card_id"],
                "deck": row["deck"],
                "reviewed_at": row["reviewed_at"],
                "rating": row["rating"],
                "duration_ms": row["duration_ms"],
                "answer": row["answer"],
                "correct": row["correct"],
                "seed": row["seed"],
                "practice": row["practice"],
                # rows are checked before migrating: an older file has no hinted column
                "hinted": row["hinted"] if "hinted" in row.keys() else 0,  # noqa: SIM118 (a Row tests values with in)
                "before": json.loads(row["before"]),
                "after": json.loads(row["after"]),
            }
        )
        return replace(review, id=row["id"])


@contextlib.contextmanager
def _row_checked(path: Path, table: str, key: object) -> Iterator[None]:
    """Turn a bad value in a row into one line saying the database is damaged, and where."""
    try:
        yield
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        what = str(exc) if not isinstance(exc, KeyError) else f"missing {exc}"
        raise CorruptDatabase(
            f"{path}: the review database is damaged (table {table}, row {str(key)[:40]!r}: "
            f"{what[:200]}); left unchanged"
        ) from None


# -- the store ----------------------------------------------------------------------------


class Store:
    """An open review database. Use :meth:`open`; close it (or use it as a context manager)."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path = path
        self._db = db

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> Store:
        """Open (creating if absent, unless ``create`` is false) the review database at ``path``.

        Raises :class:`NotQuizcollDatabase`, :class:`CorruptDatabase`,
        :class:`NewerDatabase`, :class:`NoDatabase` or :class:`StoreError`; the file is then
        left untouched. A device, FIFO, folder or dangling link at ``path`` is refused
        (:func:`deck.safeio.database_path`).
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
        self._db.close()

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
            "answer, correct, seed, practice, phase_before, before, after, hinted) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    ) -> Review:
        """Store one review and the card's new state in one committed transaction.

        The state before is read inside the transaction (so undo restores what was
        really there). ``practice`` logs the review and leaves the schedule alone.
        After ``leech_threshold`` lapses (0: never) the card is tagged leech and suspended.

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
                became_leech = (
                    leech_threshold > 0
                    and after.lapses >= leech_threshold
                    and after.lapses > current.state.lapses
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

    def rename_card(self, old: str, new: str) -> int:
        """Carry the history and state of card ``old`` to the id ``new``, in one transaction;
        returns the reviews moved. Refused when ``new`` already has a record or reviews (two
        histories are never mixed) or ``old`` has neither."""
        with self._write() as db:
            for card_id in (new, old):
                has = db.execute(
                    "SELECT (SELECT count(*) FROM cards WHERE card_id = ?) + "
                    "(SELECT count(*) FROM reviews WHERE card_id = ?)",
                    (card_id, card_id),
                ).fetchone()[0]
                if card_id == new and has:
                    raise StoreError(
                        f"{self.path}: card {new!r} already has a history; not renamed"
                    )
                if card_id == old and not has:
                    raise StoreError(f"{self.path}: card {old!r} has no history to rename")
            db.execute("UPDATE cards SET card_id = ? WHERE card_id = ?", (new, old))
            moved = db.execute("UPDATE reviews SET card_id = ? WHERE card_id = ?", (new, old))
            return int(moved.rowcount)

    def sync_cards(self, cards: Iterable[tuple[str, str]]) -> SyncResult:
        """Reconcile with the collection's ``(card_id, deck)`` pairs.

        Records whose id is gone are marked orphaned (their history stays); orphaned
        records whose id is back are restored, and deck names follow the YAML. Writes
        only when something changed.
        """
        present = dict(cards)
        rows = self._query("SELECT card_id, deck, orphaned FROM cards")
        gone = [r["card_id"] for r in rows if r["card_id"] not in present and not r["orphaned"]]
        back = [r["card_id"] for r in rows if r["card_id"] in present and r["orphaned"]]
        moved = [
            (present[r["card_id"]], r["card_id"])
            for r in rows
            if r["card_id"] in present and r["deck"] != present[r["card_id"]]
        ]
        if gone or back or moved:
            with self._write() as db:
                db.executemany(
                    "UPDATE cards SET orphaned = 1 WHERE card_id = ?", [(c,) for c in gone]
                )
                db.executemany(
                    "UPDATE cards SET orphaned = 0 WHERE card_id = ?", [(c,) for c in back]
                )
                db.executemany("UPDATE cards SET deck = ? WHERE card_id = ?", moved)
        return SyncResult(orphaned=tuple(sorted(gone)), returned=tuple(sorted(back)))

    def merge(self, records: Iterable[CardRecord], reviews: Iterable[Review]) -> MergeResult:
        """Merge another history in, in one transaction.

        Reviews are keyed on ``uid`` (one already present is skipped, never duplicated)
        and inserted in time order. A card's record is taken from the import when the
        card is unknown here or the imported state is from a later review.
        """
        added = skipped = updated = 0
        ordered = sorted(reviews, key=lambda r: (r.reviewed_at, r.id or 0))
        with self._write() as db:
            for review in ordered:
                if self._insert_review(db, review):
                    added += 1
                else:
                    skipped += 1
            for record in records:
                row = db.execute(
                    "SELECT * FROM cards WHERE card_id = ?", (record.card_id,)
                ).fetchone()
                if row is not None:
                    local = _row_to_record(row, self.path)
                    theirs = record.state.last_review
                    ours = local.state.last_review
                    if theirs is None or (ours is not None and theirs <= ours):
                        continue
                    record = replace(record, orphaned=local.orphaned)
                self._put(db, record)
                updated += 1
        return MergeResult(added=added, skipped=skipped, cards_updated=updated)
