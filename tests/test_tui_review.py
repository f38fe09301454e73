"""Pilot tests of the home and review screens: counts, a numeric card answered wrongly then
rightly, rating, undo, a self-graded card revealed, and the store updated every time; and
every screen's footer fitting in 80 columns."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import DataTable, Footer, Static
from tui_support import SMALL, footer_overflow, make_app, run_async, settle

from deck.review.store import Store
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


async def _first_card(pilot, app) -> ReviewScreen:  # type: ignore[no-untyped-def]
    """Open a review on the first card: seed 1 draws n = 10 ranks of 64 MiB, so each rank
    sends 9/10 · 64 MiB = 57.60 MiB."""
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    assert screen.session.current.card.id == "ring-reduce-scatter-bytes"
    assert screen.session.current.instance.values == {"n": 10, "size": 64 * 2**20}
    return screen


def _shown(screen: ReviewScreen, selector: str) -> bool:
    return bool(screen.query_one(selector).display)


@run_async
async def test_numeric_wrong_then_right_rate_and_undo(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        screen = await _first_card(pilot, app)
        current = screen.session.current
        assert app.focused is screen.query_one("#answer")

        await pilot.press("enter")  # nothing typed: not an attempt
        await settle(pilot)
        assert current.attempts == 0 and not current.answered
        assert "Type an answer" in _text(app, "#verdict")
        assert app.focused is screen.query_one("#answer")

        await pilot.press(*"64 MiB", "enter")
        await settle(pilot)
        assert current.verdict.correct is False
        verdict = _text(app, "#verdict")
        assert "Not quite: 64 MiB is 11.1% too high." in verdict
        assert "space: show the answer" in verdict
        assert "57.6" not in verdict  # the answer stays hidden while it can be retried
        assert not _shown(screen, "#solution") and not _shown(screen, "#result")
        assert app.focused.id == "rate-1"  # Again suggested after a wrong answer

        # e returns to the answer box with the previous text selected: typing replaces it
        await pilot.press("e", *"57.6 MiB")
        assert app.focused is screen.query_one("#answer")
        assert screen.query_one("#answer").value == "57.6 MiB"
        await pilot.press("enter")
        await settle(pilot)
        assert current.verdict.correct is True
        assert current.attempts == 2
        verdict = _text(app, "#verdict")
        assert "Correct. The answer is 57.60 MiB" in verdict and "attempt 2" in verdict
        assert "57.60 MiB" in str(screen.query_one("#solution").source)
        assert _shown(screen, "#solution")
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
        assert "57.60 MiB" in _text(app, "#verdict")  # with the answer shown
        assert app.focused.id == "rate-2"


@run_async
async def test_tab_retries_and_space_shows_the_answer(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        screen = await _first_card(pilot, app)
        current = screen.session.current
        await pilot.press(*"60 MiB", "enter")
        await settle(pilot)
        await pilot.press("tab")
        answer = screen.query_one("#answer")
        assert app.focused is answer and answer.selected_text == "60 MiB"
        await pilot.press(*"1 GiB", "enter")
        await settle(pilot)
        assert current.attempts == 2 and current.verdict.correct is False
        assert "attempt 2" in _text(app, "#verdict") and "57.6" not in _text(app, "#verdict")

        await pilot.press("space")  # show the answer: the verdict stays, Again suggested
        await settle(pilot)
        verdict = _text(app, "#verdict")
        assert "Not quite: 1 GiB is" in verdict and "The answer is 57.60 MiB" in verdict
        assert "try again" not in verdict
        assert _shown(screen, "#solution") and answer.disabled
        assert app.focused.id == "rate-1"
        await pilot.press("e")  # nothing left to try once the answer is on screen
        assert app.focused.id == "rate-1"
        await pilot.press("1")
        await settle(pilot)
        with Store.open(db) as store:
            [review] = store.reviews()
        assert (int(review.rating), review.correct, review.answer) == (1, False, "1 GiB")


@run_async
async def test_keys_sent_in_one_burst_after_e_land_in_the_answer_box(tmp_path: Path) -> None:
    """As tmux send-keys or a fast typist delivers them: all queued before ``e`` is handled,
    so they were routed to the rating button that had the focus."""
    app = make_app(tmp_path / "r.db", seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        screen = await _first_card(pilot, app)
        await pilot.press(*"64 MiB", "enter")
        await settle(pilot)
        names = {" ": "space", ".": "full_stop"}
        for ch in "e57.6 MiB":  # "5" and "7" are no rating keys; see "3" below
            app.post_message(events.Key(names.get(ch, ch), ch))
        await settle(pilot)
        assert screen.query_one("#answer").value == "57.6 MiB"
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        await pilot.press(*"64 MiB", "enter")
        await settle(pilot)
        for ch in "e3":  # a digit that is also a rating key is typed, not rated
            app.post_message(events.Key(ch, ch))
        await settle(pilot)
        assert screen.query_one("#answer").value == "3"
        assert not screen.session.current.revealed


@run_async
async def test_rating_a_hidden_answer_shows_it_first(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        screen = await _first_card(pilot, app)
        current = screen.session.current
        await pilot.press(*"64 MiB", "enter")
        await settle(pilot)
        await pilot.press("2")  # shows the answer; nothing is rated yet
        await settle(pilot)
        assert current.revealed and "The answer is 57.60 MiB" in _text(app, "#verdict")
        assert app.focused.id == "rate-2"
        with Store.open(db) as store:
            assert store.reviews() == []
        await pilot.press("enter")  # the focused rating (Hard) now rates
        await settle(pilot)
        with Store.open(db) as store:
            [review] = store.reviews()
        assert (review.card_id, int(review.rating)) == (current.card.id, 2)


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
        today = _text(app, "#today")
        assert "1 reviewed" in today
        # rated Good: its 10-minute learning step is not due yet, so not counted as due
        assert "0 due and 4 new left" in today and "next in 10m" in today


@run_async
async def test_every_footer_fits_in_80_columns(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert footer_overflow(app) == []
        for key in "lmbs":  # the two labs, browse, stats
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause()
            assert footer_overflow(app) == [], type(app.screen).__name__
            await pilot.press("escape")
            await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press(*"64 MiB", "enter")
        await settle(pilot)
        await pilot.pause()
        assert footer_overflow(app) == []
        shown = {str(c.render()) for c in app.screen.query_one(Footer).query("*")}
        assert any("Suspend" in text for text in shown)
        # the review's keys not in the footer stay in the command palette
        titles = [title for title, _, _ in app.screen.palette_commands()]
        assert titles[:2] == ["Show the answer", "Try again"]
        assert {"Rate Again", "Rate Easy", "Suspend this card"} <= set(titles)
