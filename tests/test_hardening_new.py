"""Issue 26, ``quizcoll new`` (a surface not attacked before): ``--dir`` with ``~user``, a
file, a FIFO or a dangling link in the way, and a read-only or impossible target, end with
one line and exit 2, create nothing (never a folder literally named ``~nosuchuser``), and
never write through a link or replace a file without --force."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quizcoll.cli.main import main


@pytest.fixture(autouse=True)
def _cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["new", *argv])
    return code, capsys.readouterr().err


def test_an_unknown_user_folder_is_one_line_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(capsys, "mine", "--dir", "~nosuchuser-qc/cards")
    assert code == 2 and "user 'nosuchuser-qc' is unknown" in err and "Traceback" not in err
    assert not (tmp_path / "~nosuchuser-qc").exists()


@pytest.mark.parametrize("kind", ["file", "fifo", "dangling-link"])
def test_something_else_where_the_folder_should_be(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = tmp_path / "cards"
    if kind == "file":
        where.write_text("keep")
    elif kind == "fifo":
        os.mkfifo(where)
    else:
        where.symlink_to(tmp_path / "nowhere")
    code, err = _run(capsys, "mine", "--dir", str(where))
    assert code == 2 and "not a folder; nothing written" in err, err
    assert not (tmp_path / "nowhere").exists()


def test_impossible_names_and_targets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "a" * 300, "--dir", str(tmp_path / "d"))
    assert code == 2 and "cannot write" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "d" / "link.yaml").symlink_to(tmp_path / "victim.yaml")
    code, err = _run(capsys, "link", "--dir", str(tmp_path / "d"), "--force")
    assert code == 2 and "not a regular file" in err and not (tmp_path / "victim.yaml").exists()
    assert _run(capsys, "mine", "--dir", str(tmp_path / "d"))[0] == 0
    before = (tmp_path / "d" / "mine.yaml").read_text()
    code, err = _run(capsys, "mine", "--dir", str(tmp_path / "d"))
    assert code == 2 and "--force replaces it" in err
    assert (tmp_path / "d" / "mine.yaml").read_text() == before
