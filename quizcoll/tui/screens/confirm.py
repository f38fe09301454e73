"""A yes/no question over the current screen (suspending a card asks first)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from quizcoll.tui.screens.base import SCREENS_CSS


class ConfirmScreen(ModalScreen[bool]):
    """``question`` with y (or enter) to confirm and n (or escape) to cancel."""

    CSS_PATH: ClassVar = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        text = Text(self.question, style="bold")
        if self.detail:
            text.append(f"\n{self.detail}", style="")
        text.append("\n\ny or enter: yes · n or escape: no", style="dim")
        with Vertical(id="confirm"):
            yield Static(text)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
