"""The line above the card under review: the session's title and its progress bar."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

from quizcoll.tui.services.review import ReviewSession
from quizcoll.tui.widgets.review_text import review_title


class ReviewHeader(Horizontal):
    """Review or practice, the deck or tag, the card's kind, and how far the session is."""

    def compose(self) -> ComposeResult:
        yield Static("", id="review-title")
        yield ProgressBar(id="review-progress", show_eta=False)

    def show(
        self, session: ReviewSession | None, *, practice: bool, deck: str | None, tag: str | None
    ) -> None:
        """The title and progress of ``session`` (None: not started yet)."""
        if session:
            bar = self.query_one("#review-progress", ProgressBar)
            bar.update(total=max(session.total, 1), progress=session.done)
        title = review_title(session, practice=practice, deck=deck, tag=tag)
        self.query_one("#review-title", Static).update(title)
