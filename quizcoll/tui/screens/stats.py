"""Stats: reviews per day, retention, the due forecast and the decks, as terminal plots."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from deck.errors import DeckError
from deck.stats import Stats
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.summary import full_stats
from quizcoll.tui.widgets.bars import render_columns

CHART_HEIGHT = 5


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def headline(s: Stats) -> Text:
    text = Text()
    text.append(f"{s.reviews}", style="bold")
    text.append(f" reviews ({s.practice_reviews} practice) · {s.reviews_today} today · ")
    text.append(f"{s.cards_seen}", style="bold")
    text.append(" cards seen · streak ")
    text.append(f"{s.streak_days} day{'s' if s.streak_days != 1 else ''}", style="bold")
    text.append("\ntrue retention (mature cards) ")
    text.append(_percent(s.retention), style="bold green")
    text.append(f" over {s.mature_reviews} review(s) · average recall now ")
    text.append(_percent(s.average_retrievability), style="bold")
    text.append(f"\ntoday: {s.due_today} due, {s.new_today} new")
    if s.leeches:
        text.append(f" · leeches (suspended): {', '.join(s.leeches)}", style="yellow")
    return text


def deck_table(s: Stats) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("deck")
    for name in ("total", "new", "learning", "review", "due", "suspended"):
        table.add_column(name, justify="right")
    for name, c in s.decks:
        table.add_row(
            name,
            str(c.total),
            str(c.new),
            str(c.learning),
            str(c.review),
            Text(str(c.due), style="bold red" if c.due else ""),
            str(c.suspended),
        )
    return table


def render_stats(s: Stats) -> Group:
    days = [n for _, n in s.reviews_per_day]
    day_labels = [d.strftime("%b %d") for d, _ in s.reviews_per_day]
    forecast = list(s.forecast)
    return Group(
        headline(s),
        Text(""),
        Text("Reviews per day, last 30 days", style="bold underline"),
        render_columns(days, [day_labels[0], day_labels[-1]], CHART_HEIGHT, style="green"),
        Text(""),
        Text("Due forecast, next 30 days (day 0 includes overdue)", style="bold underline"),
        render_columns(forecast, ["today", "+29d"], CHART_HEIGHT, style="cyan"),
        Text(""),
        Text("Decks", style="bold underline"),
        deck_table(s),
    )


class StatsScreen(QuizScreen):
    """Statistics from the review database."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("r", "refresh_stats", "Refresh"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="stats-body"):
            yield Static("Reading the review database…", id="stats")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_stats()

    def on_screen_resume(self) -> None:
        self.action_refresh_stats()

    @work(exclusive=True, group="stats")
    async def action_refresh_stats(self) -> None:
        await self.ready()
        quiz = self.quiz
        try:
            stats = await quiz.db.call(
                full_stats, quiz.cards, quiz.config, quiz.env.clock(), quiz.env.tz
            )
        except DeckError as exc:
            quiz.report(str(exc), title="Review database")
            return
        self.query_one("#stats", Static).update(render_stats(stats))

    def action_back(self) -> None:
        self.app.pop_screen()
