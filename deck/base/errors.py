"""Error types and the one-line problem report shared by the whole engine.

Every user-facing fault is a :class:`DeckError` (so callers catch one type and never
show a traceback) or a :class:`Problem`, a located message formatted as
``PATH:LINE:COL: card 'ID': field: what is wrong``.
"""

from __future__ import annotations

from dataclasses import dataclass


class DeckError(Exception):
    """Base of every error the engine raises on bad input."""


@dataclass(frozen=True, order=True)
class Problem:
    """One located problem in a card file. ``line`` and ``col`` are 1-based; 0 = unknown."""

    path: str
    line: int = 0
    col: int = 0
    message: str = ""
    card_id: str | None = None
    field: str | None = None

    def format(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}:{self.col or 1}"
        parts = [where]
        if self.card_id is not None:
            parts.append(f"card {self.card_id!r}")
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "card": self.card_id,
            "field": self.field,
            "message": self.message,
        }

    def __str__(self) -> str:
        return self.format()
