"""Browse: a searchable, filterable, sortable table of every card; a preview with the card's
review history; suspend and unsuspend; the leeches."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Footer, Input, Markdown, Static

from deck.answers.checking import CheckError, solve
from deck.base.errors import DeckError
from deck.cards.instances import draw, render_front
from deck.review.scheduler import format_interval
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.browse import (
    SORTS,
    BrowseRow,
    count_line,
    filter_rows,
    history_markdown,
    rows,
)
from quizcoll.tui.services.summary import card_history, card_records, set_suspended

NARROW = 140  # below this the preview goes under the table: the table needs ~100 columns
PREVIEW_SEED = 0
MIN_TAGS = 16  # the narrowest tags column: at 80 columns the table scrolls sideways to it


def _due(row: BrowseRow, now: datetime) -> Text:
    due = row.due_at()
    if row.suspended:
        return Text("suspended", style="yellow")
    if due is None:
        return Text("new", style="blue")
    if due <= now:
        return Text("now", style="bold red")
    return Text(f"in {format_interval(due - now)}")


class BrowseScreen(QuizScreen):
    """Every card, searchable; the highlighted one previewed."""

    HELP_NAME = "Browse"  # its section of the help screen

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("exclamation_mark", "toggle_suspend", "Suspend/unsuspend", key_display="!"),
        Binding("s", "sort", "Sort"),
        Binding("L", "leeches", "Leeches", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.all_rows: list[BrowseRow] = []
        self.shown: list[BrowseRow] = []
        self.sort = next(iter(SORTS))  # file order

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="/ search: words deck:NAME tag:NAME type:numeric is:due is:new is:suspended",
            id="browse-search",
            compact=True,
        )
        yield Static("", id="browse-count")
        with Horizontal(id="browse-main"):
            yield DataTable(id="browse-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="browse-preview"):
                yield Markdown("", id="browse-card")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#browse-table", DataTable)
        for label in ("id", "deck", "type", "due", "stab.", "lapses", "tags"):
            # "suspended" and "in 10.5mo" fit, whatever the first rows shown held
            table.add_column(label, key=label, width=10 if label == "due" else None)
        table.focus()
        self.reload()

    def on_screen_resume(self) -> None:
        self.reload()

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW, "-narrow")
        if self.all_rows:
            self.call_after_refresh(self.apply_filter)  # the tags column follows the width
        self._show_count()

    @staticmethod
    def _tags_room(table: DataTable, cells: list[tuple[str | Text, ...]]) -> int:
        """The columns the tags column has left once the others are as wide as their widest
        cell (at least ``MIN_TAGS``: below that the table scrolls sideways)."""
        labels = ("id", "deck", "type", "due", "stab.", "lapses")
        widths = [
            max([len(label)] + [Text(str(c[i])).cell_len for c in cells])
            for i, label in enumerate(labels)
        ]
        widths[3] = max(widths[3], 10)  # the due column's fixed width
        used = sum(widths) + 2 * table.cell_padding * (len(labels) + 1)
        return max(MIN_TAGS, table.scrollable_content_region.width - used)

    def _show_count(self) -> None:
        line = self.query_one("#browse-count", Static)
        # the line's width less its padding (the screen's before the first layout)
        width = line.content_region.width or self.size.width - 2
        line.update(count_line(len(self.shown), len(self.all_rows), self.sort, width))

    @work(exclusive=True, group="browse")
    async def reload(self) -> None:
        await self.ready()
        try:
            records = await self.quiz.db.call(card_records)
        except DeckError as exc:
            self.quiz.report(str(exc), title="Review database")
            records = {}
        self.all_rows = rows(self.quiz.cards, records)
        self.apply_filter()

    @property
    def now(self) -> datetime:
        return self.quiz.env.clock()

    def apply_filter(self) -> None:
        query = self.query_one("#browse-search", Input).value.lstrip("/")
        now = self.now
        self.shown = SORTS[self.sort](filter_rows(self.all_rows, query, now), now)
        table = self.query_one("#browse-table", DataTable)
        keep = table.cursor_row
        table.clear()
        cells = []
        for row in self.shown:
            state = row.record.state if row.record else None
            stability = f"{state.stability:.1f}d" if state and state.stability else "–"
            cells.append(
                (
                    row.card.id,
                    row.card.deck,
                    row.card.type.value,
                    _due(row, now),
                    stability,
                    str(state.lapses if state else 0),
                )
            )
        room = self._tags_room(table, cells)
        for row, cell in zip(self.shown, cells, strict=True):
            tags = Text(", ".join(row.card.tags), no_wrap=True, overflow="ellipsis")
            tags.truncate(room, overflow="ellipsis")  # "collectives, broad…", not cut mid-word
            table.add_row(*cell, tags, key=row.card.id)
        self._show_count()
        if self.shown:
            table.move_cursor(row=min(keep, len(self.shown) - 1))
            self._preview(self.shown[table.cursor_row])
        else:
            self.query_one("#browse-card", Markdown).update("*No card matches.*")

    @on(Input.Changed, "#browse-search")
    def _search_changed(self) -> None:
        self.apply_filter()

    @on(Input.Submitted, "#browse-search")
    def _search_done(self) -> None:
        self.query_one("#browse-table", DataTable).focus()

    @on(DataTable.RowHighlighted, "#browse-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.shown):
            self._preview(self.shown[event.cursor_row])

    @work(exclusive=True, group="browse-preview")
    async def _preview(self, row: BrowseRow) -> None:
        card = row.card
        instance = draw(card, PREVIEW_SEED, self.quiz.registry)
        parts = [f"### {card.id}", render_front(card, instance)]
        try:
            solution = solve(card, instance, self.quiz.registry)
            if solution.text:
                parts.append(f"**Answer:** {solution.text}")
            if solution.markdown():
                parts.append(solution.markdown())
        except CheckError as exc:
            parts.append(f"*Cannot compute the answer:* {exc}")
        meta = f"`{card.location}` · deck {card.deck} · {card.type.value}"
        if row.suspended:
            meta += " · **suspended**"
        if row.leech:
            meta += " · leech"
        parts.append(meta)
        try:
            reviews = await self.quiz.db.call(card_history, card.id)
        except DeckError as exc:
            reviews = []
            parts.append(f"*History unavailable:* {exc}")
        parts.append(history_markdown(reviews))
        await self.query_one("#browse-card", Markdown).update("\n\n".join(parts))

    def action_sort(self) -> None:
        """s: the next sort order (file order, due, lapses, stability, id)."""
        names = list(SORTS)
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        self.apply_filter()

    def action_leeches(self) -> None:
        """L: the leech list (cards that lapsed too often and were suspended)."""
        self.query_one("#browse-search", Input).value = "is:leech"

    def palette_commands(self) -> list[tuple[str, str, object]]:
        from functools import partial

        return [
            ("Sort the cards", "Browse  [s]", partial(self.run_action, "sort")),
            ("Show the leeches", "Browse  [L]", partial(self.run_action, "leeches")),
        ]

    def action_search(self) -> None:
        self.query_one("#browse-search", Input).focus()

    @work(exclusive=True, group="browse-suspend")
    async def action_toggle_suspend(self) -> None:
        table = self.query_one("#browse-table", DataTable)
        if not self.shown:
            return
        row = self.shown[table.cursor_row]
        want = not row.suspended
        try:
            await self.quiz.db.call(set_suspended, row.card, want)
        except DeckError as exc:
            self.quiz.report(str(exc), title="Review database")
            return
        self.notify(f"{'Suspended' if want else 'Unsuspended'} {row.card.id}", timeout=3)
        self.reload()

    def action_back(self) -> None:
        self.app.pop_screen()
