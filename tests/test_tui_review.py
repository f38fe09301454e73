"""Pilot tests of the home and review screens: counts, a numeric card answered wrongly then
rightly, rating, undo, a self-graded card revealed, and the store updated every time."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Static
from tui_support import SMALL, make_app, run_async, settle

from deck.store import Store
from quizcoll.tui.screens.home import HomeScreen
from quizcoll.tui.screens.review import ReviewScreen


def _text(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


@run_async
async def test_home_lists_decks_with_counts(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        table = app.screen.query_one("#decks", DataTable)
        rows = {table.get_row_at(i)[0]: table.get_row_at(i) for i in range(table.row_count)}
        assert set(rows) == {"collectives", "memory"}
        assert [str(c) for c in rows["collectives"][1:]] == ["3", "0", "3"]
        assert [str(c) for c in rows["memory"][1:]] == ["2", "0", "2"]
        assert "5 new left" in _text(app, "#today")


@run_async
async def test_numeric_wrong_then_right_rate_and_undo(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        current = screen.session.current
        assert current.card.id == "ring-reduce-scatter-bytes"
        # seed 1 draws n = 10 ranks of 64 MiB: each rank sends 9/10 · 64 MiB = 57.6 MiB
        assert current.instance.values == {"n": 10, "size": 64 * 2**20}
        assert app.focused is screen.query_one("#answer")

        await pilot.press(*"64 MiB", "enter")
        await settle(pilot)
        assert current.verdict.correct is False
        assert "57.60 MiB" in _text(app, "#verdict")
        assert app.focused.id == "rate-1"  # Again suggested after a wrong answer

        await pilot.press("e", "ctrl+u", *"57.6 MiB", "enter")
        await settle(pilot)
        assert current.verdict.correct is True
        assert current.attempts == 2
        assert app.focused.id == "rate-2"  # right at the second attempt: Hard

        await pilot.press("3")
        await settle(pilot)
        with Store.open(db) as store:
            [review] = store.reviews()
            assert (review.card_id, int(review.rating), review.correct) == (
                current.card.id,
                3,
                True,
            )
            assert review.answer == "57.6 MiB"
        assert screen.session.current.card.id != current.card.id

        await pilot.press("u")  # from the next card's empty answer box
        await settle(pilot)
        with Store.open(db) as store:
            assert store.reviews() == []
            assert store.state(current.card.id).is_new
        assert screen.session.current.card.id == current.card.id
        assert screen.query_one("#ratings").display  # back at the rating step


@run_async
async def test_self_graded_card_reveals_with_space(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.open_review("collectives")
        await settle(pilot)
        screen = app.screen
        # rate the first two cards Again to reach the basic card
        while screen.session.current.card.id != "allreduce-definition":
            await pilot.press("space")
            await settle(pilot)
            await pilot.press("1")
            await settle(pilot)
        assert not screen.query_one("#answer").display
        await pilot.press("space")
        await settle(pilot)
        assert "Every rank ends with the reduction" in screen.session.current.verdict.solution
        await pilot.press("4")
        await settle(pilot)
        with Store.open(db) as store:
            ratings = [(r.card_id, int(r.rating)) for r in store.reviews()]
        assert ratings[-1] == ("allreduce-definition", 4)
        assert len(ratings) == 3


@run_async
async def test_escape_returns_home_and_counts_update(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert "1 reviewed" in _text(app, "#today")
