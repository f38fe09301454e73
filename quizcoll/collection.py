"""The collection as the application sees it: card files loaded against our executables.

Without explicit paths the collection is the built-in cards plus the user's own card
folder (``cards/`` in the user data directory, see :func:`user_cards_dir`), loaded as one
collection, so ids must be unique across both — except that a card in the user's folder
with a built-in card's id replaces it (that is how an edited built-in card is kept).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from deck.cards.model import Card, Collection
from deck.cards.registry import Registry
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
    from quizcoll.compiled import cached_load, card_files
    from quizcoll.lazyregistry import LazyRegistry

    # Built on first use: a cached collection for `list` or `stats` needs no executable.
    registry: Registry = LazyRegistry()  # type: ignore[assignment]
    if paths:
        chosen, root, overrides = list(paths), Path.cwd(), None
    else:
        chosen, root, overrides = default_paths(), builtin_cards_dir().parent, user_cards_dir()

    def compile_files() -> Collection:
        from deck.cards.loader import load_collection
        from quizcoll.executables import build_registry

        return load_collection(
            chosen,
            build_registry(),
            display_root=root,
            on_file=on_file,
            jobs=jobs,
            overrides=overrides,  # a user's copy of a built-in card replaces it
        )

    files = card_files(chosen)
    collection = cached_load(
        files, compile_files, display_root=root, overrides=overrides, on_file=on_file
    )
    return collection, registry


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
