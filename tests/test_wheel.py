"""Packaging: the wheel carries the cards and the schema, and an installed copy finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    return next(out.glob("quizcoll-*.whl"))


def test_wheel_contains_cards_schema_and_packages(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped_cards = {n for n in names if n.startswith("quizcoll/cards/") and n.endswith(".yaml")}
    repo_cards = {
        f"quizcoll/cards/{p.relative_to(ROOT / 'quizcoll' / 'cards').as_posix()}"
        for p in (ROOT / "quizcoll" / "cards").rglob("*.yaml")
    }
    assert repo_cards and shipped_cards == repo_cards
    # no generic top-level import packages besides the engine and the application
    assert {
        n.split("/")[0] for n in names if "/" in n and not n.split("/")[0].endswith(".dist-info")
    } == {"deck", "quizcoll"}
    assert "deck/cards/card.schema.json" in names
    models = {p.name for p in (ROOT / "quizcoll" / "memory" / "models").glob("*.json")}
    assert models and models <= {
        Path(n).name for n in names if n.startswith("quizcoll/memory/models/")
    }
    assert "deck/cards/loader/__init__.py" in names and "quizcoll/cli/main.py" in names
    assert not any(n.startswith("tests/") for n in names)


def test_installed_wheel_finds_builtin_cards_from_elsewhere(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-compile",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import quizcoll\n"
        "from quizcoll.cli.common import builtin_cards_dir\n"
        "assert str(builtin_cards_dir()).startswith(sys.argv[1]), builtin_cards_dir()\n"
        "from quizcoll.collection import load\n"
        "c, _ = load()\n"
        "print(len(c.cards), len(c.problems))\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run(
        [sys.executable, "-I", "-c", code, str(target)],
        capture_output=True,
        text=True,
        cwd=elsewhere,
    )
    assert out.returncode == 0, out.stderr
    n_cards, n_problems = map(int, out.stdout.split())
    assert n_cards > 0 and n_problems == 0
