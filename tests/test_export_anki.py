"""Anki packages: real Anki (the ``anki`` package from PyPI) imports what we write, with the
notes, fields, decks and tags we meant, and a later export updates those notes in place."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from deck.interchange.export.anki import FIELDS, anki_notes, note_type
from deck.interchange.export.apkg import (
    AnkiError,
    AnkiNote,
    NoteType,
    anki_tag,
    note_guid,
    package_bytes,
    stable_id,
)

pytest.importorskip("genanki")
anki_collection = pytest.importorskip("anki.collection")

ROOT = Path(__file__).resolve().parent.parent
RICH = ROOT / "tests" / "fixtures" / "export" / "cards.yaml"


@cache
def collection(path: Path | None = None) -> tuple:
    from quizcoll.collection import load

    col, registry = load([path] if path else None)
    assert not col.problems
    return col.cards, registry


def quizcoll(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizcoll", *args], capture_output=True, text=True, cwd=ROOT
    )


@pytest.fixture
def anki(tmp_path: Path) -> Iterator[Any]:
    """A fresh, empty Anki collection."""
    col = anki_collection.Collection(str(tmp_path / "collection.anki2"))
    yield col
    col.close()


def import_package(col: Any, path: Path) -> Any:
    from anki.import_export_pb2 import ImportAnkiPackageOptions

    request = anki_collection.ImportAnkiPackageRequest(
        package_path=str(path), options=ImportAnkiPackageOptions()
    )
    return col.import_anki_package(request).log


def notes_by_guid(col: Any) -> dict[str, Any]:
    out = {}
    for nid in col.find_notes(""):
        note = col.get_note(nid)
        out[note.guid] = note
    return out


def deck_of(col: Any, note: Any) -> str:
    return col.decks.name(note.cards()[0].did)


# ----------------------------------------------------------------------------- unit


def test_ids_and_guids_are_stable_and_distinct() -> None:
    assert stable_id("deck", "quizcoll::memory") == stable_id("deck", "quizcoll::memory")
    ids = {stable_id("deck", f"d{i}") for i in range(1000)}
    assert len(ids) == 1000 and all(1 << 30 <= i < 1 << 31 for i in ids)
    assert note_guid("quizcoll", "a", "0") == note_guid("quizcoll", "a", "0")
    assert note_guid("quizcoll", "a", "0") != note_guid("quizcoll", "a", "1")
    assert note_guid("quizcoll", "a-b") != note_guid("quizcoll", "a", "b")
    assert anki_tag(' kv cache "x" ') == "kv_cache_x_"


def test_a_note_with_the_wrong_field_count_is_refused() -> None:
    kind = NoteType("t", ("Front", "Back"), "{{Front}}", "{{Back}}")
    with pytest.raises(AnkiError, match="1 fields for a note type with 2"):
        package_bytes(kind, [AnkiNote("g", "d", ("only one",))])


def test_parametric_cards_become_frozen_instances() -> None:
    cards, registry = collection(RICH)
    notes = anki_notes(cards, registry, instances=4, seed=10, root="quizcoll")
    gib = [n for n in notes if n.fields[FIELDS.index("Card id")] == "gib-of-decimal-bytes"]
    assert len(gib) == 4 and len({n.guid for n in gib}) == 4
    assert [n.fields[FIELDS.index("Instance")] for n in gib][:2] == [
        "instance 1 of 4 (seed 10)",
        "instance 2 of 4 (seed 11)",
    ]
    assert len({n.fields[FIELDS.index("Worked answer")] for n in gib}) == 4
    others = [n for n in notes if n not in gib]
    assert len(others) == len(cards) - 1  # cards without parameters: one note each
    with pytest.raises(ValueError):
        anki_notes(cards, registry, instances=0)


# ----------------------------------------------------------------------------- real Anki


def test_real_anki_imports_the_package(tmp_path: Path, anki: Any) -> None:
    out = tmp_path / "cards.apkg"
    done = quizcoll(
        "export", "--format", "apkg", "--cards", str(RICH), "-o", str(out),
        "--instances", "2", "--seed", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cards, registry = collection(RICH)
    expected = anki_notes(cards, registry, instances=2, seed=1, root="quizcoll")
    assert f"exported {len(expected)} note(s) from {len(cards)} card(s)" in done.stderr

    log = import_package(anki, out)
    assert len(log.new) == len(expected) == anki.note_count() == 6
    assert {"quizcoll::units", "quizcoll::extra"} <= set(
        d.name for d in anki.decks.all_names_and_ids()
    )
    found = notes_by_guid(anki)
    for note in expected:
        got = found[note.guid]
        assert got.note_type()["name"] == "quizcoll card"
        assert list(got.keys()) == list(FIELDS)
        assert tuple(got.values()) == note.fields
        assert sorted(got.tags) == sorted(note.tags)
        assert deck_of(anki, got) == note.deck
    formula = next(n for n in found.values() if n["Card id"] == "ring-formula")
    assert formula["Answer"] == r"\(\frac{2(N - 1)}{N} \cdot S\)<br><code>2*(N - 1)/N*S</code>"
    assert "<strong><code>2*(N - 1)/N*S</code></strong>" in formula["Worked answer"]
    gib = [n for n in found.values() if n["Card id"] == "gib-of-decimal-bytes"]
    assert sorted(n["Instance"] for n in gib) == [
        "instance 1 of 2 (seed 1)",
        "instance 2 of 2 (seed 2)",
    ]
    assert all(n["Hint"] and deck_of(anki, n) == "quizcoll::units" for n in gib)
    table = next(n for n in found.values() if n["Card id"] == "long-answer")
    assert "<table>" in table["Worked answer"] and "gib" in gib[0].tags

    # The same export imported again: nothing new, nothing duplicated.
    import_package(anki, out)
    assert anki.note_count() == len(expected)


def test_a_later_export_updates_the_notes_instead_of_duplicating_them(
    tmp_path: Path, anki: Any
) -> None:
    cards, registry = collection(RICH)
    kind = note_type("quizcoll")
    first = anki_notes(cards, registry, instances=2, seed=1, root="quizcoll")
    second = anki_notes(cards, registry, instances=2, seed=50, root="quizcoll")
    assert [n.guid for n in first] == [n.guid for n in second]
    assert first != second  # the parametric card drew other values
    a, b = tmp_path / "a.apkg", tmp_path / "b.apkg"
    a.write_bytes(package_bytes(kind, first, timestamp=1_700_000_000))
    b.write_bytes(package_bytes(kind, second, timestamp=1_700_000_600))  # ten minutes later
    import_package(anki, a)
    log = import_package(anki, b)
    assert len(log.new) == 0 and len(log.updated) == len(second)
    assert anki.note_count() == len(second)
    found = notes_by_guid(anki)
    assert all(tuple(found[n.guid].values()) == n.fields for n in second)


def test_the_whole_collection_imports(tmp_path: Path, anki: Any) -> None:
    out = tmp_path / "all.apkg"
    done = quizcoll("export", "--format", "apkg", "-o", str(out))
    assert done.returncode == 0, done.stderr
    cards, registry = collection()
    expected = anki_notes(cards, registry, root="quizcoll")
    log = import_package(anki, out)
    assert len(log.new) == len(expected) == anki.note_count()
    decks = {d.name for d in anki.decks.all_names_and_ids()}
    assert {f"quizcoll::{c.deck}" for c in cards} <= decks
    assert len(expected) > len(cards)  # parametric cards: three instances each


def test_apkg_flags(tmp_path: Path) -> None:
    for args, message in (
        (["--format", "apkg"], "needs -o FILE.apkg"),
        (["--format", "apkg", "-o", f"{tmp_path}/x/"], "needs -o FILE.apkg"),
        (["--format", "apkg", "-o", f"{tmp_path}/x.apkg", "--instances", "0"], "1..100"),
    ):
        out = quizcoll("export", "--cards", str(RICH), *args)
        assert out.returncode == 2 and message in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1


def test_missing_genanki_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizcoll.cli.main import main

    monkeypatch.setitem(sys.modules, "genanki", None)  # makes "import genanki" fail
    code = main(["export", "--format", "apkg", "--cards", str(RICH), "-o", f"{tmp_path}/a.apkg"])
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'quizcoll[anki]'" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "a.apkg").exists()
