"""Reviews under hostile input (issue 12): undecodable or closed streams, oversized answers,
junk in imported histories and in the database, a full disk, a file that claims to be ours,
and two sessions reviewing one card at once."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from deck.base.typed import MAX_ANSWER_CHARS, AnswerTooLong
from deck.cards.model import Rating
from deck.review.history import HistoryError, export_history, import_history
from deck.review.scheduler import Config, Scheduler
from deck.review.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    NotQuizcollDatabase,
    StaleState,
    Store,
    StoreError,
    _migrate,
)
from quizcoll.cli.cmd_review import plain_session
from quizcoll.cli.main import main
from quizcoll.collection import load

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
SCHED = Scheduler()
RUNNER = "from quizcoll.cli.main import main; import sys; sys.exit(main(sys.argv[1:]))"

CARDS = """\
deck: demo
cards:
  - id: basic-card
    type: basic
    front: What does AllGather do?
    back: Every rank ends with every rank's input.
  - id: choice-card
    type: choice
    front: Which is a collective?
    options: [AllGather, fopen, qsort]
    correct: 0
    shuffle: false
"""


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards.yaml"
    path.write_text(CARDS, encoding="utf-8")
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _review(store: Store, card_id: str, rating: Rating, now: datetime) -> None:
    state = SCHED.review(store.state(card_id), rating, now, card_id)
    store.record_review(card_id, rating, state, reviewed_at=now, deck="demo")


def _session(cards: Path, db: Path, stdin: io.TextIOBase) -> tuple[int, str]:
    collection, registry = load([cards])
    out = io.StringIO()
    with Store.open(db) as store:
        code = plain_session(
            [c for c in collection.cards if c.id == "choice-card"],
            registry,
            store,
            Config(),
            lambda: T0,
            stdin,  # type: ignore[arg-type]
            out,
        )
    return code, out.getvalue()


# -- streams ------------------------------------------------------------------------------


def test_undecodable_input_does_not_lose_the_review(tmp_path: Path, cards: Path) -> None:
    # The bad line is read (as U+FFFD, with a note) and, unreadable as an option, asked
    # again: "a" answers, "3" rates.
    stdin = io.TextIOWrapper(
        io.BytesIO(b"\xff\na\n3\n"), encoding="utf-8", errors="surrogateescape"
    )
    code, out = _session(cards, tmp_path / "r.db", stdin)
    assert code == 0
    assert "not valid UTF-8" in out
    assert "saved: choice-card 3" in out
    with Store.open(tmp_path / "r.db") as store:
        (review,) = store.reviews()
        assert review.answer == "a"  # the answer given once the bad line was asked again


@pytest.mark.parametrize("utf8_mode", ["0", "1"])
def test_undecodable_stdin_through_the_command(tmp_path: Path, cards: Path, utf8_mode: str) -> None:
    """Whatever the locale makes of stdin (strict or surrogateescape), main() reads it so
    that the bad line is one answer and the next line its rating."""
    result = _run(
        ["review", "--plain", "--cards", str(cards), "--db", str(tmp_path / "r.db")],
        input_bytes=b"\xff\n3\n\xfe\na\n2\n",  # the basic card reveals on any line
        env={"PYTHONUTF8": utf8_mode, "LC_ALL": "C.UTF-8"},
    )
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    out = result.stdout.decode()
    assert out.count("not valid UTF-8") == 2 and "end of input: 2 review(s) saved" in out


def test_an_answer_of_5000_digits_is_refused_and_asked_again(tmp_path: Path, cards: Path) -> None:
    stdin = io.StringIO("9" * 5000 + "\n1\n3\n")
    code, out = _session(cards, tmp_path / "r.db", stdin)
    assert code == 0
    assert f"answers are limited to {MAX_ANSWER_CHARS:,}; type it again" in out
    assert "saved: choice-card 3" in out


def test_the_tui_session_caps_answers_too(cards: Path) -> None:
    from quizcoll.tui.services.review import ReviewSession

    collection, registry = load([cards])
    session = ReviewSession(collection.cards, registry, Config(), lambda: T0, lambda: 1)
    with Store.in_memory() as store:
        session.load(store)
        while session.advance(store) is not None and session.current.card.id != "choice-card":
            session.current = None
        with pytest.raises(AnswerTooLong):
            session.check("9" * 5000)
        assert session.check("1") is not None


def _run(argv: list[str], **kw: Any) -> subprocess.CompletedProcess[Any]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    env.update(kw.pop("env", {}))
    data = kw.pop("input_bytes", None)
    return subprocess.run(
        [sys.executable, "-c", RUNNER, *argv],
        capture_output=True,
        text=data is None,
        input=data,
        timeout=120,
        env=env,
        **kw,
    )


def test_closed_stdin_ends_the_session_cleanly(tmp_path: Path, cards: Path) -> None:
    result = _run(
        ["review", "--plain", "--cards", str(cards), "--db", str(tmp_path / "r.db")],
        stdin=None,
        preexec_fn=lambda: os.close(0),
    )
    assert result.returncode == 0, result.stderr
    assert "end of input: 0 review(s) saved" in result.stdout
    assert "Traceback" not in result.stderr


def test_an_ascii_terminal_gets_escapes_not_a_crash() -> None:
    result = _run(["list"], env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "\\u03b1" in result.stdout  # α, escaped
    result = _run(["list", "--json"], env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0
    assert any("α" in c["front"] for c in json.loads(result.stdout))


# -- history import -----------------------------------------------------------------------


@pytest.fixture
def history(tmp_path: Path) -> dict[str, Any]:
    with Store.open(tmp_path / "src.db") as store:
        _review(store, "basic-card", Rating.GOOD, T0)
        _review(store, "basic-card", Rating.GOOD, T0 + timedelta(minutes=10))
        return export_history(store, T0 + timedelta(hours=1))


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def change(doc: dict[str, Any]) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


BAD_ENTRIES = {
    "nan stability": _set(("cards", 0, "state", "stability"), float("nan")),
    "negative stability": _set(("cards", 0, "state", "stability"), -5),
    "zero stability": _set(("reviews", 1, "after", "state", "stability"), 0),
    "difficulty 11": _set(("cards", 0, "state", "difficulty"), 11),
    "year 1": _set(("reviews", 0, "reviewed_at"), "0001-01-01T00:00:00+00:00"),
    "year 9999 due": _set(("cards", 0, "state", "due"), "9999-12-31T00:00:00+00:00"),
    "naive time": _set(("reviews", 0, "reviewed_at"), "2024-03-01T09:00:00"),
    "rating 9": _set(("reviews", 0, "rating"), 9),
    "rating true": _set(("reviews", 0, "rating"), True),
    "seed 2^70": _set(("reviews", 0, "seed"), 2**70),
    "negative reps": _set(("cards", 0, "state", "reps"), -1),
    "phase junk": _set(("cards", 0, "state", "phase"), "limbo"),
    "review without stability": _set(("cards", 0, "state", "stability"), None),
    "id with slash": _set(("cards", 0, "card_id"), "../x"),
    "uid junk": _set(("reviews", 0, "uid"), "not a uid!"),
    "lone surrogate": _set(("reviews", 0, "answer"), "\udcff"),
    "suspended 'yes'": _set(("cards", 0, "suspended"), "yes"),
    "state is a list": _set(("cards", 0, "state"), []),
}


@pytest.mark.parametrize("name", sorted(BAD_ENTRIES))
def test_import_checks_every_field_and_stores_nothing(
    tmp_path: Path, history: dict[str, Any], name: str
) -> None:
    doc = copy.deepcopy(history)
    BAD_ENTRIES[name](doc)
    doc["reviews"].append({**doc["reviews"][0], "uid": "f" * 32})  # a good one, also refused
    path = tmp_path / "into.db"
    with Store.open(path) as store:
        with pytest.raises(HistoryError) as info:
            import_history(store, doc, "h.json")
        assert "nothing imported" in str(info.value) and "\n" not in str(info.value)
        assert store.review_count() == 0 and store.cards() == {}


def test_a_bad_import_then_review_and_stats_still_work(
    tmp_path: Path, history: dict[str, Any], cards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = copy.deepcopy(history)
    BAD_ENTRIES["nan stability"](doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    db = tmp_path / "r.db"
    assert main(["history", "import", str(bad), "--db", str(db)]) == 2
    assert "stability: nan is not a finite number" in capsys.readouterr().err
    assert main(["stats", "--db", str(db), "--cards", str(cards)]) == 0


# -- what is already in the database ------------------------------------------------------


JUNK = {
    "nan stability": "UPDATE cards SET state = json_set(state, '$.stability', -1)",
    "year 1": "UPDATE reviews SET reviewed_at = '0001-01-01T00:00:00+00:00'",
    "not json": "UPDATE reviews SET after = 'garbage{'",
    "rating 0": "PRAGMA ignore_check_constraints = 1; UPDATE reviews SET rating = 0",
    "blob id": "UPDATE cards SET card_id = x'ff00'",
}


@pytest.mark.parametrize("version", [2, SCHEMA_VERSION])
@pytest.mark.parametrize("name", sorted(JUNK))
def test_junk_rows_are_damage_and_the_file_is_left(
    tmp_path: Path,
    cards: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    version: int,
) -> None:
    db = tmp_path / "r.db"
    sql = JUNK[name].split("; ")
    with Store.open(db) as store:
        _review(store, "basic-card", Rating.GOOD, T0)
    conn = sqlite3.connect(db, isolation_level=None)
    for statement in sql:
        conn.execute(statement)
    if version < SCHEMA_VERSION:  # as a version-2 file was: before versions and hints
        conn.execute("ALTER TABLE cards DROP COLUMN version")
        conn.execute("ALTER TABLE reviews DROP COLUMN hinted")
        conn.execute("DROP TABLE interviews")  # schema version 5
        conn.execute("ALTER TABLE reviews DROP COLUMN given")  # schema version 6
        conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for extra in tmp_path.glob("r.db-*"):
        extra.unlink()
    digest = _digest(db)
    for argv in (
        ["stats", "--db", str(db), "--cards", str(cards)],
        ["history", "export", "--db", str(db)],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "the review database is damaged" in err and "left unchanged" in err, err
        assert err.count("\n") == 1
        assert _digest(db) == digest
    # A review session reads the cards table (and, before a migration, every row); junk in
    # a review row it never reads does not stop it. Either way: no traceback, file as it was.
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(["review", "--plain", "--db", str(db), "--cards", str(cards)])
    err = capsys.readouterr().err
    reads_it = version < SCHEMA_VERSION or name in ("nan stability", "blob id")
    assert code == (2 if reads_it else 0), err
    assert "Traceback" not in err
    assert _digest(db) == digest


def test_a_full_disk_is_called_a_full_disk(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        _review(store, "basic-card", Rating.GOOD, T0)
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's SQLITE_FULL on demand
        with pytest.raises(StoreError) as info:
            for i in range(200):
                now = T0 + timedelta(minutes=i)
                state = SCHED.review(store.state(f"c{i}"), Rating.GOOD, now, f"c{i}")
                store.record_review(f"c{i}", Rating.GOOD, state, reviewed_at=now, answer="x" * 4000)
        assert "disk is full" in str(info.value) and "damaged" not in str(info.value)
    with Store.open(tmp_path / "r.db") as store:
        assert store.integrity_check() == "ok"


@pytest.mark.parametrize(
    ("version", "tables"),
    [
        (2, ["CREATE TABLE cards (x TEXT)", "CREATE TABLE reviews (y TEXT)"]),
        (0, ["CREATE TABLE notes (x TEXT)"]),
        (SCHEMA_VERSION, ["CREATE TABLE cards (card_id TEXT)", "CREATE TABLE other (z)"]),
    ],
)
def test_our_application_id_with_a_foreign_schema_is_left_byte_identical(
    tmp_path: Path, version: int, tables: list[str]
) -> None:
    path = tmp_path / "r.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {version}")
    for statement in tables:
        db.execute(statement)
    db.commit()
    db.close()
    digest = _digest(path)
    with pytest.raises(NotQuizcollDatabase) as info:
        Store.open(path)
    assert "schema is not a quizcoll review database's" in str(info.value)
    assert "left unchanged" in str(info.value)
    assert _digest(path) == digest


def test_an_old_database_with_our_schema_still_migrates(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    _migrate(db, 0, 2)
    db.close()
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        _review(store, "c", Rating.GOOD, T0)
        assert store.state_version("c")[1] == 1


# -- two sessions, one card ---------------------------------------------------------------


def test_a_stale_state_is_refused_and_recomputed(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with Store.open(path) as a, Store.open(path) as b:
        state_a, version_a = a.state_version("c")
        state_b, version_b = b.state_version("c")
        a.record_review(
            "c",
            Rating.GOOD,
            SCHED.review(state_a, Rating.GOOD, T0, "c"),
            reviewed_at=T0,
            expected_version=version_a,
        )
        later = T0 + timedelta(minutes=1)
        with pytest.raises(StaleState) as info:
            b.record_review(
                "c",
                Rating.GOOD,
                SCHED.review(state_b, Rating.GOOD, later, "c"),
                reviewed_at=later,
                expected_version=version_b,
            )
        assert len(b.reviews("c")) == 1  # nothing stored
        stale = info.value
        b.record_review(
            "c",
            Rating.GOOD,
            SCHED.review(stale.state, Rating.GOOD, later, "c"),
            reviewed_at=later,
            expected_version=stale.version,
        )
        assert b.state("c").reps == 2 == len(b.reviews("c"))


CAS_WORKER = """
import sys, time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from deck.cards.model import Rating
from deck.review.scheduler import Scheduler
from deck.review.store import StaleState, Store

db, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
scheduler = Scheduler()
retries = 0
with Store.open(db) as store:
    while not go.exists():
        time.sleep(0.001)
    now = datetime(2024, 1, 1, tzinfo=UTC)
    for i in range(count):
        now += timedelta(minutes=1)
        state, version = store.state_version("shared")
        time.sleep(0.001)  # the other session reviews meanwhile: the race the CAS closes
        while True:
            after = scheduler.review(state, Rating.GOOD, now, "shared")
            try:
                store.record_review("shared", Rating.GOOD, after, reviewed_at=now,
                                    expected_version=version)
                break
            except StaleState as stale:
                retries += 1
                state, version = stale.state, stale.version
print(retries)
"""


@pytest.mark.slow
def test_two_sessions_on_one_card_serialise(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    go = tmp_path / "go"
    Store.open(db).close()
    count = 60
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", CAS_WORKER, str(db), name, str(count), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name in ("alpha", "beta")
    ]
    time.sleep(0.5)
    go.touch()
    for proc in workers:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    with Store.open(db) as store:
        assert len(store.reviews("shared")) == 2 * count
        assert store.state("shared").reps == 2 * count  # never below the review count
