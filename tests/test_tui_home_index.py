"""Home counts from the card index (issue 28, speed): the index remembered with the compiled
collection holds exactly the collection's ids, decks and tags, follows every edit of the card
files and the code, treats junk as a miss, and gives the same counts as the collection; the
home screen shows them before the whole collection is loaded, a review works once it is, and
counts from an index the files no longer match are replaced."""

from __future__ import annotations

import hashlib
import marshal
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from tui_support import BASE_CARDS, FROZEN_NOW, SMALL, make_app, run_async, settle

from deck.cards.model import Rating
from deck.review.scheduler import CardState, Config, Phase
from deck.review.store import Store
from quizcoll import collection, compiled
from quizcoll.tui.screens.home import HomeScreen
from quizcoll.tui.screens.review import ReviewScreen
from quizcoll.tui.services.summary import home_summary

CARDS = """deck: alpha
cards:
  - id: a-one
    type: basic
    front: 'Q1?'
    back: 'A.'
    tags: [x, y]
  - id: a-two
    type: basic
    front: 'Q2?'
    back: 'A.'
  - id: a-three
    type: basic
    deck: beta
    front: 'Q3?'
    back: 'A.'
    tags: [y]
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setattr(compiled, "cache_dir", lambda: folder)
    monkeypatch.delenv("QUIZCOLL_NO_CACHE", raising=False)
    return folder


def _refs(cards) -> list[tuple[str, str, tuple[str, ...]]]:  # type: ignore[no-untyped-def]
    return [(c.id, c.deck, tuple(c.tags)) for c in cards]


def test_the_index_is_the_collections_ids_decks_and_tags(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(CARDS, encoding="utf-8")
    assert collection.cached_index([path]) is None  # nothing remembered yet
    loaded, _ = collection.load([path])
    found = collection.cached_index([path])
    assert found is not None
    assert _refs(found[1]) == _refs(loaded.cards)
    assert _refs(found[1]) == [  # as written in the file, in its order
        ("a-one", "alpha", ("x", "y")),
        ("a-two", "alpha", ()),
        ("a-three", "beta", ("y",)),
    ]


def test_an_edited_card_file_has_no_index_until_it_is_loaded(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(CARDS, encoding="utf-8")
    collection.load([path])
    path.write_text(CARDS.replace("deck: beta", "deck: gamma"), encoding="utf-8")
    assert collection.cached_index([path]) is None
    collection.load([path])
    found = collection.cached_index([path])
    assert found is not None and found[1][2].deck == "gamma"


def test_a_collection_cached_without_an_index_gets_one(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(CARDS, encoding="utf-8")
    collection.load([path])
    for index in cache.glob("*.index"):
        index.unlink()
    assert collection.cached_index([path]) is None
    collection.load([path])  # a hit on the collection writes the index beside it
    assert collection.cached_index([path]) is not None


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"junk",
        marshal.dumps(((1, "d", ()),)),  # an id that is not a string
        marshal.dumps((("a", "d", ("t", 2)),)),  # a tag that is not a string
        marshal.dumps((("a", "d"),)),  # a row too short
        marshal.dumps({"a": "d"}),
    ],
)
def test_junk_in_an_index_is_a_miss(cache: Path, body: bytes) -> None:
    key = "k" * 64
    cache.mkdir(parents=True)
    (cache / f"{key[:32]}.index").write_bytes(compiled.INDEX_FORMAT + key.encode() + b"\n" + body)
    assert compiled.read_index(key) is None


def test_an_index_of_another_key_is_a_miss(cache: Path) -> None:
    key, other = "k" * 64, "k" * 32 + "j" * 32  # the same file name, another key
    cache.mkdir(parents=True)
    rows = marshal.dumps((("a", "d", ()),))
    (cache / f"{key[:32]}.index").write_bytes(compiled.INDEX_FORMAT + other.encode() + b"\n" + rows)
    assert compiled.read_index(key) is None


def test_pruned_collections_take_their_index_with_them(tmp_path: Path, cache: Path) -> None:
    for i in range(compiled.MAX_FILES + 2):
        path = tmp_path / f"d{i}.yaml"
        path.write_text(CARDS.replace("a-", f"c{i}-"), encoding="utf-8")
        collection.load([path])
    pickles = {p.stem for p in cache.glob("*.pickle")}
    assert {p.stem for p in cache.glob("*.index")} == pickles
    assert len(pickles) == compiled.MAX_FILES


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    compiled._feed_tree(h, str(folder))
    return h.hexdigest()


def test_the_code_signature_follows_every_source_edit(tmp_path: Path) -> None:
    tree = tmp_path / "pkg"
    (tree / "sub" / "__pycache__").mkdir(parents=True)
    (tree / "a.py").write_text("x = 1\n")
    (tree / "sub" / "b.py").write_text("y = 2\n")
    (tree / "sub" / "data.yaml").write_text("k: v\n")
    start = _digest(tree)
    assert _digest(tree) == start  # nothing changed: the same key
    (tree / "sub" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"\0")
    (tree / "notes.txt").write_text("not code")
    assert _digest(tree) == start  # bytecode and other files are not the code

    def same_size_later(path: Path) -> None:  # an edit that keeps the size: a new mtime
        path.write_text("k: w\n")
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))

    def deeper() -> None:
        (tree / "sub" / "deeper").mkdir()
        (tree / "sub" / "deeper" / "d.py").write_text("")

    edits = [
        lambda: (tree / "sub" / "b.py").write_text("y = 22\n"),  # a nested module
        lambda: same_size_later(tree / "sub" / "data.yaml"),
        lambda: (tree / "c.py").write_text(""),  # a new module
        deeper,  # a new package folder
        lambda: (tree / "a.py").rename(tree / "e.py"),  # a renamed module
        lambda: (tree / "c.py").unlink(),  # a removed module
    ]
    seen = {start}
    for edit in edits:
        edit()
        after = _digest(tree)
        assert after not in seen
        seen.add(after)


def _record(store: Store, card_id: str, deck: str, phase: Phase, due: datetime) -> None:
    state = CardState(
        phase=phase,
        stability=5.0,
        difficulty=5.0,
        due=due,
        last_review=FROZEN_NOW - timedelta(days=3),
        reps=2,
    )
    store.record_review(
        card_id, Rating.GOOD, state, reviewed_at=FROZEN_NOW - timedelta(hours=1), deck=deck
    )


def test_the_index_counts_as_the_collection_does(tmp_path: Path, cache: Path) -> None:
    """Two ways to the home counts held against each other, on a database with due,
    learning, not-yet-due, suspended and new cards."""
    loaded, _ = collection.load(BASE_CARDS)
    found = collection.cached_index(BASE_CARDS)
    assert found is not None
    cards = loaded.cards
    assert len(cards) >= 4
    with Store.open(tmp_path / "r.db") as store:
        _record(store, cards[0].id, cards[0].deck, Phase.REVIEW, FROZEN_NOW - timedelta(days=1))
        _record(
            store, cards[1].id, cards[1].deck, Phase.LEARNING, FROZEN_NOW - timedelta(minutes=5)
        )
        _record(store, cards[2].id, cards[2].deck, Phase.REVIEW, FROZEN_NOW + timedelta(days=4))
        store.suspend(cards[3].id, True, deck=cards[3].deck)
        config = Config()
        by_cards = home_summary(store, cards, config, FROZEN_NOW, UTC)
        by_index = home_summary(store, found[1], config, FROZEN_NOW, UTC)
    assert by_index == by_cards
    assert by_cards.due_now == 2 and by_cards.reviews_today == 3
    assert by_cards.next_due == FROZEN_NOW + timedelta(days=4)


class _Gate:
    """Holds the app's whole-collection load until released (the index is not held)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open = threading.Event()
        self.calls = 0
        real = collection.load

        def held(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.calls += 1
            assert self.open.wait(30), "the test never released the load"
            return real(*args, **kwargs)

        monkeypatch.setattr(collection, "load", held)


def _rows(app) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    table = app.screen.query_one("#decks", DataTable)
    return {
        str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)[1:]]
        for i in range(table.row_count)
    }


