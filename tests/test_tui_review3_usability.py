"""Pilot tests of the review-3 usability findings N13 and N20 (notes/review-3/usability.md):
the browse screen's status line fits common terminal widths; the settings screen has a title;
the memory lab's model select does not name a model it is not computing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static
from tui_support import footer_overflow, make_app, plain, run_async, settle

from quizcoll.tui.screens.browse import BrowseScreen


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
@run_async
async def test_browse_status_line_fits_and_keeps_the_keys(tmp_path: Path, size: tuple) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        line = screen.query_one("#browse-count", Static)
        text = plain(line, width=200).strip()
        assert len(text) <= line.content_region.width, text  # nothing cut off at the right
        assert text.startswith("5 of 5 cards · sorted by file order (s)")
        assert "! suspend" in text and "L" in text.split("·")[-1]  # the keys stay named
        assert footer_overflow(app) == []


@run_async
async def test_browse_tags_column_ends_in_an_ellipsis_not_off_screen(tmp_path: Path) -> None:
    from textual.widgets import DataTable

    cards = tmp_path / "tagged.yaml"
    cards.write_text(
        "deck: collectives\n"
        "tags: [collectives, all-reduce, reduce-scatter, ring, bandwidth, traffic]\n"
        "cards:\n"
        "  - id: many-tags\n"
        "    type: basic\n"
        "    front: What does an all-reduce do?\n"
        "    back: Every rank ends with the reduction of all ranks' buffers.\n",
        encoding="utf-8",
    )
    app = make_app(tmp_path / "r.db", cards=[cards])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        table = app.screen.query_one("#browse-table", DataTable)
        tags = [str(table.get_row_at(i)[-1]) for i in range(table.row_count)]
        assert any(t.endswith("…") for t in tags), tags  # a long tag list is shortened
        assert table.max_scroll_x == 0  # and the table fits: nothing is cut at the edge


@run_async
async def test_settings_screen_has_a_title(tmp_path: Path) -> None:
    from quizcoll.tui.screens.settings import SettingsScreen

    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)
        top = min(app.screen.query(Static), key=lambda w: w.region.y)
        assert top.region.y == 0 and plain(top).startswith("Settings")


@run_async
async def test_memory_lab_model_select_names_the_config_not_a_catalog_model(
    tmp_path: Path,
) -> None:
    from textual.widgets import Input, Select

    from quizcoll.tui.screens.memory_lab import MemoryLabScreen

    config = Path(__file__).resolve().parent.parent / "quizcoll/memory/models/mistral-7b.json"
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryLabScreen)
        model = screen.query_one("#mem-model", Select)
        screen.query_one("#mem-model", Select).value = "llama-3-70b"
        await settle(pilot)
        screen.query_one("#mem-config", Input).value = str(config)
        await settle(pilot)
        assert model.disabled
        assert "llama" not in str(model.selection).lower()  # no catalog name beside the path
        assert "config.json" in str(model.selection)
        screen.action_compute()
        await settle(pilot)
        assert screen.result is not None and "mistral" in screen.result.label.lower()
        screen.query_one("#mem-config", Input).value = ""
        await settle(pilot)
        assert not model.disabled and model.value == "llama-3-70b"  # the choice comes back
