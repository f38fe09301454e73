"""The collection as the application sees it: card files loaded against our executables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from deck.loader import load_collection
from deck.model import Collection
from deck.registry import Registry
from quizcoll.cli.common import builtin_cards_dir
from quizcoll.executables import build_registry


def load(
    paths: Sequence[Path] | None = None,
    *,
    on_file: Callable[[int, int, Path], Any] | None = None,
) -> tuple[Collection, Registry]:
    """Load ``paths`` (files or folders), or the built-in collection when None."""
    registry = build_registry()
    if paths:
        return load_collection(
            list(paths), registry, display_root=Path.cwd(), on_file=on_file
        ), registry
    root = builtin_cards_dir()
    return load_collection([root], registry, display_root=root.parent, on_file=on_file), registry
