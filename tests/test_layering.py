"""Architecture rules, checked in fresh interpreters by inspecting sys.modules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DECK_MODULES = sorted(p.stem for p in (ROOT / "deck").glob("*.py") if p.stem != "__init__")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return set(out.stdout.split())


@pytest.mark.parametrize("module", DECK_MODULES)
def test_deck_imports_no_application_textual_or_numpy(module: str) -> None:
    loaded = _modules_after(f"import deck.{module}")
    forbidden = {m for m in loaded if m.split(".")[0] in ("quizcoll", "textual", "numpy")}
    assert not forbidden, f"deck.{module} pulled in {sorted(forbidden)[:5]}"


def test_only_tui_imports_textual() -> None:
    statement = re.compile(r"^\s*(?:import|from)\s+textual\b", re.MULTILINE)
    offenders = []
    for path in [*(ROOT / "quizcoll").rglob("*.py"), *(ROOT / "deck").rglob("*.py")]:
        if "tui" in path.relative_to(ROOT).parts:
            continue
        if statement.search(path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["check", "--help"], ["list", "--help"], ["sim", "--help"], ["vram", "--help"]],
)
def test_cli_help_imports_neither_textual_nor_numpy(argv: list[str]) -> None:
    code = (
        "import sys\nfrom quizcoll.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
    )
    loaded = _modules_after(code)
    assert not {m for m in loaded if m.split(".")[0] == "textual"}
    assert not {m for m in loaded if m.split(".")[0] == "numpy"}


def test_check_does_not_import_textual() -> None:
    code = (
        "from quizcoll.cli.main import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    main(['check', '--seeds', '1'])\n"
    )
    loaded = _modules_after(code)
    assert not {m for m in loaded if m.split(".")[0] == "textual"}
