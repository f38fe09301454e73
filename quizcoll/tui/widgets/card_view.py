"""The card under review, top to bottom: its question, a choice card's options, the hint,
the answer box, the verdict, the worked answer and the executable's live result; at the
end of the session, the session's summary in their place.

The review screen says what to show; this widget owns the order in which the parts are
emptied and filled, so that nothing of the previous card ever shows under the next one.
"""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from deck.cards.model import CardType
from deck.cards.registry import Registry
from quizcoll.tui.services.review import Presented
from quizcoll.tui.widgets.answer_input import AnswerInput
from quizcoll.tui.widgets.result_view import ResultView
from quizcoll.tui.widgets.review_text import hint_text, options_table
from quizcoll.tui.widgets.verdict import VerdictView

BASIC_HINT = "Think of the answer, then press space to reveal it."


class CardView(VerticalScroll):
    """The scrolling body of the review: one card's parts, each shown when it applies."""

    def compose(self) -> ComposeResult:
        yield Markdown("", id="front")
        yield Static("", id="options")
        yield Static("", id="hint")
        yield AnswerInput(id="answer")
        yield VerdictView("", id="verdict")
        yield Markdown("", id="solution")
        yield ResultView("", id="result")
        yield Static("", id="done")

    def clear(self) -> None:
        """Nothing but the (empty) question: how the review starts, before its first card."""
        for selector in (
            "#options",
            "#hint",
            "#verdict",
            "#solution",
            "#result",
            "#answer",
            "#done",
        ):
            self.query_one(selector).display = False

    async def show_card(self, p: Presented | None, registry: Registry | None) -> None:
        """``p``'s question and a fresh answer box, nothing of its answer yet; with None,
        no card at all (the session is done: :meth:`show_summary` follows)."""
        answer = self.query_one("#answer", AnswerInput)
        for selector in ("#verdict", "#solution", "#result", "#options", "#hint"):
            self.query_one(selector).display = False
        self.query_one("#result", ResultView).links = None  # no lab key until it is revealed
        done = self.query_one("#done", Static)
        front = self.query_one("#front", Markdown)
        # The previous card's answer must never show under this one: the worked answer is
        # emptied (while hidden) before anything of the new card appears.
        await self.query_one("#solution", Markdown).update("")
        if p is None:
            front.display = False
            answer.display = False
            return
        done.display = False
        front.display = False  # shown once it holds this card's question, not the last one's
        await front.update(p.front_markdown())
        front.display = True
        options = p.options()
        if options:
            self.query_one("#options", Static).update(options_table(options))
            self.query_one("#options").display = True
        if p.hinted:
            self.show_hint(p)
        answer.clear_for(p.card)
        if p.card.type is CardType.BASIC:
            answer.display = False
            self.query_one("#verdict", VerdictView).note(BASIC_HINT)
            self.focus()
        else:
            answer.ask(p.card, registry)
        self.scroll_home(animate=False)

    def show_hint(self, p: Presented) -> None:
        """The card's hint, above the answer box."""
        box = self.query_one("#hint", Static)
        box.update(hint_text(p))
        box.display = True

    async def show_answer(self, p: Presented, registry: Registry | None) -> None:
        """The verdict on ``p``'s answer; once the answer is revealed, the worked answer and
        the executable's live result under it, and the answer box closed."""
        verdict = p.verdict
        assert verdict is not None
        self.query_one("#verdict", VerdictView).show(p)
        # The answer, its worked solution and the live result wait until it is revealed.
        solution = verdict.solution.strip() if p.revealed else ""
        md = self.query_one("#solution", Markdown)
        await md.update(solution)  # filled before it is shown: no other card's answer flashes
        md.display = bool(solution)
        run = p.card.answer.computation.run if p.card.answer and p.card.answer.computation else ""
        result = self.query_one("#result", ResultView)
        result.show(p.solution if p.revealed else None, run, registry)
        answer = self.query_one("#answer", AnswerInput)
        answer.disabled = p.revealed  # keeps what was typed on screen; nothing left to try

    def show_summary(self, summary: RenderableType) -> None:
        """The end of the session in place of a card."""
        done = self.query_one("#done", Static)
        done.update(summary)
        done.display = True
        self.focus()
