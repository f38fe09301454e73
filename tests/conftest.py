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


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("xdg-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before
