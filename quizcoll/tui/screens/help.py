"""Help: the keys of the screen it is opened on, and those that work everywhere, from the
same tables as the command palette."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from quizcoll.tui.actions import ACTIONS, SCREEN_KEYS
from quizcoll.tui.screens.base import SCREENS_CSS

KEY_WIDTH = 11  # the widest key ("u / ctrl+z"), so every section lines up


def _section(title: str, rows: list[tuple[str, str]]) -> Group:
    # One grid per section, the title above it: a title in the key column would widen
    # that column for every row and wrap the descriptions at 80 columns.
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", width=KEY_WIDTH, no_wrap=True)
    table.add_column()
    for key, what in rows:
        table.add_row(key, what)
    return Group(Text(title, style="bold underline"), table, Text(""))


def help_table(
    screen: str = "Home", extra: Mapping[str, Sequence[tuple[str, str]]] | None = None
) -> Group:
    """The keys of ``screen`` (a :data:`SCREEN_KEYS` name, or "Home"), with ``extra`` keys
    that apply only now (the review's lab keys under a revealed answer), then the keys
    that work everywhere."""
    extra = extra or {}
    everywhere = [(a.key, f"{a.title}: {a.help}") for a in ACTIONS if a.where == "app"]
    everywhere += list(SCREEN_KEYS["Everywhere"])
    if screen == "Home" or screen not in SCREEN_KEYS:
        own = [(a.key, f"{a.title}: {a.help}") for a in ACTIONS if a.where == "home"]
        title = "Home"
    else:
        own = [*SCREEN_KEYS[screen], *extra.get(screen, ())]
        title = screen
    return Group(
        _section(title, own),
        _section("Everywhere", everywhere),
        Text("escape or ? closes this help", style="dim"),
    )


class HelpScreen(ModalScreen[None]):
    """A modal listing every key."""

    CSS_PATH: ClassVar = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(
        self, screen: str = "Home", extra: Mapping[str, Sequence[tuple[str, str]]] | None = None
    ) -> None:
        super().__init__()
        self.screen_name = screen
        self.extra = dict(extra or {})

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = f"quizcoll keys · {self.screen_name}"
            yield Static(help_table(self.screen_name, self.extra))
