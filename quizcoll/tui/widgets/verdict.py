"""The verdict panel under the answer box: right, wrong or self-graded, or a line that
says what to do instead (a self-graded card's prompt, an empty or unreadable answer).

Its class (``-right``, ``-wrong``, ``-self``, ``-hint``) picks the colours in the app's
stylesheet.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from quizcoll.tui.services.review import Presented
from quizcoll.tui.widgets.review_text import verdict_text


class VerdictView(Static):
    """Shows the verdict on the card's answer, or a note in its place."""

    def show(self, p: Presented) -> None:
        """The verdict on ``p``'s answer, coloured by whether it was right."""
        verdict = p.verdict
        assert verdict is not None
        self.set_classes(
            "-right" if verdict.correct else "-wrong" if verdict.correct is False else "-self"
        )
        self.update(verdict_text(p))
        self.display = True

    def note(self, message: str) -> None:
        """``message`` in italics where a verdict would be: not an attempt, nothing judged."""
        self.update(Text(message, style="italic"))
        self.set_classes("-hint")
        self.display = True
