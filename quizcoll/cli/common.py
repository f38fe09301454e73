"""Helpers shared by the subcommands: errors, JSON output, opening the store.

The places quizcoll reads and writes (built-in cards, the user's card folder, the database) are
:mod:`quizcoll.paths`, re-exported here for the subcommands.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deck.base.errors import DeckError
from quizcoll.paths import builtin_cards_dir, default_db_path, user_cards_dir

__all__ = ["builtin_cards_dir", "default_db_path", "user_cards_dir"]  # re-exported


class UsageError(DeckError):
    """A bad flag value or request: reported as one line, exit 2."""


def print_json(document: Any) -> None:
    """One JSON document on stdout (numpy scalars and arrays converted)."""
    # \u escapes where the output encoding cannot show a character: still the same JSON
    utf = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "").startswith("utf")
    json.dump(document, sys.stdout, indent=2, ensure_ascii=not utf, default=_jsonable)
    sys.stdout.write("\n")
    sys.stdout.flush()


def _jsonable(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def open_store_read_only(db: Path | None) -> tuple[Any, Path]:
    """The review database for a command that only reads it, and its path.

    Nothing is created: a path the user named (``--db`` or ``QUIZCOLL_DB``) that does not
    exist is an error (a typo must not make a new database); the default path not existing
    yet means nothing has been reviewed, and an empty in-memory store stands in.
    """
    from deck.review.store import NoDatabase, Store

    path = db if db is not None else default_db_path()
    named = db is not None or bool(os.environ.get("QUIZCOLL_DB"))
    try:
        return Store.open(path, create=False), path
    except NoDatabase:
        if named:
            raise
        return Store.in_memory(), path


# Documented bounds of flags shared by several commands (docs/limits.md).
MAX_SEED = 2**63 - 1  # seeds: 0 … 2^63 − 1
MAX_FLAG_COUNT = 2**20  # ranks, nodes, GPUs, batch sizes: at most 1,048,576


def number_flag(
    *,
    low: float | None = None,
    high: float | None = None,
    integer: bool = True,
    unit: str | None = None,
) -> Callable[[str], Any]:
    """An argparse ``type=`` that reads a flag with :func:`deck.units.parse_number`.

    ``unit`` names a dimension (``"bytes"``, ``"bytes/s"``, ``"seconds"``) for values with
    units; the default is a plain count (``4096``, ``4,096``, ``6.74B``). A bad value ends
    as ``quizcoll CMD: error: argument --flag: what is wrong`` and exit 2.
    """
    from deck import units

    dim = units.Dim(unit) if unit else units.Dim.COUNT

    def parse(text: str) -> Any:
        try:
            return units.parse_number(text, "", dim=dim, low=low, high=high, integer=integer)
        except units.UnitError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "number"  # argparse names the type in some messages
    return parse


def add_db_argument(parser: Any) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        metavar="PATH",
        help="review database (default: $QUIZCOLL_DB or the user data directory)",
    )


def add_cards_argument(parser: Any) -> None:
    parser.add_argument(
        "--cards",
        action="append",
        type=Path,
        default=None,
        metavar="DIR",
        help="card files or folders to use instead of the built-in collection (repeatable)",
    )


def add_cluster_argument(parser: Any) -> None:
    parser.add_argument(
        "--cluster",
        metavar="NAME",
        help="draw the cards' link latency and bandwidth from this calibrated profile "
        "(quizcoll calibrate LOG --name NAME) instead of the card's choices",
    )


def cluster_given(args: Any) -> dict[str, Any]:
    """The card roles ``--cluster NAME`` fills ({} without the flag); a one-line error
    for a name with no profile."""
    if getattr(args, "cluster", None) is None:
        return {}
    from quizcoll import profiles

    return profiles.given(profiles.require(args.cluster))


def add_json_argument(parser: Any) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def report_problems(problems: Any) -> None:
    """One line per card-file problem on stderr."""
    for p in problems:
        print(p.format(), file=sys.stderr)


def emit(args: Any, document: Any, text: str) -> int:
    """Print ``document`` as JSON with ``--json``, else the readable ``text``; exit code 0."""
    if getattr(args, "json", False):
        print_json(document)
    else:
        print(text)
    return 0


def find_card(card_id: str, paths: Any) -> tuple[Any, Any]:
    """The card ``card_id`` and the registry (``show``, ``grade``): from the cache's shelf
    when it holds it, else from the whole collection; an unknown id is a usage error that
    suggests the nearest ids and reports the card files' problems."""
    from deck.cards.registry import suggest
    from quizcoll.collection import load, load_card

    found = load_card(card_id, paths)
    if found is not None:
        return found
    collection, registry = load(paths)
    by_id = collection.by_id()
    card = by_id.get(card_id)
    if card is None:
        report_problems(collection.problems)
        raise UsageError(f"no card with id {card_id!r}{suggest(card_id, by_id)}")
    return card, registry
