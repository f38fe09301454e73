"""Named hardware profiles on disk: ``profiles/NAME.json`` in the user data directory.

``quizcoll calibrate`` writes them (atomically, never over an existing one without
``--force``); ``quizcoll sim --gpu NAME`` reads them. ``QUIZCOLL_PROFILES`` names another
folder (for tests and shared setups).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from quizcoll.cli.common import UsageError

MAX_PROFILE_BYTES = 4 * 2**20


def profiles_dir() -> Path:
    from deck.base.safeio import expand

    env = os.environ.get("QUIZCOLL_PROFILES")
    if env:
        return expand(env, "QUIZCOLL_PROFILES")
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizcoll", appauthor=False)) / "profiles"


def profile_path(name: str) -> Path:
    return profiles_dir() / f"{name}.json"


def save(profile: Any, *, force: bool) -> Path:
    """Write ``profile`` as ``NAME.json``; refuse to replace one unless ``force``."""
    from deck.base.safeio import write_text

    path = profile_path(profile.name)

    def still_new(_tmp: Path) -> None:
        if not force and os.path.lexists(path):
            raise UsageError(f"{path}: a profile named {profile.name!r} exists; pass --force")

    if not force and os.path.lexists(path):
        raise UsageError(
            f"{path}: a profile named {profile.name!r} exists; pass --force to replace it "
            "or --name to keep both"
        )
    text = json.dumps(profile.to_json(), indent=2) + "\n"
    return write_text(path, text, what="profile file", check=still_new)


def load(name: str) -> Any | None:
    """The profile called ``name``, or None when there is none; a clear error for a
    file that is not a profile."""
    from deck.base.safeio import read_text
    from quizcoll.collectives.calibrate import NAME, CalibrationError, Profile

    if not NAME.fullmatch(name):
        return None
    path = profile_path(name)
    if not path.is_file():
        return None
    text = read_text(path, limit=MAX_PROFILE_BYTES, what="profile file")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    try:
        return Profile.from_json(doc, where=str(path))
    except CalibrationError as exc:
        raise UsageError(str(exc)) from None


def ring_steps(collective: str, ranks: int) -> int:
    """Steps of the ring NCCL runs for ``collective``: 2(n−1) for all-reduce, n−1 else."""
    return 2 * (ranks - 1) if collective == "all_reduce" else ranks - 1
