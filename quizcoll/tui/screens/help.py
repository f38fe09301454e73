"""Help: every action with its key, from the same table as the command palette."""

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


def help_table(extra: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> Group:
    """Every key: the app's actions, then each screen's own keys, with ``extra`` keys of a
    screen that apply only now (the review's lab keys under a revealed answer)."""
    extra = extra or {}
    app_rows = [
        (a.key, f"{a.title}: {a.help}" + ("" if a.where == "home" else "  (any screen)"))
        for a in ACTIONS
    ]
    sections = [_section("Home and everywhere", app_rows)]
    sections += [
        _section(screen, [*keys, *extra.get(screen, ())]) for screen, keys in SCREEN_KEYS.items()
    ]
    return Group(*sections, Text("escape or ? closes this help", style="dim"))


class HelpScreen(ModalScreen[None]):
    """A modal listing every key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(self, extra: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> None:
        super().__init__()
        self.extra = dict(extra or {})

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "quizcoll keys"
            yield Static(help_table(self.extra))
