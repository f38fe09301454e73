"""Issue 26, F14 and concurrency on one review database: ``rename`` while a review session
(the app, ``review --plain``) is open would leave the session rating the card under its old
id, splitting the history for good. Sessions hold a shared lock; rename refuses while one
is held, and works again once the session closes or its process dies. Concurrent renames,
history imports and reviews on one store never lose or split a review."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deck.cards.model import Rating
from deck.review.scheduler import Scheduler
from deck.review.store import SessionBusy, Store
from deck.review.store.sessions import lock_path
from quizcoll.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def _review(store: Store, card_id: str, at: datetime) -> None:
    state = store.state(card_id)
    after = Scheduler().review(state, Rating.GOOD, at)
    store.record_review(card_id, Rating.GOOD, after, reviewed_at=at, deck="d")


def _db_with_history(tmp_path: Path) -> Path:
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        _review(store, "old-id", T0)
    return db


def test_rename_refuses_while_a_review_session_is_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _db_with_history(tmp_path)
    session = Store.open(db)
    session.hold_session()
    _review(session, "old-id", T0 + timedelta(minutes=1))
    code = main(["rename", "old-id", "new-id", "--db", str(db), "--cards", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "a review session" in err and len(err.strip().splitlines()) == 1, err
    _review(session, "old-id", T0 + timedelta(minutes=2))  # the session goes on as it was
    session.close()
    code = main(["rename", "old-id", "new-id", "--db", str(db), "--cards", str(tmp_path)])
    capsys.readouterr()
    assert code == 0
    with Store.open(db) as store:
        counts = {r.card_id for r in store.reviews()}
        assert counts == {"new-id"} and len(store.reviews()) == 3  # one history, not two


def test_a_crashed_session_does_not_block_a_rename(tmp_path: Path) -> None:
    db = _db_with_history(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom deck.review.store import Store\n"
         f"s = Store.open({str(db)!r}); s.hold_session(); print('held', flush=True)\n"
         "time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with Store.open(db) as store, pytest.raises(SessionBusy):
            store.rename_card("old-id", "new-id")
    finally:
        holder.send_signal(signal.SIGKILL)  # our own child, by its handle
        holder.wait()
    with Store.open(db) as store:
        assert store.rename_card("old-id", "new-id") == 1


def test_two_sessions_share_the_lock_and_a_special_lock_file_is_refused(tmp_path: Path) -> None:
    db = _db_with_history(tmp_path)
    one, two = Store.open(db), Store.open(db)
    one.hold_session()
    two.hold_session()  # shared: two reviews at once are fine
    one.close()
    two.close()
    lock_path(db).unlink()
    os.mkfifo(lock_path(db))
    with Store.open(db) as store, pytest.raises(Exception, match="not a regular file"):
        store.hold_session()
    assert lock_path(db).is_fifo()  # left as it is


def test_concurrent_rename_import_and_reviews_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        for i in range(6):
            _review(store, f"card-{i}", T0)
    history = tmp_path / "h.json"
    assert main(["history", "export", "--db", str(db), "-o", str(history)]) == 0
    doc = json.loads(history.read_text())
    for review in doc["reviews"]:  # the same reviews as another machine's: a merge adds none
        review["card_id"] = review["card_id"].replace("card-", "other-")
        review["uid"] = "x" + review["uid"][1:]
    for card in doc["cards"]:
        card["card_id"] = card["card_id"].replace("card-", "other-")
    history.write_text(json.dumps(doc))
    errors: list[BaseException] = []

    def reviewer(k: int) -> None:
        try:
            with Store.open(db) as store:
                for step in range(5):
                    _review(store, f"card-{k}", T0 + timedelta(days=step + 1, seconds=k))
        except BaseException as exc:
            errors.append(exc)

    def renamer() -> None:
        try:
            with Store.open(db) as store:
                store.rename_card("card-5", "card-5-renamed")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=reviewer, args=(k,)) for k in range(3)]
    threads.append(threading.Thread(target=renamer))
    threads.append(
        threading.Thread(target=lambda: main(["history", "import", str(history), "--db", str(db)]))
    )
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    with Store.open(db) as store:
        reviews = store.reviews()
        ids = [r.card_id for r in reviews]
        assert len(reviews) == 6 + 15 + 6 and len({r.uid for r in reviews}) == len(reviews)
        assert ids.count("card-5-renamed") == 1 and "card-5" not in ids
        for k in range(3):
            assert store.card(f"card-{k}").state.reps == 6
