"""Review history as JSON: export every card record and review, import and merge them back.

The document::

    {"format": "quizcoll-history", "version": 1, "exported_at": "...",
     "cards": [CardRecord.to_dict(), ...], "reviews": [Review.to_dict(), ...]}

Export then import into an empty database then export again gives the same document
(except ``exported_at``): nothing is lost. Import merges: a review is identified by
its ``uid``, so importing the same file twice, or a file that overlaps the database,
never duplicates a review.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from deck.base.errors import DeckError
from deck.base.safeio import read_text
from deck.review.scheduler import format_time, utc
from deck.review.store import CardRecord, MergeResult, Review, Store

FORMAT = "quizcoll-history"
VERSION = 1
MAX_FILE_BYTES = 128 * 1024 * 1024  # about 100,000 reviews; a larger file is refused unread


class HistoryError(DeckError):
    """A history file that cannot be imported."""


def export_history(store: Store, now: datetime) -> dict[str, Any]:
    """The whole history of ``store`` as one JSON-ready document."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": format_time(utc(now)),
        "cards": [rec.to_dict() for _, rec in sorted(store.cards().items())],
        "reviews": [review.to_dict() for review in store.reviews()],
    }


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def parse_history(document: Any, where: str = "history") -> tuple[list[CardRecord], list[Review]]:
    """Validate a history document; every fault is a :class:`HistoryError` naming the entry."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise HistoryError(f"{where}: not a quizcoll history file (no 'format': '{FORMAT}')")
    version = document.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:  # `true` is no version
        raise HistoryError(
            f"{where}: history format version {version!r} is not supported (up to {VERSION})"
        )
    cards, reviews = document.get("cards", []), document.get("reviews", [])
    if not isinstance(cards, list) or not isinstance(reviews, list):
        raise HistoryError(f"{where}: 'cards' and 'reviews' must be lists")
    # Every entry is checked before anything is stored: one bad field refuses the whole file.
    records: list[CardRecord] = []
    for i, entry in enumerate(cards):
        try:
            records.append(CardRecord.from_dict(entry))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise HistoryError(f"{where}: cards[{i}]: {_reason(exc)}; nothing imported") from None
    parsed: list[Review] = []
    for i, entry in enumerate(reviews):
        try:
            parsed.append(Review.from_dict(entry))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise HistoryError(f"{where}: reviews[{i}]: {_reason(exc)}; nothing imported") from None
    return records, parsed


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing {exc}"
    return str(exc)[:300] or type(exc).__name__


def import_history(store: Store, document: Any, where: str = "history") -> MergeResult:
    """Merge a history document into ``store`` in one transaction."""
    records, reviews = parse_history(document, where)
    return store.merge(records, reviews)


def read_history_file(path: str | Path) -> Any:
    """The decoded JSON of a history file (a regular file of at most ``MAX_FILE_BYTES``)."""
    text = read_text(path, limit=MAX_FILE_BYTES, what="history file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise HistoryError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise HistoryError(f"{path}: not a usable history file: {exc}") from None
    except RecursionError:
        raise HistoryError(f"{path}: JSON nested too deeply to be a history file") from None
