"""Pilot tests of grading in the review screen: text that cannot be read is not an attempt
(the error says where, the answer stays hidden, nothing is stored), the answer box's example
fits the card, and a named mistake shows with the rating it suggests."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static
from tui_support import SMALL, make_app, run_async, settle

from deck.review.store import Store
from quizcoll.tui.screens.review import ReviewScreen
from quizcoll.tui.widgets.answer_input import AnswerInput


def _text(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one(selector, Static).render())


@run_async
async def test_unreadable_answer_is_not_an_attempt(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        current = screen.session.current
        assert current.card.id == "ring-reduce-scatter-bytes"  # n = 10 ranks of 64 MiB
        box = screen.query_one("#answer", AnswerInput)
        assert box.placeholder.startswith("a size with its unit, e.g. 768 MiB")

        await pilot.press(*"57.6 parsecs", "enter")
        await settle(pilot)
        verdict = _text(app, "#verdict")
        assert "Could not read that: unknown unit 'parsecs'" in verdict
        assert "57.60" not in verdict  # the answer stays hidden
        assert current.attempts == 0 and not current.answered and current.answers == []
        assert not screen.query_one("#ratings").display  # nothing to rate
        assert app.focused is box and not box.disabled  # type again at once

        box.value = ""
        await pilot.press(*"57.6 MiB", "enter")
        await settle(pilot)
        assert current.verdict.correct is True and current.attempts == 1
        assert app.focused.id == "rate-3"  # right at the first readable attempt: Good
        await pilot.press("3")
        await settle(pilot)
    with Store.open(db) as store:
        [review] = store.reviews()
    assert (review.answer, review.correct) == ("57.6 MiB", True)


@run_async
async def test_a_named_mistake_shows_with_its_rating(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db", seeds=(1,))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        current = screen.session.current
        # 57.6 MiB is right; the same number of MB is the decimal-vs-binary slip (Hard).
        await pilot.press(*"57.6 MB", "enter")
        await settle(pilot)
        assert current.verdict.correct is False
        assert current.verdict.mistake is not None
        assert current.verdict.mistake.id == "gb-vs-gib"
        assert "would be right in MiB" in _text(app, "#verdict")
        assert app.focused.id == "rate-2"  # a units slip suggests Hard, not Again
