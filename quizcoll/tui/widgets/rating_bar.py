"""The four rating buttons, each with the interval it would give; the suggested one stands out."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from deck.cards.model import Rating

NAMES = {Rating.AGAIN: "Again", Rating.HARD: "Hard", Rating.GOOD: "Good", Rating.EASY: "Easy"}
VARIANTS = {
    Rating.AGAIN: "error",
    Rating.HARD: "warning",
    Rating.GOOD: "success",
    Rating.EASY: "primary",
}


class RatingBar(Horizontal):
    """Again / Hard / Good / Easy with intervals; emits :class:`RatingBar.Rated`."""

    class Rated(Message):
        def __init__(self, rating: Rating) -> None:
            super().__init__()
            self.rating = rating

    def compose(self) -> ComposeResult:
        for rating in Rating:
            yield Button(
                f"{int(rating)} {NAMES[rating]}",
                id=f"rate-{int(rating)}",
                variant=VARIANTS[rating],  # type: ignore[arg-type]
                compact=True,
            )

    def show(
        self,
        intervals: Mapping[Rating, str],
        suggested: Rating | None,
        *,
        focus: Rating | None = None,
    ) -> None:
        """Label each button with its interval and mark the suggestion; focus ``focus``
        (by default the suggestion)."""
        for rating in Rating:
            button = self.query_one(f"#rate-{int(rating)}", Button)
            interval = intervals.get(rating, "")
            star = "★ " if rating == suggested else ""
            button.label = f"{star}{int(rating)} {NAMES[rating]}" + (
                f" · {interval}" if interval else ""
            )
            button.set_class(rating == suggested, "-suggested")
            button.refresh(layout=True)  # Button.label does not re-measure the width itself
        target = focus or suggested
        if target is not None:
            # Focus now (not on the next idle) so that a key pressed right away reaches it.
            self.screen.set_focus(self.query_one(f"#rate-{int(target)}", Button))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("rate-"):
            self.post_message(self.Rated(Rating(int(event.button.id.removeprefix("rate-")))))
