"""Settings: desired retention, daily limits, learning steps and the theme, saved to config.toml.

The fields edit the ``[review]`` defaults; a deck's own ``[deck.NAME]`` overrides stay as
they are. ``ctrl+s`` (or Save) checks every field with the parser that reads the file,
writes the file atomically and applies the new settings to the next session.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Input, Label, Select, Static

from deck.base.errors import DeckError
from quizcoll.settings import EDITABLE, THEMES, as_text, parse_fields
from quizcoll.tui.screens.base import QuizScreen

LABELS = {
    "desired_retention": ("desired retention", "0.7–0.99: the recall to aim for"),
    "new_per_day": ("new cards per day", "per deck"),
    "reviews_per_day": ("reviews per day", "per deck"),
    "learning_steps": ("learning steps", "e.g. 1m 10m (s, m, h, d)"),
    "relearning_steps": ("relearning steps", "after a lapse, e.g. 10m"),
}


class SettingsScreen(QuizScreen):
    """Edit and save the review settings and the theme."""

    HELP_NAME = "Settings"  # its section of the help screen

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def compose(self) -> ComposeResult:
        values = as_text(self.quiz.config.default)
        # the screen says what it is (reached by "o", it showed bare fields with no heading)
        yield Static(
            Text.assemble(("Settings", "bold"), " · review defaults for every deck, and the theme"),
            id="settings-title",
        )
        with VerticalScroll(id="settings"):
            for key in EDITABLE:
                label, help_ = LABELS[key]
                with Horizontal(classes="setting"):
                    yield Label(label, classes="setting-label")
                    yield Input(values[key], id=f"set-{key}", compact=True)
                    yield Label(help_, classes="setting-help")
            with Horizontal(classes="setting"):
                yield Label("theme", classes="setting-label")
                yield Select(
                    [(t.removeprefix("textual-"), t) for t in THEMES],
                    value=self.app.theme if self.app.theme in THEMES else THEMES[0],
                    allow_blank=False,
                    compact=True,
                    id="set-theme",
                )
                yield Label("ctrl+t switches it anywhere", classes="setting-help")
            yield Button("Save", id="set-save", variant="primary", compact=True)
            yield Static("", id="set-status")
        yield Footer()

    def on_mount(self) -> None:
        path = self.quiz.settings_path
        where = f"ctrl+s saves to {path}" if path else "Not saved to a file in this session"
        self.query_one("#set-status", Static).update(
            Text(f"{where}. Decks with their own [deck.NAME] settings keep them.", style="dim")
        )
        self.query_one(f"#set-{EDITABLE[0]}", Input).focus()

    def fields(self) -> dict[str, str]:
        """The fields whose text differs from the settings in force: only those are written."""
        current = as_text(self.quiz.config.default)
        typed = {key: self.query_one(f"#set-{key}", Input).value for key in EDITABLE}
        return {key: text for key, text in typed.items() if text.strip() != current[key]}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    @on(Button.Pressed, "#set-save")
    def _pressed(self) -> None:
        self.action_save()

    @work(exclusive=True, group="settings")
    async def action_save(self) -> None:
        status = self.query_one("#set-status", Static)
        theme = str(self.query_one("#set-theme", Select).value)
        try:
            changes = parse_fields(self.fields())
            config = await self.quiz.save_settings(changes, theme)
        except DeckError as exc:
            status.update(Text(str(exc), style="bold red"))
            self.notify(str(exc), title="Settings", severity="error", markup=False)
            return
        self.app.theme = theme
        where = self.quiz.settings_path
        done = f"Saved to {where}." if where else "Applied (not saved to a file)."
        status.update(Text(done, style="green"))
        self.notify(done, timeout=3, markup=False)
        # the fields show what is now in force, as the file says it ("1m,10m" → "1m 10m")
        for key, text in as_text(config.default).items():
            self.query_one(f"#set-{key}", Input).value = text

    def action_back(self) -> None:
        self.app.pop_screen()
