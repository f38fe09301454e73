"""Issue 26, F11: the workers of ``sim --backend gloo`` never import code from the folder
where the user runs quizcoll. ``python -m`` puts the current folder first on ``sys.path``;
the workers start with ``-P`` and an explicit ``PYTHONPATH``, in the group's private
temporary folder. A ``json/`` package (imported by every worker) and a ``numpy.py`` planted
in the current folder write a marker file if they are ever imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
PLANT = "import pathlib\npathlib.Path({marker!r}).write_text('imported from the cwd')\n"


def test_a_module_planted_in_the_current_folder_is_not_imported_by_a_worker(
    tmp_path: Path,
) -> None:
    here = tmp_path / "work"
    (here / "json").mkdir(parents=True)
    marker = tmp_path / "marker.txt"
    (here / "json" / "__init__.py").write_text(PLANT.format(marker=str(marker)))
    (here / "numpy.py").write_text(PLANT.format(marker=str(marker)))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    # The parent runs with -P too: only a worker could import the planted modules.
    done = subprocess.run(
        [sys.executable, "-P", "-m", "quizcoll", "sim", "all_reduce", "--ranks", "2",
         "--size", "4KiB", "--backend", "gloo", "--warmup", "1", "--iters", "1"],
        cwd=here, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "a worker imported a module from the current folder"
    assert sorted(p.name for p in here.iterdir()) == ["json", "numpy.py"]  # nothing written


def test_the_worker_command_line_is_safe() -> None:
    from quizcoll.collectives.backends.processes import worker_command

    argv = worker_command("quizcoll.collectives.backends.worker")
    assert argv[:3] == [sys.executable, "-P", "-m"]
