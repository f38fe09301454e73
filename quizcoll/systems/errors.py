"""The refusal every systems calculator raises, and the input checks they share.

A refusal is one line for the user (``stages must be at least 1, got 0``); the executables
turn it into the registry's :class:`deck.cards.registry.ArgumentError`.
"""

from __future__ import annotations

import math


class SystemsInputError(ValueError):
    """An input a systems calculator cannot use; the message is one line for the user."""


def at_least(name: str, value: float, minimum: float) -> None:
    """Refuse ``value`` below ``minimum`` (and any non-finite number)."""
    if not math.isfinite(value):
        raise SystemsInputError(f"{name} must be a finite number, got {value}")
    if value < minimum:
        raise SystemsInputError(f"{name} must be at least {minimum:g}, got {value:g}")


def positive(name: str, value: float) -> None:
    """Refuse zero, negative and non-finite values."""
    if not math.isfinite(value) or value <= 0:
        raise SystemsInputError(f"{name} must be a positive number, got {value:g}")


def fraction(name: str, value: float, *, open_low: bool = True, open_high: bool = False) -> None:
    """Refuse a value outside (0, 1] (or the interval the flags choose)."""
    low_bad = value <= 0 if open_low else value < 0
    high_bad = value >= 1 if open_high else value > 1
    if not math.isfinite(value) or low_bad or high_bad:
        low = "(0" if open_low else "[0"
        high = "1)" if open_high else "1]"
        raise SystemsInputError(f"{name} must be in {low}, {high}, got {value:g}")


def divides(name: str, divisor: int, what: str, value: int) -> None:
    """Refuse ``value`` that ``divisor`` does not divide (``heads 32 is not divisible by tp 3``)."""
    if value % divisor:
        raise SystemsInputError(f"{what} {value} is not divisible by {name} {divisor}")


def exact(x: float) -> int | float:
    """Whole numbers as ints (JSON shows 15000000000, not 15000000000.0)."""
    return int(x) if float(x).is_integer() else x
