"""Pilot tests of the screens' fixes (issue 14, items 11–15) and the new screens: the sim
lab's grid note, re-run and errors; browse layout, sorting, history and leeches; stats
scrolling; help per screen; the memory lab's model, FlashAttention and context warning;
settings saved to config.toml with the theme; custom study by tag."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from textual.widgets import Checkbox, DataTable, Input, Markdown, Select, Static
from tui_support import (
    FROZEN_NOW,
    SMALL,
    make_app,
    plain,
    run_async,
    settle,
    wait_until,
)

from deck.cards.model import Rating
from deck.review.scheduler import CardState, Phase, load_config
from deck.review.store import Store
from quizcoll.settings import read_theme
from quizcoll.tui.screens.browse import BrowseScreen
from quizcoll.tui.screens.custom_study import CustomStudyScreen
from quizcoll.tui.screens.help import HelpScreen
from quizcoll.tui.screens.review import ReviewScreen
from quizcoll.tui.screens.settings import SettingsScreen
from quizcoll.tui.services.lab import LabRequest, _verified, simulate
from quizcoll.tui.widgets.step_view import StepView

LARGE_ENOUGH = (120, 40)


@run_async
async def test_sim_lab_says_what_the_grid_leaves_out_and_reruns_on_a_dropdown(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        view = screen.query_one("#lab-steps", StepView)
        assert "The grid shows" not in plain(view)  # 8 ranks: everything is drawn
        screen.query_one("#lab-ranks", Input).value = "32"
        screen.action_run()
        await settle(pilot)
        assert screen.lab.ranks == 32
        assert "The grid shows ranks 0–15 of 32 and blocks 0–15 of 32" in plain(view)
        # a dropdown change runs again by itself
        screen.query_one("#lab-algorithm", Select).value = "double_binary_tree"
        await settle(pilot)
        assert screen.lab.request.algorithm == "double_binary_tree"
        # a refused run stays in the status line, not only in a toast
        screen.query_one("#lab-ranks", Input).value = "lots"
        screen.action_run()
        await settle(pilot)
        assert "ranks: expected a whole number" in plain(screen.query_one("#lab-status"))


def test_lab_verification_catches_a_wrong_output() -> None:
    lab = simulate(LabRequest(ranks=4, size_bytes=4096), np.random.default_rng(0))
    assert lab.verified is True
    from quizcoll.collectives import run

    rng = np.random.default_rng(1)
    inputs = [rng.integers(-8, 9, size=256).astype(np.float32) for _ in range(4)]
    result = run("all_reduce", inputs)
    assert _verified(result, inputs, "sum")
    result.outputs[2][7] += 1
    assert not _verified(result, inputs, "sum")


@run_async
async def test_browse_wraps_sorts_shows_history_and_leeches(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        lapsed = CardState(
            phase=Phase.RELEARNING, stability=1.0, difficulty=8.0, due=FROZEN_NOW, lapses=8
        )
        store.record_review(
            "kv-cache-growth",
            Rating.AGAIN,
            lapsed,
            reviewed_at=FROZEN_NOW,
            deck="memory",
            answer="2*L*H",
            correct=False,
            hinted=True,
        )
        store.set_leech("kv-cache-growth", True, deck="memory")
        store.suspend("kv-cache-growth", True, deck="memory")
    app = make_app(db)
    async with app.run_test(size=LARGE_ENOUGH) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        table = screen.query_one("#browse-table", DataTable)
        preview = screen.query_one("#browse-preview")
        # at 120 columns the preview goes under the table, full width: nothing cut at the edge
        assert table.region.bottom <= preview.region.y
        assert preview.region.right <= app.size.width and preview.region.width > 100
        card = screen.query_one("#browse-card", Markdown)
        assert card.region.right <= app.size.width

        await pilot.press("L")  # the leech list
        await settle(pilot)
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == ["kv-cache-growth"]
        assert str(table.get_row_at(0)[3]) == "suspended"
        source = card.source
        assert "**History:** 1 review(s)" in source and "`2*L*H`" in source
        assert "wrong, hint" in source

        screen.query_one("#browse-search", Input).value = ""
        await settle(pilot)
        screen.query_one("#browse-table").focus()
        await pilot.press("s", "s", "s")  # file order → due → lapses → stability
        await pilot.press("s")  # → id
        await settle(pilot)
        ids = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert ids == sorted(ids) and screen.sort == "id"
        assert "sorted by id" in plain(screen.query_one("#browse-count", Static))


@run_async
async def test_browse_at_80_columns_says_suspended_in_full(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        store.suspend("ring-steps", True, deck="collectives")
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        table = app.screen.query_one("#browse-table", DataTable)
        assert table.columns["due"].get_render_width(table) >= len("suspended")


@run_async
async def test_stats_scrolls_at_once_and_help_is_per_screen(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        body = app.screen.query_one("#stats-body")
        await wait_until(pilot, lambda: body.max_scroll_y > 0)
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = "".join(plain(s) for s in app.screen.query(Static))
        assert "the next deck's plots" in text and "read the database again" in text
        assert "Review due cards" not in text and "reveal" not in text
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = "".join(plain(s) for s in app.screen.query(Static))
        assert "Review due cards" in text and "Settings" in text and "next deck" not in text


@run_async
async def test_memory_lab_model_flash_attention_and_trained_context(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        flash = screen.query_one("#mem-flash", Checkbox)
        assert str(flash.label) == "FlashAttn on"
        flash.value = False
        await settle(pilot)
        assert str(flash.label) == "FlashAttn off"
        assert "no FlashAttention" in " ".join(plain(screen.query_one("#mem-status")).split())
        status = plain(screen.query_one("#mem-status"))
        assert "beyond the" not in status  # 8k on Llama-3-8B: within its 8,192
        screen.query_one("#mem-context", Input).value = "32k"
        screen.action_compute()
        await settle(pilot)
        status = " ".join(plain(screen.query_one("#mem-status")).split())
        assert "context 32,768 is beyond the 8,192 tokens" in status
        config = tmp_path / "config.json"
        config.write_text("{}", "utf-8")
        model = screen.query_one("#mem-model", Select)
        assert not model.disabled
        screen.query_one("#mem-config", Input).value = str(config)
        await pilot.pause()
        assert model.disabled
        screen.query_one("#mem-config", Input).value = ""
        await pilot.pause()
        assert not model.disabled


@run_async
async def test_settings_screen_saves_to_config_toml_and_ctrl_t_is_remembered(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# mine\n[review]\nfuzz = false\n", "utf-8")
    app = make_app(tmp_path / "r.db", config_path=path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        assert screen.query_one("#set-desired_retention", Input).value == "0.9"
        screen.query_one("#set-desired_retention", Input).value = "1.5"
        screen.action_save()
        await settle(pilot)
        assert "between 0.7 and 0.99" in plain(screen.query_one("#set-status"))
        assert "desired_retention" not in path.read_text("utf-8")  # refused: nothing written
        screen.query_one("#set-desired_retention", Input).value = "0.85"
        screen.query_one("#set-new_per_day", Input).value = "7"
        screen.query_one("#set-learning_steps", Input).value = "2m,15m"
        screen.query_one("#set-theme", Select).value = "textual-light"
        await pilot.press("ctrl+s")
        await settle(pilot)
        config = load_config(path)
        assert config.default.desired_retention == 0.85 and config.default.new_per_day == 7
        assert config.default.fuzz is False and path.read_text("utf-8").startswith("# mine")
        assert app.config == config and app.theme == "textual-light"
        assert screen.query_one("#set-learning_steps", Input).value == "2m 15m"
        assert read_theme(path) == "textual-light"
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.theme == "textual-dark" and read_theme(path) == "textual-dark"
    # a new app starts with the saved theme and settings
    again = make_app(tmp_path / "r.db", config_path=path)
    async with again.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert again.theme == "textual-dark" and again.config.default.new_per_day == 7


@run_async
async def test_custom_study_practises_one_tag(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, CustomStudyScreen)
        modal.query_one("#custom-tag", Select).value = "vram"
        await pilot.pause()
        modal.action_start()
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen) and review.practice and review.tag == "vram"
        assert "tag vram" in plain(review.query_one("#review-title"))
        seen = set()
        while review.session.current is not None:
            seen.add(review.session.current.card.id)
            await pilot.press("space")
            await settle(pilot)
            await pilot.press("3")
            await settle(pilot)
        assert seen == {"fp32-weights-gib", "kv-cache-growth"}
    with Store.open(db) as store:
        assert all(r.practice for r in store.reviews()) and store.card("fp32-weights-gib") is None
