"""The code stays ruff-clean: lint and format, with the repo's configuration."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "args", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"]
)
def test_ruff(args: list[str]) -> None:
    ruff = shutil.which("ruff") or sys.executable
    cmd = [ruff, *args] if ruff != sys.executable else [sys.executable, "-m", "ruff", *args]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
