"""N6: `quizcoll import` writes to the user's card folder by default, where the app loads it;
an existing file is never replaced unasked; -o - prints the card file."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizcoll.cli.main import main

CSV = "front,back,tags\nWhat is 2+2?,4,arith\nCapital of France?,Paris,geo\n"


@pytest.fixture
def user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "quizcoll" / "cards"


def test_import_defaults_to_the_user_card_folder(
    tmp_path: Path, user_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mine.csv"
    source.write_text(CSV, encoding="utf-8")
    assert main(["import", str(source), "--deck", "mine"]) == 0
    err = capsys.readouterr().err
    written = user_data / "mine.yaml"
    assert written.is_file() and f"to {written}" in err
    assert main(["list", "--deck", "mine", "--json"]) == 0  # the app finds the deck
    assert "what-is-2-2" in capsys.readouterr().out
    before = written.read_bytes()
    assert main(["import", str(source), "--deck", "mine"]) == 2  # never replaced unasked
    assert "already exists" in capsys.readouterr().err
    assert written.read_bytes() == before


def test_import_to_a_named_file_or_stdout(
    tmp_path: Path, user_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mine.csv"
    source.write_text(CSV, encoding="utf-8")
    out = tmp_path / "elsewhere.yaml"
    assert main(["import", str(source), "--deck", "mine", "-o", str(out)]) == 0
    assert out.is_file()
    capsys.readouterr()
    assert main(["import", str(source), "--deck", "mine", "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("#")
