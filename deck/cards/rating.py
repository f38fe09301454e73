"""The four review grades, on their own so that scheduling and the review database use them
without importing the whole card model (:mod:`deck.cards.model` re-exports them)."""

from __future__ import annotations

import enum


class Rating(enum.IntEnum):
    """The four review grades (the same numbers as FSRS and Anki)."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4
