"""Custom study: practise one deck, one tag, or both, whatever is due (the schedule stays)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Select, Static

from quizcoll.tui.screens.base import SCREENS_CSS

ANY = "any"


class CustomStudyScreen(ModalScreen[tuple[str | None, str | None] | None]):
    """Choose a deck and/or a tag; returns (deck, tag) to practise, None when cancelled."""

    CSS_PATH: ClassVar = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "start", "Start"),
    ]

    def __init__(self, decks: list[str], tags: list[str]) -> None:
        super().__init__()
        self.decks = decks
        self.tags = tags

    def compose(self) -> ComposeResult:
        with Vertical(id="custom") as box:
            box.border_title = "Custom study"
            yield Static(
                Text(
                    "Practise the cards of a deck, a tag or both, due or not: weakest first. "
                    "The schedule does not change.",
                    style="dim",
                )
            )
            with Horizontal(classes="setting"):
                yield Label("deck", classes="custom-label")
                yield Select(
                    [(ANY, ANY), *((d, d) for d in self.decks)],
                    value=ANY,
                    allow_blank=False,
                    compact=True,
                    id="custom-deck",
                )
            with Horizontal(classes="setting"):
                yield Label("tag", classes="custom-label")
                yield Select(
                    [(ANY, ANY), *((t, t) for t in self.tags)],
                    value=ANY,
                    allow_blank=False,
                    compact=True,
                    id="custom-tag",
                )
            yield Button("Start", id="custom-start", variant="primary", compact=True)

    def choice(self) -> tuple[str | None, str | None]:
        deck = str(self.query_one("#custom-deck", Select).value)
        tag = str(self.query_one("#custom-tag", Select).value)
        return (None if deck == ANY else deck, None if tag == ANY else tag)

    @on(Button.Pressed, "#custom-start")
    def action_start(self) -> None:
        self.dismiss(self.choice())

    def action_cancel(self) -> None:
        self.dismiss(None)