def _today(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#today", Static).render())


async def _until(pilot, predicate, tries: int = 250) -> None:  # type: ignore[no-untyped-def]
    """Pause until ``predicate()``, without waiting for the workers (the load is held)."""
    for _ in range(tries):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("the screen never reached the expected state")


@run_async
async def test_home_counts_before_the_collection_is_loaded_then_a_review_works(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collection.load(BASE_CARDS)  # a user's earlier run: the compiled collection and its index
    gate = _Gate(monkeypatch)
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await _until(pilot, lambda: "new left" in _today(app))
        assert not app.ready.is_set() and app.collection is None  # the cards are not loaded
        assert _rows(app) == {"collectives": ["3", "0", "3"], "memory": ["2", "0", "2"]}
        assert "5 new left" in _today(app)
        await _until(pilot, lambda: gate.calls == 1)  # the whole load waited for the counts
        gate.open.set()
        await settle(pilot)
        assert app.ready.is_set() and app.collection is not None
        assert _rows(app) == {"collectives": ["3", "0", "3"], "memory": ["2", "0", "2"]}
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.session.current.card.id == "ring-reduce-scatter-bytes"


@run_async
async def test_counts_from_an_index_the_files_no_longer_match_are_replaced(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(CARDS, encoding="utf-8")
    collection.load([path])
    gate = _Gate(monkeypatch)
    app = make_app(tmp_path / "r.db", cards=[path])
    async with app.run_test(size=SMALL) as pilot:
        await _until(pilot, lambda: "new left" in _today(app))
        assert _rows(app) == {"alpha": ["2", "0", "2"], "beta": ["1", "0", "1"]}
        # The file changes and the remembered collection goes while the load is held.
        path.write_text(CARDS.replace("deck: beta", "deck: alpha"), encoding="utf-8")
        for old in cache.glob("*.pickle"):
            old.unlink()
        gate.open.set()
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await _until(pilot, lambda: set(_rows(app)) == {"alpha"})
        assert _rows(app) == {"alpha": ["3", "0", "3"]}


@run_async
async def test_without_an_index_home_counts_once_the_cards_are_loaded(
    tmp_path: Path, cache: Path
) -> None:
    app = make_app(tmp_path / "r.db")  # an empty cache: the first run ever
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert app.ready.is_set()
        assert _rows(app) == {"collectives": ["3", "0", "3"], "memory": ["2", "0", "2"]}
    assert collection.cached_index(BASE_CARDS) is not None  # the next run counts at once
