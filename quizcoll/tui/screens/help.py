"""Help: every action with its key, from the same table as the command palette."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from quizcoll.tui.actions import ACTIONS, SCREEN_KEYS


def help_table() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", min_width=10)
    table.add_column()
    table.add_row(Text("Home and everywhere", style="bold underline"), "")
    for a in ACTIONS:
        where = "" if a.where == "home" else "  (any screen)"
        table.add_row(a.key, f"{a.title}: {a.help}{where}")
    for screen, keys in SCREEN_KEYS.items():
        table.add_row("", "")
        table.add_row(Text(screen, style="bold underline"), "")
        for key, what in keys:
            table.add_row(key, what)
    table.add_row("", "")
    table.add_row("", Text("escape or ? closes this help", style="dim"))
    return table


class HelpScreen(ModalScreen[None]):
    """A modal listing every key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "quizcoll keys"
            yield Static(help_table())
