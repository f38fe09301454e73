"""The four rating buttons, each with the interval it would give; the suggested one stands out."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from deck.model import Rating

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

    def show(self, intervals: Mapping[Rating, str], suggested: Rating | None) -> None:
        """Label each button with its interval and mark (and focus) the suggestion."""
        for rating in Rating:
            button = self.query_one(f"#rate-{int(rating)}", Button)
            interval = intervals.get(rating, "")
            star = "★ " if rating == suggested else ""
            button.label = f"{star}{int(rating)} {NAMES[rating]}" + (
                f" · {interval}" if interval else ""
            )
            button.set_class(rating == suggested, "-suggested")
        if suggested is not None:
            self.query_one(f"#rate-{int(suggested)}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("rate-"):
            self.post_message(self.Rated(Rating(int(event.button.id.removeprefix("rate-")))))
