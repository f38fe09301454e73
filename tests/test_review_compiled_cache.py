"""N10 / speed: the compiled-collection cache returns the collection the loader builds, is
keyed on the card files' content, and treats junk as a miss; a cached `list` never
imports the simulators."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizcoll import compiled
from quizcoll.collection import load

CARDS = "deck: demo\ncards:\n  - id: one\n    type: basic\n    front: 'Q?'\n    back: 'A.'\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setattr(compiled, "cache_dir", lambda: folder)
    monkeypatch.delenv("QUIZCOLL_NO_CACHE", raising=False)
    return folder


def test_a_hit_is_the_loaded_collection_and_an_edit_is_a_miss(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(CARDS, encoding="utf-8")
    first, _ = load([path])
    assert len(list(cache.glob("*.pickle"))) == 1
    again, _ = load([path])
    assert again == first
    path.write_text(CARDS.replace("'Q?'", "'Edited?'"), encoding="utf-8")
    edited, _ = load([path])
    assert edited.cards[0].front == "Edited?"


@pytest.mark.parametrize("junk", [b"", b"garbage", compiled.FORMAT + b"x" * 100])
def test_junk_in_the_cache_is_a_miss(tmp_path: Path, cache: Path, junk: bytes) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(CARDS, encoding="utf-8")
    first, _ = load([path])
    [stored] = cache.glob("*.pickle")
    good = stored.read_bytes()
    stored.write_bytes(junk if junk else good[: len(good) // 2])  # truncated, or junk
    again, _ = load([path])
    assert again == first
    assert stored.read_bytes() == good  # replaced by a good copy


def test_a_cache_holding_another_type_is_a_miss(cache: Path) -> None:
    import pickle

    key = "k" * 64
    cache.mkdir(parents=True)
    (cache / f"{key[:32]}.pickle").write_bytes(
        compiled.FORMAT + key.encode() + b"\n" + pickle.dumps({"not": "a collection"})
    )
    assert compiled.read(key) is None


def test_old_entries_are_pruned(tmp_path: Path, cache: Path) -> None:
    for i in range(compiled.MAX_FILES + 3):
        path = tmp_path / f"d{i}.yaml"
        path.write_text(CARDS, encoding="utf-8")
        load([path])
    assert len(list(cache.glob("*.pickle"))) == compiled.MAX_FILES


def test_a_cached_list_imports_no_simulator(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env.pop("QUIZCOLL_NO_CACHE", None)
    code = (
        "import sys, io, contextlib\n"
        "from quizcoll.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['list']) == 0\n"
        "print('numpy' in sys.modules, 'quizcoll.collectives' in sys.modules)\n"
    )
    run = [sys.executable, "-c", code]
    first = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert first.stdout.split() == ["True", "True"]  # a miss validates with the executables
    second = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert second.stdout.split() == ["False", "False"], second.stderr


def test_the_cache_reads_files_as_the_loader_does() -> None:
    from deck.cards.loader.base import CARD_FILE_SUFFIXES
    from deck.cards.yamlsource import MAX_FILE_BYTES

    assert compiled.CARD_FILE_SUFFIXES == CARD_FILE_SUFFIXES
    assert compiled.MAX_CARD_FILE_BYTES == MAX_FILE_BYTES
