"""The bad-input corpus: every file in tests/bad_cards gives exactly its expected error lines."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from deck.cards.loader import load_collection, load_file
from quizcoll.executables import build_registry

CORPUS = Path(__file__).parent / "bad_cards"


def _expected() -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for line in (CORPUS / "expected.txt").read_text(encoding="utf-8").splitlines():
        name = line.split(":", 1)[0]
        out[name].append(line)
    return out


EXPECTED = _expected()
FILES = sorted(p.name for p in CORPUS.glob("*.yaml"))


def test_corpus_is_large_and_fully_described() -> None:
    assert len(FILES) >= 30
    assert sorted(EXPECTED) == FILES


@pytest.mark.parametrize("name", FILES)
def test_bad_file_reports_exact_lines(name: str) -> None:
    cards, problems = load_file(CORPUS / name, build_registry(), display=name)
    assert sorted(p.format() for p in problems) == sorted(EXPECTED[name])
    assert not cards or name == "12-duplicate-id.yaml"


def test_whole_corpus_in_one_run_reports_every_problem() -> None:
    collection = load_collection([CORPUS], build_registry(), display_root=CORPUS)
    assert len(collection.problems) == sum(len(v) for v in EXPECTED.values())
    # The one valid card (the first of the duplicate pair) survives beside all the bad ones.
    assert [c.id for c in collection.cards] == ["a"]


def test_valid_cards_beside_invalid_ones_are_kept(tmp_path: Path) -> None:
    (tmp_path / "mixed.yaml").write_text(
        "cards:\n"
        "  - id: good\n    type: basic\n    front: fine\n"
        "  - id: bad\n    type: basci\n    front: broken\n"
        "  - id: also-good\n    type: choice\n    front: q\n    options: [x, y]\n    correct: 1\n",
        encoding="utf-8",
    )
    collection = load_collection([tmp_path], build_registry())
    assert [c.id for c in collection.cards] == ["good", "also-good"]
    assert len(collection.problems) == 1


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("cards:\n  - id: same\n    type: basic\n    front: one\n")
    (tmp_path / "b.yaml").write_text(
        "deck: x\ncards:\n  - id: same\n    type: basic\n    front: two\n"
    )
    collection = load_collection([tmp_path], build_registry(), display_root=tmp_path)
    assert [p.format() for p in collection.problems] == [
        "b.yaml:3:5: card 'same': id: duplicate id, first defined at a.yaml:2:5"
    ]


def test_python_tag_constructs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    (tmp_path / "evil.yaml").write_text(
        f'cards:\n  - id: a\n    type: basic\n    front: !!python/object/apply:os.system ["touch {marker}"]\n'
    )
    collection = load_collection([tmp_path], build_registry())
    assert not marker.exists()
    assert "refused" in collection.problems[0].message
