"""Nothing is lost: `kill -9` at random points of review sessions, and two sessions on one file.

- ``KILL_POINTS`` times a ``review --plain`` session (a subprocess) is killed with SIGKILL
  at a point named by the protocol (``KILL_EVENTS``): during start-up and database
  creation, between reviews, and while committing one. Every review acknowledged with ``saved:`` must be in the
  database, in order, and ``PRAGMA integrity_check`` must say ok.
- Two processes review ``CONCURRENT_REVIEWS`` cards each on one database at the same
  time through the store: every review is stored, neither fails. Two ``review --plain``
  sessions at once on one file both finish with every acknowledged review stored.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deck.review.store import Store

KILL_POINTS = 40
CONCURRENT_REVIEWS = 300  # per process
CLI_CONCURRENT_REVIEWS = 60  # per `review --plain` session

# The real dispatcher, as the console script runs it.
RUNNER = "from quizcoll.cli.main import main; import sys; sys.exit(main(sys.argv[1:]))"

CARDS = """\
deck: demo
cards:
  - id: basic-card
    type: basic
    front: What does AllGather do?
    back: Every rank ends with every rank's input, in rank order.
  - id: numeric-card
    type: numeric
    front: "What is {n} plus 10?"
    params:
      n: [1, 2, 3, 4, 5]
    answer:
      expr: "n + 10"
  - id: choice-card
    type: choice
    front: Which is a collective?
    options: [AllGather, fopen, qsort]
    correct: 0
"""

# One process of the concurrency test: review CONCURRENT_REVIEWS times, print each uid.
WORKER = """
import sys, time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from deck.cards.model import Rating
from deck.review.scheduler import Scheduler
from deck.review.store import Store

db, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
scheduler = Scheduler()
with Store.open(db) as store:
    while not go.exists():
        time.sleep(0.001)
    now = datetime(2024, 1, 1, tzinfo=UTC)
    for i in range(count):
        card = "shared" if i % 10 == 0 else f"{name}-{i % 25}"
        rating = Rating(1 + i % 4)
        now += timedelta(minutes=1)
        after = scheduler.review(store.state(card), rating, now, card)
        review = store.record_review(card, rating, after, reviewed_at=now, deck=name,
                                     answer=f"{name} {i}", seed=i)
        print(review.uid, flush=True)
"""


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards.yaml"
    path.write_text(CARDS, encoding="utf-8")
    return path


def _stored(db: Path) -> list[tuple[str, int]]:
    if not db.exists():
        return []
    with Store.open(db) as store:
        assert store.integrity_check() == "ok"
        return [(r.card_id, int(r.rating)) for r in store.reviews()]


def _saved_lines(data: bytes) -> list[tuple[str, int]]:
    out = []
    for line in data.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "saved:":
            out.append((parts[1], int(parts[2])))
    return out


# Where a kill lands, named by what the session has printed (never by wall time, so the
# test does the same on a fast machine and on two loaded cores):
#   spawn      at once: Python starting, the database being opened or created;
#   header     the database is open, nothing reviewed yet;
#   saved K    right after the K-th acknowledgement: between two reviews;
#   rating K   right after the (K+1)-th rating prompt: the rating is already waiting on
#              stdin, so the kill lands before, inside or just after its commit.
KILL_EVENTS = (
    ("spawn", 0),
    ("header", 0),
    ("saved", 1),
    ("saved", 3),
    ("rating", 0),
    ("rating", 2),
    ("rating", 5),
    ("saved", 8),
)


def _read_until(stdout, event: str, k: int) -> bytes:  # type: ignore[no-untyped-def]
    """Read the session's output up to the line that marks ``(event, k)``."""
    seen = b""
    if event == "spawn":
        return seen
    marker = {"header": b"review: ", "saved": b"saved: ", "rating": b"rating ["}[event]
    wanted = 1 if event == "header" else k + (event == "rating")
    while seen.count(marker) < wanted:
        line = stdout.readline()
        if not line:
            raise AssertionError(f"the session ended before {event} {k}: {seen[-300:]!r}")
        seen += line
    return seen


