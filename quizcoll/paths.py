"""Where quizcoll keeps things: the built-in collection, the user's card folder, the database.

Used by the collection loader, the command line and the TUI alike (so none of them depends on
another for a path). The built-in cards ship as data of the ``quizcoll`` distribution.
"""

from __future__ import annotations

import os
from pathlib import Path


def builtin_cards_dir() -> Path:
    """The collection shipped as data of the ``quizcoll`` distribution (``quizcoll/cards/``)."""
    return Path(__file__).resolve().parent / "cards"


def builtin_scripts_dir() -> Path:
    """The interview scripts shipped with the collection (``quizcoll/interviews/``)."""
    return Path(__file__).resolve().parent / "interviews"


def user_cards_dir() -> Path:
    """The user's own card folder (``cards/`` in the user data directory, XDG on Linux),
    loaded beside the built-in collection."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizcoll", appauthor=False)) / "cards"


def default_db_path() -> Path:
    """``QUIZCOLL_DB`` if set, else the user data directory (XDG on Linux)."""
    from deck.base.safeio import expand

    env = os.environ.get("QUIZCOLL_DB")
    if env:
        return expand(env, "QUIZCOLL_DB")
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizcoll", appauthor=False)) / "reviews.sqlite3"
