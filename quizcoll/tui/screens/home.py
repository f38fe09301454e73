"""Home: the decks with new, due and total counts, today's progress and the streak."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

from rich.columns import Columns
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Header, Static

from deck.base.errors import DeckError
from deck.review.scheduler import format_interval
from quizcoll.tui.actions import ACTIONS
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.summary import HomeSummary, home_summary


def _raise(exc: Exception) -> Callable[[], HomeSummary]:
    def again() -> HomeSummary:
        raise exc

    return again


def _menu() -> Columns:
    """The home keys, laid out in columns: an entry never breaks across lines."""
    items = []
    for a in ACTIONS:
        if a.where != "home":
            continue
        item = Text()
        item.append(f" {a.key} ", style="bold reverse")
        item.append(f" {a.title}")
        items.append(item)
    return Columns(items, padding=(0, 2))


class HomeScreen(QuizScreen):
    """The first screen: decks and today's work."""

    CSS_PATH: ClassVar = None  # home's rules are in app.tcss, read at start

    # At 80 columns the footer holds seven keys; practise, custom study and settings are in
    # the menu above it instead (and in help and the palette).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "app.review", "Review"),
        Binding("p", "app.practise", "Practise", show=False),
        Binding("c", "app.custom_study", "Custom study", show=False),
        Binding("o", "app.settings", "Settings", show=False),
        Binding("b", "app.browse", "Browse"),
        Binding("l", "app.lab", "Lab"),
        Binding("m", "app.memory", "Memory"),
        Binding("s", "app.stats", "Stats"),
        Binding("i", "app.interview", "Interview", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="home"):
            yield Static("Loading the cards…", id="today")
            table: DataTable[str | Text] = DataTable(
                id="decks", cursor_type="row", zebra_stripes=True
            )
            table.border_title = "Decks"
            yield table
            yield Static(_menu(), id="menu")
        yield Footer()

    def on_screen_resume(self) -> None:
        # Also the first showing: Textual resumes the default screen once it is mounted (a
        # refresh on mount too would count twice at start). Counts already made from the
        # card index go into the first frame.
        first = self.quiz.take_first_summary(done=True)
        if first is not None:
            self._counted(first.result)
        else:
            self.refresh_summary()

    @work(exclusive=True, group="home")
    async def refresh_summary(self) -> None:
        quiz = self.quiz
        await quiz.counts_ready.wait()  # the card index is enough: no need for every card
        first = quiz.take_first_summary()
        try:
            if first is not None:
                summary = await asyncio.wrap_future(first)
            else:
                summary = await quiz.db.call(
                    home_summary, quiz.count_cards, quiz.config, quiz.env.clock(), quiz.env.tz
                )
        except DeckError as exc:
            self._counted(_raise(exc))
            return
        self._counted(lambda: summary)

    def _counted(self, summary: Callable[[], HomeSummary]) -> None:
        """Show ``summary()``, or the database error it raises."""
        quiz = self.quiz
        try:
            self._show(summary())
        except DeckError as exc:
            quiz.report(str(exc), title="Review database")
            self.query_one("#today", Static).update(Text(str(exc), style="bold red"))
            quiz.counts_shown()
            return
        self.call_after_refresh(quiz.counts_shown)  # once the counts are painted

    def _show(self, s: HomeSummary) -> None:
        table = self.query_one("#decks", DataTable)
        # Columns get their final widths up front, from the data: a header laid out while
        # auto-width columns were still growing could keep the stale widths.
        table.clear(columns=True)
        names = [row.name for row in s.decks]
        table.add_column("Deck", key="deck", width=max([len("Deck"), *map(len, names)]))
        for label, values in (
            ("New", [row.new for row in s.decks]),
            ("Due", [row.due for row in s.decks]),
            ("Total", [row.total for row in s.decks]),
        ):
            width = max([len(label), *(len(str(v)) for v in values)])
            table.add_column(Text(label, justify="right"), key=label.lower(), width=width)
        for row in s.decks:
            table.add_row(
                row.name,
                Text(str(row.new), style="bold blue" if row.new else "dim", justify="right"),
                Text(str(row.due), style="bold red" if row.due else "dim", justify="right"),
                Text(str(row.total), justify="right"),
                key=row.name,
            )
        if not s.decks:
            self.query_one("#today", Static).update(
                Text("No cards found. Pass --cards DIR to use your own.", style="bold")
            )
            return
        today = Text()
        today.append("Today ", style="bold")
        today.append(f"{s.reviews_today} reviewed", style="green")
        today.append(" · ")
        if s.left_today:
            today.append(f"{s.due_now} due", style="bold red" if s.due_now else "")
            today.append(" and ")
            today.append(f"{s.new_now} new", style="bold blue" if s.new_now else "")
            today.append(" left")
        else:
            today.append("all done", style="bold green")
        if s.next_due is not None:
            wait = format_interval(s.next_due - self.quiz.env.clock())
            today.append(f" · next in {wait}", style="dim")
        today.append(" · streak ")
        today.append(f"{s.streak_days} day{'s' if s.streak_days != 1 else ''}", style="bold")
        if s.retention is not None:
            today.append(f" · retention {s.retention:.0%}")
        if self.quiz.env.cluster is not None:  # quizcoll --cluster NAME: say it is in use
            today.append("\nThe cards' link α and B, and the lab's link: ", style="dim")
            today.append(f"your cluster {self.quiz.env.cluster}", style="bold")
        self.query_one("#today", Static).update(today)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter (or a click) on a deck reviews that deck."""
        if event.row_key.value is not None:
            self.quiz.open_review(event.row_key.value)
