"""The CLI: `review --plain` protocol, `stats`, `history`, and bad databases (exit 2, untouched)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deck.review.store import SCHEMA_VERSION, Store

# The real dispatcher, as the console script runs it.
RUNNER = "from quizcoll.cli.main import main; import sys; sys.exit(main(sys.argv[1:]))"

CARDS = """\
deck: demo
tags: [basics]
cards:
  - id: what-is-allreduce
    type: basic
    front: What does AllReduce do?
    back: Reduces across ranks and leaves the result on every rank.
  - id: double-it
    type: numeric
    tags: [math]
    front: "What is {n} times 2?"
    params:
      n: [1, 2, 3, 4]
    answer:
      expr: "n * 2"
  - id: pick-collective
    type: choice
    front: Which one is a collective?
    options: [AllReduce, malloc, printf]
    correct: 0
"""


def quizcoll(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", RUNNER, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards.yaml"
    path.write_text(CARDS, encoding="utf-8")
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_plain_review_protocol(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "r.db"
    # basic: reveal, accept Good; numeric: a wrong answer, accept Again; choice: right, rate 4
    proc = quizcoll(
        "review",
        "--plain",
        "--cards",
        str(cards),
        "--db",
        str(db),
        "--limit",
        "3",
        stdin="\n\n999\n\nAllReduce\n4\n",
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "What does AllReduce do?" in out and "Reduces across ranks" in out
    assert "next: 1 again" in out and "4 easy" in out  # the interval of each rating
    saved = [line.split() for line in out.splitlines() if line.startswith("saved: ")]
    assert saved == [
        ["saved:", "what-is-allreduce", "3"],
        ["saved:", "double-it", "1"],
        ["saved:", "pick-collective", "4"],
    ]
    with Store.open(db) as store:
        reviews = store.reviews()
    assert [(r.card_id, int(r.rating)) for r in reviews] == [(s[1], int(s[2])) for s in saved]
    numeric = reviews[1]
    assert numeric.answer == "999" and numeric.correct is False and numeric.seed is not None
    assert reviews[0].correct is None  # self-graded
    assert reviews[2].correct is True and reviews[2].duration_ms is not None


def test_eof_mid_card_stores_only_acknowledged_reviews(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "r.db"
    proc = quizcoll("review", "--plain", "--cards", str(cards), "--db", str(db), stdin="\n3\n\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("saved: ") == 1
    assert "end of input" in proc.stdout
    with Store.open(db) as store:
        assert store.review_count() == 1


def test_plain_undo_restores_the_previous_card_and_asks_it_again(
    tmp_path: Path, cards: Path
) -> None:
    db = tmp_path / "r.db"
    # card 1: reveal, Good; card 2: "u" undoes card 1, which comes back (rated Hard), then card 2.
    proc = quizcoll(
        "review", "--plain", "--cards", str(cards), "--db", str(db), "--limit", "2",
        stdin="\n3\n999\nu\n\n2\n999\n1\n",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith(("saved: ", "undone: "))]
    assert lines == [
        "saved: what-is-allreduce 3",
        "undone: what-is-allreduce 3",
        "saved: what-is-allreduce 2",
        "saved: double-it 1",
    ]
    with Store.open(db) as store:
        assert [(r.card_id, int(r.rating)) for r in store.reviews()] == [
            ("what-is-allreduce", 2),
            ("double-it", 1),
        ]


def test_invalid_rating_is_asked_again(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "r.db"
    proc = quizcoll(
        "review",
        "--plain",
        "--cards",
        str(cards),
        "--db",
        str(db),
        "--limit",
        "1",
        stdin="\n7\nmeh\nhard\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert "a rating is 1 (again)" in proc.stdout
    assert "saved: what-is-allreduce 2" in proc.stdout


def test_practice_by_tag_leaves_the_schedule_alone(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "r.db"
    quizcoll(
        "review", "--plain", "--cards", str(cards), "--db", str(db), "--limit", "1", stdin="\n4\n"
    )
    with Store.open(db) as store:
        before = store.cards()
    proc = quizcoll(
        "review",
        "--plain",
        "--practice",
        "--tag",
        "math",
        "--cards",
        str(cards),
        "--db",
        str(db),
        stdin="8\n1\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert "practice" in proc.stdout and "saved: double-it 1" in proc.stdout
    with Store.open(db) as store:
        assert store.cards() == before
        assert store.review_count(practice=True) == 1


def test_db_from_environment(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "env.db"
    proc = quizcoll(
        "review",
        "--plain",
        "--cards",
        str(cards),
        "--limit",
        "1",
        stdin="\n\n",
        env={"QUIZCOLL_DB": str(db)},
    )
    assert proc.returncode == 0, proc.stderr
    with Store.open(db) as store:
        assert store.review_count() == 1


def test_stats_json_and_text(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "r.db"
    quizcoll(
        "review",
        "--plain",
        "--cards",
        str(cards),
        "--db",
        str(db),
        "--limit",
        "2",
        stdin="\n3\n4\n\n",
    )
    proc = quizcoll("stats", "--json", "--cards", str(cards), "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
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
    assert doc["reviews"] == 2 and doc["cards_seen"] == 2 and doc["streak_days"] == 1
    assert doc["new_today"] == 1 and doc["retention"] is None
    assert doc["decks"]["demo"]["total"] == 3
    text = quizcoll("stats", "--cards", str(cards), "--db", str(db))
    assert text.returncode == 0 and "streak: 1 day" in text.stdout and "demo" in text.stdout


def test_history_export_import_cli(tmp_path: Path, cards: Path) -> None:
    db, other = tmp_path / "r.db", tmp_path / "other.db"
    quizcoll(
        "review",
        "--plain",
        "--cards",
        str(cards),
        "--db",
        str(db),
        "--limit",
        "2",
        stdin="\n3\n4\n\n",
    )
    out = tmp_path / "h.json"
    assert quizcoll("history", "export", "-o", str(out), "--db", str(db)).returncode == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "quizcoll-history" and len(doc["reviews"]) == 2
    proc = quizcoll("history", "import", str(out), "--db", str(other))
    assert proc.returncode == 0 and "2 review(s) added" in proc.stdout
    proc = quizcoll("history", "import", str(out), "--db", str(other))
    assert "0 review(s) added, 2 already there" in proc.stdout
    stdout_doc = json.loads(quizcoll("history", "export", "--db", str(other)).stdout)
    assert stdout_doc["reviews"] == doc["reviews"] and stdout_doc["cards"] == doc["cards"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = quizcoll("history", "import", str(bad), "--db", str(other))
    assert proc.returncode == 2 and "bad.json:1:2" in proc.stderr and "Traceback" not in proc.stderr


def _foreign(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO notes (body) VALUES ('keep me')")
    db.commit()
    db.close()


def _newer(path: Path) -> None:
    Store.open(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def _corrupt(path: Path) -> None:
    with Store.open(path) as store:
        for i in range(200):
            from datetime import UTC, datetime

            from deck.review.scheduler import CardState

            store.record_review(
                f"c{i}", 3, CardState(), reviewed_at=datetime.now(UTC), answer="y" * 300
            )
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for offset in range(page, len(data), page):
        data[offset : offset + 40] = b"\x5a" * 40
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("kind", ["text", "foreign", "newer", "corrupt"])
@pytest.mark.parametrize(
    "command", [["review", "--plain"], ["stats", "--json"], ["history", "export"]]
)
def test_bad_database_exit_2_and_untouched(
    tmp_path: Path, cards: Path, kind: str, command: list[str]
) -> None:
    path = tmp_path / "r.db"
    {
        "text": lambda p: p.write_text("not a database\n" * 100),
        "foreign": _foreign,
        "newer": _newer,
        "corrupt": _corrupt,
    }[kind](path)
    for extra in tmp_path.glob("r.db-*"):
        extra.unlink()
    digest = _digest(path)
    args = [*command, "--db", str(path)]
    if command[0] != "history":
        args += ["--cards", str(cards)]
    proc = quizcoll(*args, stdin="\n3\n")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert str(path) in proc.stderr
    assert _digest(path) == digest
    assert "saved:" not in proc.stdout
    if kind in ("text", "foreign"):
        assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.yaml", "r.db"]


def test_bad_flags_exit_2(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "r.db"
    for args in (["--limit", "0"], ["--tag", "math"], ["--deck", "nope"]):
        proc = quizcoll("review", "--plain", "--cards", str(cards), "--db", str(db), *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
