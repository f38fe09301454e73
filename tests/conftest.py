"""Test-session set-up: the tests' caches stay out of the user's home, and no property
test has a deadline (a test must not depend on how fast the machine is).

``quizcoll check`` remembers proofs in the user cache directory (XDG_CACHE_HOME on
Linux); the suite, and the commands it runs in subprocesses, use a folder of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis's default 200 ms deadline per example is a timed assertion: on a loaded 2-core
# machine a correct checker misses it. Every property test runs without one.
settings.register_profile("quizcoll", deadline=None)
settings.load_profile("quizcoll")


def _private(variable: str, folder: Path) -> Iterator[Path]:
    """Point ``variable`` at ``folder`` for the session (subprocesses inherit it)."""
    before = os.environ.get(variable)
    os.environ[variable] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(variable, None)
    else:
        os.environ[variable] = before


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from _private("XDG_CACHE_HOME", tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(autouse=True, scope="session")
def _private_profiles_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """No test sees the user's calibrated profiles (the lab lists them): an empty folder of
    the suite's own, unless a test names another."""
    yield from _private("QUIZCOLL_PROFILES", tmp_path_factory.mktemp("profiles"))
