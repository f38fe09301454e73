"""Pilot tests of the review's rough edges (issue 14): no previous answer flashing under the
next card, scrolling a long answer from the keyboard, hints, suspend with confirmation and
its undo, bury, the lab keys where no lab applies, the title, the session summary, and
editing a card in $EDITOR while reviewing it."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from textual.widgets import Markdown, Static
from tui_support import (
    BASE_CARDS,
    EXTRA_CARDS,
    LAB_CARDS,
    SMALL,
    footer_keys,
    make_app,
    plain,
    run_async,
    settle,
)

from deck.review.store import Store
from quizcoll.tui.screens.confirm import ConfirmScreen
from quizcoll.tui.screens.review import ReviewScreen


async def _review(pilot, app, deck: str | None = None) -> ReviewScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    if deck is None:
        await pilot.press("r")
    else:
        app.open_review(deck)
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


def _text(screen: ReviewScreen, selector: str) -> str:
    return plain(screen.query_one(selector, Static))


@run_async
async def test_the_worked_answer_is_never_filled_while_it_is_shown(tmp_path: Path) -> None:
    """Item 1: the previous card's answer flashed under the next card while the new one was
    still being parsed. Every fill of the answer box now happens while it is hidden, and
    moving to the next card empties it."""
    app = make_app(tmp_path / "r.db", cards=[LAB_CARDS.parent / "collectives.yaml"])
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app)
        md = screen.query_one("#solution", Markdown)
        fills: list[tuple[bool, str]] = []
        original = md.update

        def spy(markdown: str):  # type: ignore[no-untyped-def]
            fills.append((bool(md.display), markdown))
            return original(markdown)

        md.update = spy  # type: ignore[method-assign]
        first = screen.session.current.card.id
        await pilot.press("space")  # give up: the answer is shown
        await settle(pilot)
        assert md.display and "57.60 MiB" in md.source
        await pilot.press("1")
        await settle(pilot)
        assert screen.session.current.card.id != first
        assert not md.display and md.source == ""  # emptied before the next card appears
        await pilot.press("space")
        await settle(pilot)
        assert md.display and "Reduce-scatter (N−1 steps)" in md.source
        assert fills and all(not shown for shown, _ in fills), fills


@run_async
async def test_a_long_revealed_answer_scrolls_from_the_keyboard(tmp_path: Path) -> None:
    """Item 2: PageDown, Down, j, End and Home scroll the answer while a rating has focus."""
    app = make_app(tmp_path / "r.db", cards=[EXTRA_CARDS])
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app)
        assert screen.session.current.card.id == "long-answer"
        await pilot.press("space")
        await settle(pilot)
        body = screen.query_one("#review-body")
        assert app.focused.id == "rate-3" and body.max_scroll_y > 10
        await pilot.press("pagedown")
        await pilot.pause()
        paged = body.scroll_y
        assert paged > 0
        await pilot.press("j", "down")
        await pilot.pause()
        assert body.scroll_y == paged + 2
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("k", "home")
        await pilot.pause()
        assert body.scroll_y == 0


@run_async
async def test_h_shows_the_hint_and_the_review_is_logged_as_hinted(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, cards=[EXTRA_CARDS], seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app)
        await pilot.press("space", "3")  # the long card, self-graded
        await settle(pilot)
        p = screen.session.current
        assert p.card.id == "hinted-sum"
        n = p.instance.values["n"]
        assert not screen.query_one("#hint").display
        assert any("Hint" in k for k in footer_keys(app))
        await pilot.press("h")  # from the empty answer box
        await settle(pilot)
        assert _text(screen, "#hint").strip() == f"Hint: Add one to {n}."
        assert screen.query_one("#answer").value == ""
        await pilot.press(*str(n + 1), "enter")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        # a card without a hint says so, and h is typed into its answer box
        assert screen.session.current.card.id == "long-choice"
        await pilot.press("h")
        await settle(pilot)
        assert not screen.query_one("#hint").display
        assert screen.query_one("#answer").value == "h"
    with Store.open(db) as store:
        hinted = {r.card_id: r.hinted for r in store.reviews()}
    assert hinted == {"long-answer": False, "hinted-sum": True}


@run_async
async def test_wrapped_choice_options_line_up_under_their_text(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db", cards=[EXTRA_CARDS])
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app)
        await pilot.press("space", "3")
        await settle(pilot)
        await pilot.press("space")  # give up on the hinted card
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert screen.session.current.card.id == "long-choice"
        lines = plain(screen.query_one("#options", Static), width=60).splitlines()
        assert lines[0].startswith(" a  Every rank sends")
        # the wrapped rest starts under the option's text, not under its letter
        assert lines[1].startswith(" " * 4) and lines[1][4] != " "


@run_async
async def test_suspend_asks_first_and_u_undoes_the_suspension(tmp_path: Path) -> None:
    """Item 6: ! sits next to 1 (Again); it now asks, and u undoes the suspension rather
    than the previous rating."""
    db = tmp_path / "r.db"
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("3")  # one rating stored
        await settle(pilot)
        card = screen.session.current.card.id
        await pilot.press("exclamation_mark")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and screen.session.current.card.id == card
        with Store.open(db) as store:
            assert store.card(card) is None
        await pilot.press("exclamation_mark")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        with Store.open(db) as store:
            assert store.card(card).suspended
        assert screen.session.current.card.id != card
        await pilot.press("u")
        await settle(pilot)
        assert screen.session.current.card.id == card
        with Store.open(db) as store:
            assert not store.card(card).suspended
            assert len(store.reviews()) == 1  # the rating before stays
        assert any("suspension" in n.message for n in app._notifications)


@run_async
async def test_bury_hides_the_card_until_the_next_review_day(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app)
        card = screen.session.current.card.id
        await pilot.press("space")  # out of the answer box (a negative answer starts with -)
        await settle(pilot)
        await pilot.press("minus")
        await settle(pilot)
        with Store.open(db) as store:
            # the frozen clock is 12:00 UTC; the next review day starts at 04:00
            assert store.card(card).buried_until == datetime(2025, 3, 4, 4, 0, tzinfo=UTC)
        assert screen.session.current.card.id != card
        await pilot.press("u")
        await settle(pilot)
        assert screen.session.current.card.id == card
        with Store.open(db) as store:
            assert store.card(card).buried_until is None


@run_async
async def test_l_without_a_lab_says_why(tmp_path: Path) -> None:
    """Item 8: l on a card no lab can replay used to do nothing at all."""
    app = make_app(tmp_path / "r.db", cards=[LAB_CARDS / "no_lab.yaml"])
    async with app.run_test(size=SMALL) as pilot:
        await _review(pilot, app)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("l", "m")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert "The simulation lab cannot replay this card's answer." in messages
        assert "The memory lab cannot replay this card's answer." in messages


@run_async
async def test_a_single_deck_review_names_its_deck_once(tmp_path: Path) -> None:
    """Item 9: "Review · memory · memory"."""
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app, deck="memory")
        title = _text(screen, "#review-title")
        assert title.startswith("Review · memory · new") and title.count("memory") == 1


@run_async
async def test_the_session_ends_with_a_summary_and_only_the_keys_that_apply(
    tmp_path: Path,
) -> None:
    """Item 7 and the session summary: reviewed, right, time, leeches, next due."""
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app, deck="memory")
        await pilot.press(*"3.73 GiB", "enter")  # seed 1 draws 1e9 parameters: 3.73 GiB
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("space")  # give up on the formula card
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert screen.session.current is None
        done = _text(screen, "#done")
        assert "Session done. 2 cards reviewed (1 of 2 right)." in done
        assert "Next card due in 8d (Tue 12:00)." in done  # both rated Easy
        keys = " ".join(footer_keys(app))
        for gone in ("Reveal", "Rate", "Suspend", "Hint"):
            assert gone not in keys
        assert "Undo" in keys


@run_async
async def test_edit_in_the_editor_reloads_the_card_and_keeps_its_schedule(tmp_path: Path) -> None:
    cards = tmp_path / "cards.yaml"
    shutil.copy(BASE_CARDS[0], cards)
    opened: list[tuple[Path, int]] = []
    edits = [("A ring **reduce-scatter**", "An EDITED ring"), ("id: ring-steps", "id: Bad Id")]

    def editor(path: Path, line: int) -> int:
        opened.append((path, line))
        old, new = edits[len(opened) - 1]
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), "utf-8")
        return 0

    db = tmp_path / "r.db"
    app = make_app(db, cards=[cards], editor=editor)
    async with app.run_test(size=SMALL) as pilot:
        screen = await _review(pilot, app)
        p = screen.session.current
        assert p.card.id == "ring-reduce-scatter-bytes"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert opened[0][1] == 4 and opened[0][0].resolve() == cards.resolve()
        now = screen.session.current
        assert now.card.id == p.card.id and "An EDITED ring" in now.card.front
        assert now.instance.values == p.instance.values  # the same seed: the same numbers
        assert "An EDITED ring" in screen.query_one("#front", Markdown).source
        assert any("no problem found" in n.message for n in app._notifications)
        await pilot.press(*"57.6 MiB", "enter")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("ctrl+o")  # the id of the card on screen made invalid
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("cards.yaml:" in m and "id" in m for m in messages)
        assert any("ring-steps is no longer in" in m for m in messages)
    with Store.open(db) as store:
        [review] = store.reviews()
        assert review.card_id == "ring-reduce-scatter-bytes"
