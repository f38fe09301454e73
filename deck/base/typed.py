"""What a person types, checked where it enters: an answer's length cap, and input lines
that were not valid text.

Every way an answer reaches the checker (the line-mode review, the TUI, scripts) passes
through :func:`answer_text` first, so the checker never sees an unbounded string; a line
read from a stream with undecodable bytes becomes text with U+FFFD in their place
(:func:`decoded_line`) instead of a string that cannot be stored.
"""

from __future__ import annotations

import re

from deck.base.errors import DeckError

MAX_ANSWER_CHARS = 1000  # far above any real answer ("2(N-1)/N * S", "13.04 GiB")

# Lone surrogates: how Python's "surrogateescape" carries bytes that were not UTF-8.
_SURROGATES = re.compile("[\ud800-\udfff]")


class AnswerTooLong(DeckError):
    """An answer longer than :data:`MAX_ANSWER_CHARS`."""


def answer_text(text: str) -> str:
    """``text`` if it is short enough to be an answer; else :class:`AnswerTooLong`."""
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerTooLong(
            f"that answer is {len(text):,} characters long; answers are limited to "
            f"{MAX_ANSWER_CHARS:,}"
        )
    return text


def decoded_line(line: str) -> tuple[str, bool]:
    """``line`` with undecodable bytes (lone surrogates) replaced by U+FFFD, and whether any were."""
    cleaned, count = _SURROGATES.subn("\ufffd", line)
    return cleaned, count > 0
