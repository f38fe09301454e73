"""N1: a learning or relearning card comes back when its step is due, interleaved with the
new and review cards as Anki does, and with its learn-ahead limit — in the TUI's session and
in ``review --plain``.

Anki's manual (Deck options → Learning steps; Preferences → Learn ahead limit): a card in
learning is shown again once its step's delay has passed; when nothing else is left, a
learning card due within the learn-ahead limit (20 minutes by default) is shown early.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

from deck.cards.model import Rating
from deck.review.queue import build_queue, next_entry
from deck.review.scheduler import Config, Settings
from deck.review.store import Store
from quizcoll.cli.cmd_review import plain_session
from quizcoll.collection import load
from quizcoll.tui.services.review import ReviewSession

START = datetime(2026, 3, 3, 12, tzinfo=UTC)
CONFIG = Config(default=Settings(fuzz=False, new_per_day=100))


def _cards_file(tmp_path: Path, n: int = 40) -> Path:
    body = "".join(
        f"  - id: card-{i:02d}\n    type: basic\n    front: 'Question {i}?'\n    back: 'Answer {i}.'\n"
        for i in range(n)
    )
    path = tmp_path / "demo.yaml"
    path.write_text(f"deck: demo\ncards:\n{body}", encoding="utf-8")
    return path


class Clock:
    """A clock that moves on by ``step`` each time it is read (a user taking a few seconds)."""

    def __init__(self, step: timedelta) -> None:
        self.now = START
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def test_session_shows_an_again_card_once_its_step_is_due(tmp_path: Path) -> None:
    collection, registry = load([_cards_file(tmp_path)])
    clock = Clock(timedelta(seconds=5))
    session = ReviewSession(collection.cards, registry, CONFIG, clock, lambda: 0)
    shown: list[str] = []
    with Store.in_memory() as store:
        session.load(store)
        for i in range(30):
            p = session.advance(store)
            assert p is not None
            shown.append(p.card.id)
            session.reveal()
            session.rate(store, Rating.AGAIN if i == 0 else Rating.GOOD)
    again_at = shown.index("card-00", 1)
    # Each card takes about 15 s of clock reads here; the 1-minute step is due after a
    # handful of cards, long before the 40 new cards run out.
    assert 2 <= again_at <= 8, shown


def test_plain_review_shows_an_again_card_once_its_step_is_due(tmp_path: Path) -> None:
    collection, registry = load([_cards_file(tmp_path)])
    lines = "\n1\n" + "\n3\n" * 20  # reveal, rate Again; then reveal, rate Good
    stdout = io.StringIO()
    with Store.in_memory() as store:
        plain_session(
            collection.cards,
            registry,
            store,
            CONFIG,
            Clock(timedelta(seconds=10)),
            io.StringIO(lines),
            stdout,
        )
    headers = [line for line in stdout.getvalue().splitlines() if line.startswith("[")]
    positions = [i for i, line in enumerate(headers) if " card-00 " in line]
    assert len(positions) == 2, headers
    assert positions[1] <= 6, headers
    assert "learning" in headers[positions[1]]


def test_learn_ahead_only_when_nothing_else_is_left(tmp_path: Path) -> None:
    collection, _ = load([_cards_file(tmp_path, 2)])
    with Store.in_memory() as store:
        store.record_review(
            "card-00",
            Rating.GOOD,
            _state_after(collection.cards[0].id, START),
            reviewed_at=START,
            deck="demo",
        )
        # card-00 is due at START + 10m; card-01 is new.
        queue = build_queue(collection.cards, store, CONFIG, START + timedelta(minutes=1))
        first = next_entry(queue, collection.cards, store, CONFIG, START + timedelta(minutes=1))
        assert first is not None and first.card.id == "card-01"
        ahead = next_entry(queue, collection.cards, store, CONFIG, START + timedelta(minutes=1))
        assert ahead is not None and ahead.card.id == "card-00" and ahead.ahead
        # Beyond the 20-minute limit nothing is shown early.
        queue = []
        assert (
            next_entry(queue, collection.cards, store, CONFIG, START - timedelta(minutes=15))
            is None
        )


def _state_after(card_id: str, when: datetime):  # type: ignore[no-untyped-def]
    from deck.review.scheduler import CardState, Scheduler

    state = Scheduler(CONFIG.default).review(CardState(), Rating.GOOD, when, card_id)
    assert state.due == when + timedelta(minutes=10)  # fsrs: Good on a new card → 2nd step
    return state
