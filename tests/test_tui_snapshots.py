"""Snapshot tests of the screens at 80×24 with a frozen clock, fixed seeds and a temporary
database. Regenerate after an intended change with ``pytest --snapshot-update``."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import DataTable, Input
from tui_support import SMALL, make_app, no_blink, settle, wait_until


def _home_filled(pilot: Pilot) -> bool:
    return pilot.app.screen.query_one("#decks", DataTable).row_count > 0


def test_home(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await wait_until(pilot, lambda: _home_filled(pilot))

    assert snap_compare(make_app(tmp_path / "r.db"), terminal_size=SMALL, run_before=run_before)


def test_home_light_theme(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await wait_until(pilot, lambda: _home_filled(pilot))
        await pilot.press("ctrl+t")
        await pilot.pause()

    assert snap_compare(make_app(tmp_path / "r.db"), terminal_size=SMALL, run_before=run_before)


def test_review_after_wrong_answer(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        no_blink(pilot)
        await pilot.press(*"64 MiB", "enter")
        await settle(pilot)

    assert snap_compare(make_app(tmp_path / "r.db"), terminal_size=SMALL, run_before=run_before)


def test_sim_lab_at_step_three(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        no_blink(pilot)
        await pilot.press("right", "right", "right")
        await pilot.pause()

    assert snap_compare(make_app(tmp_path / "r.db"), terminal_size=SMALL, run_before=run_before)


def test_memory_lab(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        no_blink(pilot)
        pilot.app.screen.query_one("#mem-context", Input).value = "32k"
        pilot.app.screen.action_compute()
        await settle(pilot)

    assert snap_compare(make_app(tmp_path / "r.db"), terminal_size=SMALL, run_before=run_before)


def test_session_summary(snap_compare, tmp_path: Path) -> None:
    """The end of a review of the memory deck: both cards rated Easy."""

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        pilot.app.open_review("memory")
        await settle(pilot)
        no_blink(pilot)
        await pilot.press(*"3.73 GiB", "enter")
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        # The "Saved" toasts expire after a few seconds: on a busy machine one may be gone
        # before the picture is taken. The summary is the subject, not the toasts.
        pilot.app.clear_notifications()
        await settle(pilot)

    assert snap_compare(make_app(tmp_path / "r.db"), terminal_size=SMALL, run_before=run_before)


def test_settings(snap_compare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        no_blink(pilot)
        await pilot.pause()

    # a fixed path the screen names (nothing is saved here): the same picture on every run
    app = make_app(tmp_path / "r.db", config_path=Path("/nonexistent/quizcoll/config.toml"))
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
