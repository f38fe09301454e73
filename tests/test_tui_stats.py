"""Pilot test of the stats screen's deck selector: the plots and retention follow the deck."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from textual.widgets import Select, Static
from tui_support import FROZEN_NOW, SMALL, make_app, plain, run_async, settle, wait_until

from deck.cards.model import Rating
from deck.review.scheduler import CardState, Phase
from deck.review.store import Store
from quizcoll.tui.screens.stats import StatsScreen

DAY = timedelta(days=1)


def _in_review(interval_days: int, due_in_days: int) -> CardState:
    due = FROZEN_NOW + due_in_days * DAY
    return CardState(
        phase=Phase.REVIEW,
        stability=interval_days,
        difficulty=5.0,
        due=due,
        last_review=due - interval_days * DAY,
        reps=4,
    )


def _record(db: Path) -> None:
    """collectives: two mature cards, one passes and one lapses yesterday, a third reviewed
    today; memory: three reviews today, one of them practice, so no mature review at all."""
    with Store.open(db) as store:
        for cid, rating in (("ring-steps", Rating.GOOD), ("allreduce-definition", Rating.AGAIN)):
            store.record_review(
                cid,
                Rating.GOOD,
                _in_review(30, -1),
                reviewed_at=FROZEN_NOW - 40 * DAY,
                deck="collectives",
            )
            store.record_review(
                cid, rating, _in_review(40, 9), reviewed_at=FROZEN_NOW - DAY, deck="collectives"
            )
        store.record_review(
            "ring-reduce-scatter-bytes",
            Rating.GOOD,
            _in_review(3, 3),
            reviewed_at=FROZEN_NOW,
            deck="collectives",
        )
        for cid in ("fp32-weights-gib", "kv-cache-growth"):
            store.record_review(
                cid, Rating.GOOD, _in_review(5, 5), reviewed_at=FROZEN_NOW, deck="memory"
            )
        store.record_review(
            "kv-cache-growth", Rating.AGAIN, CardState(), reviewed_at=FROZEN_NOW, practice=True
        )


def _reviews_axis_top(text: str) -> str:
    """The tick at the top of the reviews-per-day chart: that chart's busiest day."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Reviews per day"))
    return lines[at + 1].split("│")[0].strip()


@run_async
async def test_deck_selector_switches_the_plots(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _record(db)
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("s")
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        await wait_until(pilot, lambda: screen.view is not None)

        def shown() -> str:
            return plain(screen.query_one("#stats", Static))

        text = shown()
        assert screen.deck is None
        assert "8 reviews (1 practice)" in text and "50.0% over 2 review(s)" in text
        assert "Reviews per day, last 30 days · all decks" in text
        assert _reviews_axis_top(text) == "4"  # today: 1 collectives + 3 memory
        assert "collectives ███" in text and "memory " in text  # retention per deck

        await pilot.press("d")  # all decks → the first deck
        await pilot.pause()
        text = shown()
        assert screen.deck == "collectives"
        assert "collectives: 5 reviews (0 practice)" in text
        assert "true retention (mature cards) 50.0% over 2 review(s)" in text
        assert "Due forecast, next 30 days (day 0 includes overdue) · collectives" in text
        assert _reviews_axis_top(text) == "2"  # yesterday's two
        forecast = screen.view.series("collectives").forecast
        assert (forecast[3], forecast[9], sum(forecast)) == (1, 2, 3)

        screen.query_one("#stats-deck", Select).value = "memory"
        await pilot.pause()
        text = shown()
        assert "memory: 3 reviews (1 practice)" in text
        assert "true retention (mature cards) – over 0 review(s)" in text  # practice excluded
        assert "2 cards: 0 new, 0 learning, 2 review, 0 due, 0 suspended" in text
        assert _reviews_axis_top(text) == "3"
        forecast = screen.view.series("memory").forecast
        assert (forecast[5], sum(forecast)) == (2, 2)

        await pilot.press("r")  # a refresh keeps the chosen deck
        await settle(pilot)
        assert screen.deck == "memory" and "memory: 3 reviews" in shown()

        await pilot.press("d")  # the last deck → all decks again
        await pilot.pause()
        assert screen.deck is None and "8 reviews (1 practice)" in shown()
