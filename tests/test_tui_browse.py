"""Pilot tests of browse (search, filters, suspend), stats, help and the command palette."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static
from tui_support import SMALL, make_app, plain, run_async, settle

from deck.review.store import Store
from quizcoll.tui.screens.browse import BrowseScreen
from quizcoll.tui.screens.help import HelpScreen
from quizcoll.tui.screens.memory_lab import MemoryLabScreen
from quizcoll.tui.screens.stats import StatsScreen


def _ids(screen: BrowseScreen) -> list[str]:
    table = screen.query_one("#browse-table", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


@run_async
async def test_search_filters_and_suspend(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        assert len(_ids(screen)) == 5
        await pilot.press("slash", *"type:numeric")
        await settle(pilot)
        assert _ids(screen) == ["ring-reduce-scatter-bytes", "fp32-weights-gib"]
        search = screen.query_one("#browse-search", Input)
        search.value = "deck:memory kv"
        await settle(pilot)
        assert _ids(screen) == ["kv-cache-growth"]
        search.value = "nothing-like-this"
        await settle(pilot)
        assert _ids(screen) == []
        search.value = "fp32"
        await settle(pilot)
        await pilot.press("enter")  # to the table
        await pilot.press("exclamation_mark")
        await settle(pilot)
        with Store.open(db) as store:
            assert store.card("fp32-weights-gib").suspended
        search.value = "is:suspended"
        await settle(pilot)
        assert _ids(screen) == ["fp32-weights-gib"]
        await pilot.press("enter", "exclamation_mark")
        await settle(pilot)
        with Store.open(db) as store:
            assert not store.card("fp32-weights-gib").suspended


@run_async
async def test_stats_help_and_palette(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        text = plain(app.screen.query_one("#stats", Static))
        assert "0 reviews" in text and "today: 0 due now, 5 new" in text
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"memory lab")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryLabScreen)
        assert len(app.screen_stack) == 2  # the palette opened it above home, not above stats
