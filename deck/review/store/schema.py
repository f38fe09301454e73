"""The review store's file: its schema and migrations, and opening a file safely — the
header and schema checked read-only before anything is written, rows checked as they are read."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from deck.review.store.records import (
    CardRecord,
    CorruptDatabase,
    NewerDatabase,
    NotQuizcollDatabase,
    Review,
    StoreError,
)
from deck.units import check_number

APPLICATION_ID = 0x51434F4C  # "QCOL", in the SQLite header at offset 68
SCHEMA_VERSION = 6
BUSY_TIMEOUT_S = 30.0
_SQLITE_MAGIC = b"SQLite format 3\x00"


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
    # version 5: mock-interview scorecards (deck.review.store.interviews); no card state changes
    5: (
        """CREATE TABLE interviews (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            interview TEXT NOT NULL,
            topic TEXT NOT NULL DEFAULT '',
            started_at TEXT NOT NULL,
            seed INTEGER NOT NULL,
            score REAL NOT NULL,
            questions INTEGER NOT NULL,
            ended TEXT NOT NULL,
            document TEXT NOT NULL
        )""",
        "CREATE INDEX interviews_by_time ON interviews (started_at)",
    ),
    # version 6: the values a learner's setup gave the instance (JSON role -> value, e.g. a
    # calibrated cluster's link latency); NULL for an instance drawn from its seed alone
    6: ("ALTER TABLE reviews ADD COLUMN given TEXT",),
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
            # No syncing while the private file is built: it is synced once, whole, below,
            # before it appears under its name (a crash meanwhile leaves only a stale
            # temporary file). Each synced step would cost the first start an fsync.
            db.execute("PRAGMA synchronous = OFF")
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("PRAGMA journal_mode = WAL")  # persistent: the file is WAL from the start
            db.execute("BEGIN IMMEDIATE")
            _migrate(db, 0, SCHEMA_VERSION)
            db.execute("COMMIT")
        finally:
            db.close()  # the last connection: the WAL is checkpointed into the file
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
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
                "given": _given_column(row),
                "before": json.loads(row["before"]),
                "after": json.loads(row["after"]),
            }
        )
        return replace(review, id=row["id"])


def _given_column(row: sqlite3.Row) -> dict[str, Any] | None:
    """The ``given`` column as JSON (absent before schema version 6)."""
    text = row["given"] if "given" in row.keys() else None  # noqa: SIM118 (a Row tests values with in)
    return None if text is None else json.loads(text)


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
