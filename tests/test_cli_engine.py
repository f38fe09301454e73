"""The engine's commands end to end: list, show, check, export; exit codes and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "engine_cards.yaml"
GOLDEN = ROOT / "tests" / "golden"


def quizcoll(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizcoll", *args], capture_output=True, text=True, cwd=cwd
    )


def test_list_json_has_the_contract_keys() -> None:
    out = quizcoll("list", "--cards", str(FIXTURE), "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert {r["id"] for r in rows} >= {"gib-of-decimal-bytes", "ring-formula", "which-reduces"}
    for row in rows:
        assert {"id", "deck", "type", "tags", "front", "file", "line"} <= set(row)
    first = next(r for r in rows if r["id"] == "gib-of-decimal-bytes")
    assert first["line"] == 7 and first["deck"] == "units" and "gib" in first["tags"]


def test_list_filters() -> None:
    out = quizcoll("list", "--cards", str(FIXTURE), "--tag", "gib", "--json")
    assert [r["id"] for r in json.loads(out.stdout)] == ["gib-of-decimal-bytes"]


def test_show_is_deterministic_per_seed() -> None:
    a = quizcoll("show", "gib-of-decimal-bytes", "--cards", str(FIXTURE), "--seed", "3", "--json")
    b = quizcoll("show", "gib-of-decimal-bytes", "--cards", str(FIXTURE), "--seed", "3", "--json")
    assert a.returncode == 0 and a.stdout == b.stdout
    doc = json.loads(a.stdout)
    assert "GiB" in doc["answer"] and "GB" in doc["answer"] and "{" not in doc["front"]


def test_show_unknown_card_is_one_line_exit_2() -> None:
    out = quizcoll("show", "gib-of-decimal-byte", "--cards", str(FIXTURE))
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "did you mean 'gib-of-decimal-bytes'" in out.stderr


def test_check_passes_on_valid_cards() -> None:
    out = quizcoll("check", str(FIXTURE), "--json")
    assert out.returncode == 0, out.stdout
    doc = json.loads(out.stdout)
    assert doc["ok"] and doc["claims"] == 2 and doc["claim_points"] == 8 and doc["instances"] > 0


def test_check_fails_a_wrong_claim_with_exit_1(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(
        "cards:\n  - id: four-gb\n    type: basic\n    front: How many GiB is 4 GB?\n    back: 4 GiB\n"
        "    verify:\n      - claim: 4 GB is 4 GiB\n        run: units.convert_bytes\n"
        "        args: {bytes: 4e9}\n        field: gib\n        expect: 4\n",
        encoding="utf-8",
    )
    out = quizcoll("check", str(wrong))
    assert out.returncode == 1
    assert "card 'four-gb': verify[0] '4 GB is 4 GiB'" in out.stderr
    assert "expected 4, got 3.7252903" in out.stderr


def test_check_bad_files_exit_2_and_report_all() -> None:
    out = quizcoll("check", str(ROOT / "tests" / "bad_cards"))
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == len(
        (ROOT / "tests" / "bad_cards" / "expected.txt").read_text().splitlines()
    )
    assert "Traceback" not in out.stderr


def test_bad_flag_is_one_line_exit_2() -> None:
    out = quizcoll("check", "--seeds", "zero")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_export_markdown_matches_golden_and_is_deterministic(tmp_path: Path) -> None:
    a = quizcoll("export", "--cards", str(FIXTURE), "--seed", "1")
    b = quizcoll("export", "--cards", str(FIXTURE), "--seed", "1")
    assert a.returncode == 0 and a.stdout == b.stdout
    assert a.stdout == (GOLDEN / "export.md").read_text(encoding="utf-8")


def test_export_obsidian(tmp_path: Path) -> None:
    out = quizcoll(
        "export", "--format", "obsidian", "--cards", str(FIXTURE), "-o", f"{tmp_path}/notes/"
    )
    assert out.returncode == 0, out.stderr
    text = (tmp_path / "notes" / "units.md").read_text(encoding="utf-8")
    assert text.startswith("#flashcards/units")
    assert text.count("\n?\n") == 6


@pytest.mark.parametrize("deck", ["nope"])
def test_export_unknown_deck(deck: str) -> None:
    out = quizcoll("export", "--cards", str(FIXTURE), "--deck", deck)
    assert out.returncode == 2 and "decks: units" in out.stderr


def test_show_a_past_review_exactly_as_it_was_asked(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from deck.cards.model import Rating
    from deck.review.scheduler import Scheduler, Settings
    from deck.review.store import Store

    db = tmp_path / "reviews.sqlite3"
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    with Store.open(db) as store:
        state = store.state("gib-of-decimal-bytes")
        after = Scheduler(Settings()).preview(state, now, "gib-of-decimal-bytes")[Rating.AGAIN]
        store.record_review(
            "gib-of-decimal-bytes", Rating.AGAIN, after, reviewed_at=now, deck="units",
            duration_ms=4200, answer="12 GB", correct=False, seed=1234,
        )  # fmt: skip
    shown = quizcoll(
        "show",
        "gib-of-decimal-bytes",
        "--cards",
        str(FIXTURE),
        "--db",
        str(db),
        "--review",
        "-1",
        "--json",
    )
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    asked = json.loads(
        quizcoll(
            "show", "gib-of-decimal-bytes", "--cards", str(FIXTURE), "--seed", "1234", "--json"
        ).stdout
    )
    assert (
        doc["seed"] == 1234 and doc["front"] == asked["front"] and doc["answer"] == asked["answer"]
    )
    assert doc["review"]["answer"] == "12 GB" and doc["review"]["rating"] == 1
    missing = quizcoll(
        "show", "gib-of-decimal-bytes", "--cards", str(FIXTURE), "--db", str(db), "--review", "3"
    )
    assert missing.returncode == 2 and "has 1 review(s)" in missing.stderr


def test_unwritable_output_is_one_line_exit_2(tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "file.md"
    (tmp_path / "missing-dir").write_text("a file where a folder is expected")
    out = quizcoll("export", "--cards", str(FIXTURE), "-o", str(target))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
