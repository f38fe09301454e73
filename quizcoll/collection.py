"""The collection as the application sees it: card files loaded against our executables.

Without explicit paths the collection is the built-in cards plus the user's own card
folder (``cards/`` in the user data directory, see :func:`user_cards_dir`), loaded as one
collection, so ids must be unique across both — except that a card in the user's folder
with a built-in card's id replaces it (that is how an edited built-in card is kept).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizcoll.paths import builtin_cards_dir, user_cards_dir

if TYPE_CHECKING:
    from deck.cards.model import Card, Collection
    from deck.cards.registry import Registry
    from quizcoll.compiled import CardRef


def default_paths() -> list[Path]:
    """The built-in collection, and the user's card folder when it exists."""
    user = user_cards_dir()
    return [builtin_cards_dir(), *([user] if user.is_dir() else [])]


def _sources(paths: Sequence[Path] | None) -> tuple[list[Path], Path, Path | None]:
    """The paths to load, the folder messages name files from, and the override folder."""
    if paths:
        return list(paths), Path.cwd(), None
    return default_paths(), builtin_cards_dir().parent, user_cards_dir()


def cached_index(paths: Sequence[Path] | None = None) -> tuple[str, tuple[CardRef, ...]] | None:
    """The cache key for loading ``paths`` (as :func:`load` takes them) and the card index
    remembered under it: the id, deck and tags of every card :func:`load` would return, in
    its order, read without the collection. None when the cache is off or has no index for
    the files and code as they are now."""
    from quizcoll import compiled

    if not compiled.enabled():
        return None
    chosen, root, overrides = _sources(paths)
    try:
        files = compiled.card_files(chosen)
        key = compiled.collection_key(files, display_root=root, overrides=overrides)
    except OSError:  # a path that cannot be listed: the whole load reports it
        return None
    index = compiled.read_index(key)
    return None if index is None else (key, index)


def load_card(card_id: str, paths: Sequence[Path] | None = None) -> tuple[Card, Registry] | None:
    """The card ``card_id`` of the collection :func:`load` would return, read alone from the
    compiled-collection cache's shelf (:mod:`quizcoll.cardshelf`), with a lazy registry; None
    when the cache is off or misses (the caller then loads the collection)."""
    from quizcoll import compiled
    from quizcoll.cardshelf import read_card
    from quizcoll.lazyregistry import LazyRegistry

    if not compiled.enabled():
        return None
    chosen, root, overrides = _sources(paths)
    try:
        files = compiled.card_files(chosen)
        key = compiled.collection_key(files, display_root=root, overrides=overrides)
    except OSError:
        return None
    card = read_card(key, card_id, compiled.cache_dir())
    if card is None:
        return None
    return card, LazyRegistry()  # type: ignore[return-value]


def load(
    paths: Sequence[Path] | None = None,
    *,
    on_file: Callable[[int, int, Path], Any] | None = None,
    jobs: int = 1,
    key: str | None = None,
) -> tuple[Collection, Registry]:
    """Load ``paths`` (files or folders), or the built-in collection and the user's card
    folder when None. Built-in files are named ``cards/FILE.yaml`` in messages, the user's
    by their full path. ``jobs`` > 1 loads files in forked processes: only for a
    command-line process, never from the running TUI (see :mod:`deck.base.forking`).
    ``key``: the cache key :func:`cached_index` returned for the same ``paths``."""
    from quizcoll.compiled import cached_load, card_files
    from quizcoll.lazyregistry import LazyRegistry

    # Built on first use: a cached collection for `list` or `stats` needs no executable.
    registry: Registry = LazyRegistry()  # type: ignore[assignment]
    chosen, root, overrides = _sources(paths)

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
        files, compile_files, display_root=root, overrides=overrides, on_file=on_file, key=key
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
