"""N12: a typed-answer card can be buried before answering (ctrl+b works in the answer box,
where "-" types a minus)."""

from __future__ import annotations

from pathlib import Path

from tui_support import SMALL, make_app, run_async, settle

from deck.review.store import Store
from quizcoll.tui.screens.review import ReviewScreen
from quizcoll.tui.widgets.answer_input import AnswerInput


@run_async
async def test_ctrl_b_buries_a_numeric_card_from_the_answer_box(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        first = screen.session.current.card.id
        assert isinstance(app.focused, AnswerInput)  # a typed-answer card: the box has focus
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert screen.session.current is None or screen.session.current.card.id != first
        assert app.focused is None or getattr(app.focused, "value", "") == ""
    with Store.open(db) as store:
        record = store.card(first)
        assert record is not None and record.buried_until is not None