@pytest.mark.slow
def test_kill_9_at_protocol_points_loses_no_acknowledged_review(
    tmp_path: Path, cards: Path
) -> None:
    rng = random.Random(0x51C0)
    db = tmp_path / "r0.db"
    # Wrong answers rated Again or Hard keep every card in a learning step of at most 20
    # minutes (the learn-ahead window), so the session never runs dry, whatever it reviewed
    # before. "2" is a wrong answer every card reads (option b, or the number 2): text a card
    # cannot read is not an attempt, and would be asked again.
    feed = "".join(f"2\n{rng.choice('1112')}\n" for _ in range(2000)).encode()
    total_acked = 0
    for point in range(KILL_POINTS):
        if point % 8 == 0:
            db = tmp_path / f"r{point}.db"  # fresh file: also kill during creation
        before = _stored(db)
        event, k = KILL_EVENTS[point % len(KILL_EVENTS)]
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                RUNNER,
                "review",
                "--plain",
                "--cards",
                str(cards),
                "--db",
                str(db),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(feed)
        proc.stdin.flush()
        seen = _read_until(proc.stdout, event, k)
        proc.kill()
        proc.wait()
        seen += proc.stdout.read()
        proc.stdout.close()
        proc.stdin.close()
        acked = _saved_lines(seen)
        if event in ("saved", "rating"):
            assert len(acked) >= k, f"kill point {point}: {event} {k}"
        total_acked += len(acked)
        after = _stored(db)
        assert after[: len(before)] == before
        new = after[len(before) :]
        # every acknowledged review is stored, in order; at most one more (committed, not yet printed)
        assert new[: len(acked)] == acked, f"kill point {point}"
        assert len(new) - len(acked) in (0, 1)
        for leftover in tmp_path.glob(".*.creating*"):
            leftover.unlink()  # a temporary file of a creation that was killed, never the database
    # the sessions really did review: at least what the kill points waited for
    rounds = KILL_POINTS // len(KILL_EVENTS)
    assert total_acked >= rounds * sum(k for event, k in KILL_EVENTS if event != "spawn")


@pytest.mark.slow
def test_two_processes_review_the_same_database_at_once(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    go = tmp_path / "go"
    Store.open(db).close()
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(db), name, str(CONCURRENT_REVIEWS), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta")
    ]
    time.sleep(0.5)
    go.touch()
    uids: set[str] = set()
    for proc in workers:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        lines = out.split()
        assert len(lines) == CONCURRENT_REVIEWS
        uids.update(lines)
    with Store.open(db) as store:
        assert store.integrity_check() == "ok"
        reviews = store.reviews()
        assert {r.uid for r in reviews} == uids
        assert len(reviews) == 2 * CONCURRENT_REVIEWS
        shared = store.reviews("shared")
        assert len(shared) == 2 * (CONCURRENT_REVIEWS // 10)
        assert store.card("shared") is not None


@pytest.mark.slow
def test_two_plain_sessions_on_one_database(tmp_path: Path, cards: Path) -> None:
    db = tmp_path / "r.db"
    feed = "2\n1\n" * (CLI_CONCURRENT_REVIEWS + 5)  # a wrong answer every card reads
    env = {**os.environ}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                RUNNER,
                "review",
                "--plain",
                "--cards",
                str(cards),
                "--db",
                str(db),
                "--limit",
                str(CLI_CONCURRENT_REVIEWS),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(2)
    ]
    acked: list[tuple[str, int]] = []
    for proc in procs:
        out, err = proc.communicate(feed.encode(), timeout=120)
        assert proc.returncode == 0, err.decode()
        saved = _saved_lines(out)
        assert len(saved) == CLI_CONCURRENT_REVIEWS
        acked += saved
    stored = _stored(db)
    assert sorted(stored) == sorted(acked)
