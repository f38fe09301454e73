"""The collection as the application sees it: card files loaded against our executables.

Without explicit paths the collection is the built-in cards plus the user's own card
folder (``cards/`` in the user data directory, see :func:`user_cards_dir`), loaded as one
collection, so ids must be unique across both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from deck.cards.loader import load_collection
from deck.cards.model import Card, Collection
from deck.cards.registry import Registry
from quizcoll.executables import build_registry
from quizcoll.paths import builtin_cards_dir, user_cards_dir


def default_paths() -> list[Path]:
    """The built-in collection, and the user's card folder when it exists."""
    user = user_cards_dir()
    return [builtin_cards_dir(), *([user] if user.is_dir() else [])]


def load(
    paths: Sequence[Path] | None = None,
    *,
    on_file: Callable[[int, int, Path], Any] | None = None,
    jobs: int = 1,
) -> tuple[Collection, Registry]:
    """Load ``paths`` (files or folders), or the built-in collection and the user's card
    folder when None. Built-in files are named ``cards/FILE.yaml`` in messages, the user's
    by their full path. ``jobs`` > 1 loads files in forked processes: only for a
    command-line process, never from the running TUI (see :mod:`deck.base.forking`)."""
    registry = build_registry()
    if paths:
        return load_collection(
            list(paths), registry, display_root=Path.cwd(), on_file=on_file, jobs=jobs
        ), registry
    root = builtin_cards_dir()
    return load_collection(
        default_paths(), registry, display_root=root.parent, on_file=on_file, jobs=jobs
    ), registry


def card_file(card: Card) -> Path:
    """The file ``card`` was loaded from (its location is shown relative to where it was
    loaded: the working directory, or the package for the built-in cards)."""
    shown = Path(card.location.path)
    if shown.is_absolute():
        return shown
    for base in (Path.cwd(), builtin_cards_dir().parent):
        if (base / shown).is_file():
            return base / shown
    return shown
