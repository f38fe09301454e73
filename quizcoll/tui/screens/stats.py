"""Stats: reviews per day, retention, the due forecast and the decks, as terminal plots.

A deck selector switches the plots and the retention figure between all decks and one."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Label, Select, Static

from deck.base.errors import DeckError
from deck.review.stats import DeckCounts, DeckSeries, Stats
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.summary import StatsView, stats_view
from quizcoll.tui.widgets.bars import Bar, render_bars, render_columns

CHART_HEIGHT = 5
MAX_BARS_WIDTH = 80
ALL_DECKS = "all decks"


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
    text.append(f"\ntoday: {s.due_now} due now, {s.new_today} new "
            f"({s.due_today} due by the end of the day, learning steps included)")
    if s.leeches:
        text.append(f" · leeches (suspended): {', '.join(s.leeches)}", style="yellow")
    return text


def deck_headline(name: str, series: DeckSeries, counts: DeckCounts | None) -> Text:
    """One deck's reviews, retention and card counts."""
    text = Text()
    text.append(name, style="bold")
    text.append(": ")
    text.append(f"{series.reviews}", style="bold")
    text.append(f" reviews ({series.practice_reviews} practice)")
    text.append("\ntrue retention (mature cards) ")
    text.append(_percent(series.retention), style="bold green")
    text.append(f" over {series.mature_reviews} review(s)")
    if counts is not None:
        text.append(
            f"\n{counts.total} cards: {counts.new} new, {counts.learning} learning, "
            f"{counts.review} review, {counts.due} due, {counts.suspended} suspended"
        )
    return text


def deck_table(s: Stats, selected: str | None = None) -> Table:
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
            style="reverse" if name == selected else "",
        )
    return table


def retention_bars(view: StatsView, width: int) -> Text:
    """True retention of each deck on a 0–100% scale; a deck with no mature review is –."""
    bars = [
        Bar(
            name,
            series.retention or 0.0,
            f"{_percent(series.retention)} of {series.mature_reviews}",
            "green",
        )
        for name, series in view.decks
    ]
    return render_bars(bars, width, scale=1.0)


def render_stats(view: StatsView, deck: str | None = None, width: int = 76) -> Group:
    """The whole screen's text: ``deck`` None shows all decks."""
    series = view.series(deck)
    scope = ALL_DECKS if deck is None else deck
    days = [n for _, n in series.reviews_per_day]
    day_labels = [d.strftime("%b %d") for d, _ in series.reviews_per_day]
    if deck is None:
        top = headline(view.stats)
    else:
        top = deck_headline(deck, series, dict(view.stats.decks).get(deck))
    return Group(
        top,
        Text(""),
        Text(f"Reviews per day, last 30 days · {scope}", style="bold underline"),
        render_columns(days, [day_labels[0], day_labels[-1]], CHART_HEIGHT, style="green"),
        Text(""),
        Text(
            f"Due forecast, next 30 days (day 0 includes overdue) · {scope}", style="bold underline"
        ),
        render_columns(list(series.forecast), ["today", "+29d"], CHART_HEIGHT, style="cyan"),
        Text(""),
        Text("True retention per deck (mature cards)", style="bold underline"),
        retention_bars(view, width),
        Text(""),
        Text("Decks", style="bold underline"),
        deck_table(view.stats, deck),
    )


class StatsScreen(QuizScreen):
    """Statistics from the review database."""

    HELP_NAME = "Statistics"  # its section of the help screen

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("r", "refresh_stats", "Refresh"),
        Binding("d", "next_deck", "Deck"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: StatsView | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="stats-controls"):
            yield Label("plots for ", id="stats-deck-label")
            yield Select[str]([], prompt=ALL_DECKS, compact=True, id="stats-deck")
        with VerticalScroll(id="stats-body"):
            yield Static("Reading the review database…", id="stats")
        yield Footer()

    def on_mount(self) -> None:
        # The plots take the focus, so PageDown scrolls them at once (not after a Tab).
        self.query_one("#stats-body").focus()
        self.action_refresh_stats()

    def on_screen_resume(self) -> None:
        self.action_refresh_stats()

    @property
    def deck(self) -> str | None:
        """The selected deck; None is all decks."""
        value = self.query_one("#stats-deck", Select).value
        return value if isinstance(value, str) else None

    @work(exclusive=True, group="stats")
    async def action_refresh_stats(self) -> None:
        await self.ready()
        quiz = self.quiz
        try:
            view = await quiz.db.call(
                stats_view, quiz.cards, quiz.config, quiz.env.clock(), quiz.env.tz
            )
        except DeckError as exc:
            quiz.report(str(exc), title="Review database")
            return
        old = self.view.deck_names if self.view is not None else None
        self.view = view
        if view.deck_names != old:
            select = self.query_one("#stats-deck", Select)
            keep = self.deck
            with select.prevent(Select.Changed):
                select.set_options([(name, name) for name in view.deck_names])
                if keep in view.deck_names:
                    select.value = keep
        self._show()

    def _show(self) -> None:
        if self.view is None:
            return
        body = self.query_one("#stats", Static)
        # the retention bars line up with the 30-day charts rather than span a wide window
        width = min(MAX_BARS_WIDTH, max(40, body.size.width or self.size.width - 4))
        body.update(render_stats(self.view, self.deck, width))

    @on(Select.Changed, "#stats-deck")
    def _deck_changed(self) -> None:
        self._show()

    def on_resize(self) -> None:
        self._show()

    def action_next_deck(self) -> None:
        """Cycle all decks → each deck → all decks."""
        if self.view is None or not self.view.deck_names:
            return
        names = self.view.deck_names
        select = self.query_one("#stats-deck", Select)
        current = self.deck
        if current is None:
            select.value = names[0]
        elif current in names and names.index(current) + 1 < len(names):
            select.value = names[names.index(current) + 1]
        else:
            select.clear()

    def action_back(self) -> None:
        self.app.pop_screen()
