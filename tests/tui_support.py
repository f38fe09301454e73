"""Shared helpers of the TUI tests: an app on the fixture cards, a temporary database,
a frozen clock, fixed seeds and UTC; and a way to wait until every worker is done."""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from deck.review.scheduler import Config, Settings
from quizcoll.tui.app import QuizApp
from quizcoll.tui.services.env import AppEnv, fixed_seeds

FIXTURE_CARDS = Path(__file__).parent / "fixtures" / "tui_cards"
# The deck most tests review: the files at the top of FIXTURE_CARDS, not its subfolders.
BASE_CARDS = sorted(FIXTURE_CARDS.glob("*.yaml"))
# Cards whose live result a lab can (or cannot) replay: the review's l and m keys.
LAB_CARDS = FIXTURE_CARDS / "labs"
# A long self-graded answer, a card with a hint, a choice with a long option.
EXTRA_CARDS = FIXTURE_CARDS / "extras" / "review.yaml"
FROZEN_NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
SMALL = (80, 24)
LARGE = (200, 50)


def make_app(
    db_path: Path,
    *,
    now: datetime = FROZEN_NOW,
    seeds: tuple[int, ...] = (1,),
    cards: Sequence[Path] = BASE_CARDS,
    editor: Callable[[Path, int], int] | None = None,
    config_path: Path | None = None,
    cluster: str | None = None,
) -> QuizApp:
    """An app on the fixture cards (``cards``: other card files) whose clock, seeds,
    settings and time zone are fixed. ``editor`` stands in for $EDITOR; with
    ``config_path`` the settings are read from (and saved to) that file instead."""
    env = AppEnv(
        db_path=db_path,
        cards=list(cards),
        clock=lambda: now,
        seeds=fixed_seeds(*seeds),
        # fsrs fuzz is random; a config file given is read instead
        config=None if config_path else Config(default=Settings(fuzz=False)),
        tz=UTC,
        editor=editor,
        config_path=config_path,
        cluster=cluster,
    )
    return QuizApp(env)


async def settle(pilot: Pilot) -> None:
    """Wait until the workers (loading, database, checking, simulating) have finished."""
    from textual.worker import WorkerCancelled

    for _ in range(4):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one
            continue
        await pilot.pause()


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], tries: int = 100) -> None:
    """Pause until ``predicate()`` holds (a screen filled by a worker), then let layout settle."""
    for _ in range(tries):
        if predicate():
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError("the screen never reached the expected state")
    await settle(pilot)
    await pilot.pause()


def no_blink(pilot: Pilot) -> None:
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an ``async def`` test in a fresh event loop (no async pytest plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return wrapper


def plain(widget: Any, width: int = 120) -> str:
    """What a Static-like widget shows, as plain text (Rich renderables rendered)."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.export_text()


def footer_overflow(app: Any) -> list[str]:
    """The footer entries that run into the command-palette key (or off the screen)."""
    from textual.widgets import Footer

    footer = app.screen.query_one(Footer)
    [palette] = [c for c in footer.children if c.has_class("-command-palette")]
    return [
        str(c.render())
        for c in footer.children
        if c is not palette and c.virtual_region.right > palette.region.x
    ]


def footer_keys(app: Any) -> set[str]:
    """What the current screen's footer shows, one entry per key."""
    from textual.widgets import Footer

    return {str(c.render()) for c in app.screen.query_one(Footer).query("*")}
