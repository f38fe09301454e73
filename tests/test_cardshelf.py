"""One card from the compiled-collection cache's shelf: the same card the whole load gives,
a miss (never a wrong card) for junk, a foreign key, an unknown id or the cache turned off,
and an edit of a card file is a miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizcoll import cardshelf, compiled
from quizcoll.collection import load, load_card

CARDS = (
    "deck: demo\ncards:\n"
    "  - id: one\n    type: basic\n    front: 'Q one?'\n    back: 'A.'\n"
    "  - id: two\n    type: basic\n    front: 'Q two?'\n    back: 'B.'\n"
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setattr(compiled, "cache_dir", lambda: folder)
    monkeypatch.delenv("QUIZCOLL_NO_CACHE", raising=False)
    return folder


def _cards(tmp_path: Path, text: str = CARDS) -> list[Path]:
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return [path]


def test_a_shelved_card_is_the_loaded_card(tmp_path: Path, cache: Path) -> None:
    paths = _cards(tmp_path)
    assert load_card("one", paths) is None  # nothing cached yet
    collection, _ = load(paths)
    for card in collection.cards:
        found = load_card(card.id, paths)
        assert found is not None and found[0] == card
    assert load_card("three", paths) is None


def test_the_built_in_collection_shelves_every_card(cache: Path) -> None:
    collection, _ = load(None)
    for card in collection.cards[::37]:
        found = load_card(card.id)
        assert found is not None and found[0] == card


def test_an_edit_is_a_miss(tmp_path: Path, cache: Path) -> None:
    paths = _cards(tmp_path)
    load(paths)
    _cards(tmp_path, CARDS.replace("Q one?", "Q one, edited?"))
    assert load_card("one", paths) is None


@pytest.mark.parametrize("junk", [b"", b"junk", cardshelf.FORMAT + b"0" * 64 + b"\n"])
def test_junk_on_the_shelf_is_a_miss(tmp_path: Path, cache: Path, junk: bytes) -> None:
    paths = _cards(tmp_path)
    load(paths)
    for shelf in cache.glob("*.cards"):
        shelf.write_bytes(junk)
    assert load_card("one", paths) is None
    collection, _ = load(paths)  # the collection itself still loads from the cache
    assert [c.id for c in collection.cards] == ["one", "two"]


def test_without_the_cache_there_is_no_shelf(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _cards(tmp_path)
    load(paths)
    monkeypatch.setenv("QUIZCOLL_NO_CACHE", "1")
    assert load_card("one", paths) is None


def test_pruning_takes_the_shelf_along(tmp_path: Path, cache: Path) -> None:
    for i in range(compiled.MAX_FILES + 2):
        load(_cards(tmp_path, CARDS.replace("Q one?", f"Q {i}?")))
    assert len(list(cache.glob("*.cards"))) == len(list(cache.glob("*.pickle")))
