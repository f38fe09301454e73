"""Counts typed by a person, read by the memory calculators themselves.

:func:`read_count` turns ``7e9``, ``6.74B``, ``70 billion``, ``6,738,415,616`` or ``2`` into a
checked number; :func:`suggest` ends an "unknown name" message with the closest known name.
The calculators stand alone (a notebook can use them without the flashcard engine), so they
keep these two small readers of their own; every fault is a :class:`MemoryInputError`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

from quizcoll.memory.errors import MemoryInputError

# Suffixes people write after a count; the value is the multiplier.
_SUFFIXES: dict[str, int] = {
    "": 1,
    "k": 10**3,
    "thousand": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "million": 10**6,
    "b": 10**9,
    "g": 10**9,
    "bn": 10**9,
    "billion": 10**9,
    "t": 10**12,
    "trillion": 10**12,
}
# Digits with optional thousands separators, a fraction and an exponent, then a suffix word:
# bounded repetition, so matching is linear in the text's length.
_COUNT = re.compile(
    r"\s*(\d{1,3}(?:,\d{3}){1,12}|\d{1,40})(\.\d{1,40})?(?:[eE]([+-]?\d{1,3}))?\s*([A-Za-z]{0,8})\s*"
)
MAX_TEXT = 80  # a count is a short piece of text


def read_count(text: str, what: str, *, low: float, high: float, integer: bool = True) -> int:
    """``text`` as a whole number in ``[low, high]``, or a one-line :class:`MemoryInputError`."""
    shown = str(text)[:MAX_TEXT]
    m = _COUNT.fullmatch(str(text)) if len(str(text)) <= MAX_TEXT else None
    factor = _SUFFIXES.get(m.group(4).lower()) if m else None
    if m is None or factor is None:
        raise MemoryInputError(f"{what}: expected a number such as 7e9 or 6.74B, got {shown!r}")
    digits = m.group(1).replace(",", "") + (m.group(2) or "")
    try:
        value = Decimal(digits).scaleb(int(m.group(3) or 0)) * factor
    except InvalidOperation:
        raise MemoryInputError(f"{what}: expected a number, got {shown!r}") from None
    if not low <= value <= high:
        raise MemoryInputError(f"{what} must be between {low:,.0f} and {high:,.0f}, got {shown}")
    if integer and value != value.to_integral_value():
        raise MemoryInputError(f"{what} must be a whole number, got {shown}")
    return int(value.to_integral_value())


def suggest(word: str, candidates: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the candidate closest to ``word``, or ``""``."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
