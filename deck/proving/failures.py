"""What ``check`` reports: a failed claim, instance, figure or an unproven number.

Shared by :mod:`deck.proving.verify` (claims, instances) and the proofs (:mod:`deck.proving.proofs` and
its layers: facts, figures, options, answers, unproven text). A failure is one line,
``PATH:LINE:COL: card 'ID': what: message``; :func:`text_location` finds the
``PATH:LINE:COL`` of a piece of a card's text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deck.cards.model import Card, Location


@dataclass(frozen=True)
class Failure:
    """One failed claim point, card instance, checked figure or unproven number.

    ``warning`` failures (from a file with ``unproven: warn``) are listed but do not fail
    the check.
    """

    card_id: str
    location: Location | None
    what: str
    message: str
    expected: str = ""
    actual: str = ""
    warning: bool = False
    subject: str = "card"  # what card_id names: a card, or a declared "constant"

    def format(self) -> str:
        loc = str(self.location) if self.location else "?"
        tail = (
            f": expected {self.expected}, got {self.actual}" if self.expected or self.actual else ""
        )
        head = "warning: " if self.warning else ""
        return f"{loc}: {head}{self.subject} {self.card_id!r}: {self.what}: {self.message}{tail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "card" if self.subject == "card" else self.subject: self.card_id,
            "location": str(self.location) if self.location else None,
            "what": self.what,
            "message": self.message,
            "expected": self.expected,
            "actual": self.actual,
            "warning": self.warning,
        }


def text_location(card: Card, field: str, text: str, offset: int) -> Location:
    """Where ``text[offset]`` of the card's ``field`` stands in its file."""
    origin = card.origins.get(field)
    if origin is None:
        return card.location
    line, col = origin.locate(text, offset)
    return Location(card.location.path, line, col)
