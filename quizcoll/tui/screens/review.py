"""Review (and practice): the question, the answer box, the verdict with the worked answer
and the executable's live result, then the four ratings with their intervals.

Under a revealed answer whose live result a lab can replay, ``l`` (a collective) or ``m``
(a catalog model's memory) opens that lab on the card's values, over the review.
``h`` shows the card's hint, ``!`` suspends (after asking), ``-`` buries until tomorrow,
``ctrl+o`` opens the card's YAML in ``$EDITOR``; ``u`` undoes the last of these steps.
At the end, a summary of the session.

Database steps run on the database thread and checking in a worker thread, so the
screen never waits; a rating is acknowledged only once it is committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input

from deck.base.errors import DeckError
from deck.cards.model import Rating
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.screens.confirm import ConfirmScreen
from quizcoll.tui.services.review import Presented, ReviewSession
from quizcoll.tui.services.review_keys import (
    LAB_KEYS,
    key_state,
    lab_request,
    no_lab_message,
    palette_items,
    split_action,
)
from quizcoll.tui.widgets.answer_input import AnswerInput
from quizcoll.tui.widgets.card_view import CardView
from quizcoll.tui.widgets.rating_bar import NAMES, RatingBar
from quizcoll.tui.widgets.result_view import ResultView
from quizcoll.tui.widgets.review_header import ReviewHeader
from quizcoll.tui.widgets.review_text import saved_note
from quizcoll.tui.widgets.session_summary import render_summary
from quizcoll.tui.widgets.verdict import VerdictView

if TYPE_CHECKING:
    from quizcoll.tui.services.lab import LabRequest
    from quizcoll.tui.services.memory_lab import MemoryRequest

T = TypeVar("T")

# The four ratings share one footer entry ("1234 Rate") so the footer fits in 80 columns;
# the help screen and the palette's key panel still list each of them.
RATE = Binding.Group("Rate", compact=True)
EMPTY_HINT = "Type an answer, then Enter — or press space to show the answer."


class ReviewScreen(QuizScreen):
    """One review or practice session."""

    HELP_NAME = "Review"  # its section of the help screen

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("space", "reveal", "Reveal"),
        Binding("1", "rate(1)", "Again", group=RATE),
        Binding("2", "rate(2)", "Hard", group=RATE),
        Binding("3", "rate(3)", "Good", group=RATE),
        Binding("4", "rate(4)", "Easy", group=RATE),
        Binding("u", "undo", "Undo"),
        Binding("e", "edit", "Try again", show=False),
        Binding("tab", "tab", "Try again / next field", show=False),
        Binding("h", "hint", "Hint"),
        Binding("h", "no_hint", show=False),
        Binding("exclamation_mark", "suspend", "Suspend", key_display="!"),
        Binding("minus", "bury", "Bury until tomorrow", key_display="-", show=False),
        # The answer box types "-": ctrl+b buries from there too (N12).
        Binding("ctrl+b", "bury", "Bury until tomorrow", show=False, priority=True),
        Binding("ctrl+o", "edit_card", "Edit the card", show=False),
        # Offered only under a live result a lab can replay (see check_action); on any
        # other card the same key says why nothing opens.
        Binding("l", "open_lab", "Lab"),
        Binding("l", "no_lab('simulation')", show=False),
        Binding("m", "open_memory_lab", "Memory lab"),
        Binding("m", "no_lab('memory')", show=False),
        # A long answer scrolls from the rating buttons too.
        Binding("pagedown", "scroll('page_down')", show=False),
        Binding("pageup", "scroll('page_up')", show=False),
        Binding("down,j", "scroll('down')", show=False),
        Binding("up,k", "scroll('up')", show=False),
        Binding("end", "scroll('end')", show=False),
        Binding("home", "scroll('home')", show=False),
    ]

    def __init__(
        self, deck: str | None = None, *, practice: bool = False, tag: str | None = None
    ) -> None:
        super().__init__()
        self.deck = deck
        self.practice = practice
        self.tag = tag
        self.session: ReviewSession | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        yield ReviewHeader(id="review-top")
        yield CardView(id="review-body")
        yield RatingBar(id="ratings")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(CardView).clear()
        self.query_one("#ratings").display = False
        self.start()

    # -- state ----------------------------------------------------------------------------

    @property
    def current(self) -> Presented | None:
        return self.session.current if self.session else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Grey out keys that do nothing now (shown dimmed in the footer)."""
        session = self.session
        return key_state(
            action,
            parameters,
            self.current,
            started=session is not None,
            can_undo=bool(session and session.actions),
            lab=self._lab_preset,
        )

    def _lab_preset(self, action: str) -> LabRequest | MemoryRequest | None:
        """What ``action`` (open_lab, open_memory_lab) would open for the revealed card."""
        return lab_request(action, self.current, self.query_one("#result", ResultView).links)

    def action_open_lab(self) -> None:
        """l: the simulation lab on this card's collective, over the review (escape returns)."""
        self._open_lab("open_lab")

    def action_open_memory_lab(self) -> None:
        """m: the memory lab on this card's model and setting, over the review."""
        self._open_lab("open_memory_lab")

    def _open_lab(self, action: str) -> None:
        preset = self._lab_preset(action)
        if preset is not None:
            self.quiz.open_lab_over(preset)

    def action_no_lab(self, which: str) -> None:
        """l or m where that lab cannot replay this card: say so instead of doing nothing."""
        p = self.current
        if p is not None:
            self.notify(no_lab_message(which, p), timeout=3)

    def action_no_hint(self) -> None:
        self.notify("This card has no hint.", timeout=3)

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#review-body", VerticalScroll)
        getattr(body, f"scroll_{where}")(animate=False)

    def help_keys(self) -> list[tuple[str, str]]:
        """This screen's keys that apply only now, for the help screen."""
        return [keys for action, keys in LAB_KEYS.items() if self._lab_preset(action) is not None]

    async def _guarded(self, step: Callable[[], Awaitable[T]]) -> T | None:
        """Run one step at a time; database faults become notifications."""
        if self.busy:
            return None
        self.busy = True
        try:
            return await step()
        except DeckError as exc:
            self.quiz.report(str(exc), title="Review")
            return None
        finally:
            self.busy = False
            self.refresh_bindings()

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """This screen's actions that apply now, for the command palette."""
        return [
            (title, f"Review  [{key}]", partial(self.run_action, action))
            for action, title, key in palette_items(NAMES)
            if self.check_action(*split_action(action))
        ]

    # -- flow -----------------------------------------------------------------------------

    @work(exclusive=True, group="review")
    async def start(self) -> None:
        await self.ready()
        quiz = self.quiz
        self.session = ReviewSession(
            quiz.cards,
            quiz.registry,  # type: ignore[arg-type]
            quiz.config,
            quiz.env.clock,
            quiz.env.seeds,
            deck=self.deck,
            practice=self.practice,
            tag=self.tag,
            tz=quiz.env.tz,
            given=quiz.env.given,
        )
        session = self.session

        async def begin() -> None:
            await quiz.db.call(session.load)
            await self._next()

        await self._guarded(begin)

    async def _next(self) -> None:
        assert self.session is not None
        p = await self.quiz.db.call(self.session.advance)
        await self._show_card(p)

    async def _show_card(self, p: Presented | None) -> None:
        header = self.query_one(ReviewHeader)
        header.show(self.session, practice=self.practice, deck=self.deck, tag=self.tag)
        self.query_one("#ratings").display = False
        await self.query_one(CardView).show_card(p, self.quiz.registry)
        if p is None:
            await self._show_summary()
            return
        self.refresh_bindings()

    async def _show_summary(self) -> None:
        """The end of the session: what it did and when the next card is due."""
        assert self.session is not None
        summary = await self.quiz.db.call(self.session.summary)
        env = self.quiz.env
        text = render_summary(summary, env.clock(), env.tz, practice=self.practice)
        self.query_one(CardView).show_summary(text)
        self.refresh_bindings()

    async def _after_answer(self, p: Presented, focus: Rating | None = None) -> None:
        """The verdict on ``p``'s answer, then the ratings with the interval each would give;
        ``focus`` is the rating button to focus (by default the suggested one)."""
        assert self.session is not None
        intervals = await self.quiz.db.call(self.session.preview)
        verdict = p.verdict
        assert verdict is not None
        await self.query_one(CardView).show_answer(p, self.quiz.registry)
        ratings = self.query_one("#ratings", RatingBar)
        ratings.display = True
        ratings.show(intervals, verdict.suggested, focus=focus)
        self.refresh_bindings()

    # -- events and actions ---------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        p = self.current
        if p is None or event.input.id != "answer":
            return
        if not event.value.strip():
            # Nothing typed is not an attempt: say what to do instead.
            self._note(p, EMPTY_HINT, timeout=3)
            return
        self.check(event.value)

    def _note(self, p: Presented, message: str, *, timeout: float) -> None:
        """``message`` in place of a verdict, or as a notification where ``p`` already has
        a verdict to keep on screen: not an attempt, nothing judged."""
        if p.answered:
            self.notify(message, timeout=timeout)
        else:
            self.query_one("#verdict", VerdictView).note(message)

    @work(exclusive=True, group="review")
    async def check(self, text: str) -> None:
        session = self.session
        if session is None or session.current is None:
            return
        p = session.current

        async def step() -> None:
            verdict = await asyncio.to_thread(session.check, text)
            if verdict is not None and verdict.invalid:
                # Text that is not an answer: say where reading failed; nothing is shown.
                self._note(p, verdict.message, timeout=5)
            elif verdict is not None:
                await self._after_answer(p)

        await self._guarded(step)

    @work(exclusive=True, group="review")
    async def action_reveal(self) -> None:
        session = self.session
        if session is None or session.current is None:
            return
        p = session.current

        async def step() -> None:
            await asyncio.to_thread(session.reveal)
            await self._after_answer(p)

        await self._guarded(step)

    def on_rating_bar_rated(self, event: RatingBar.Rated) -> None:
        self.rate(event.rating)

    def action_rate(self, value: int) -> None:
        self.rate(Rating(value))

    @work(exclusive=True, group="review")
    async def rate(self, rating: Rating) -> None:
        session = self.session
        if session is None or session.current is None or not session.current.answered:
            return
        p = session.current
        if p.retryable:
            # Rating a wrong answer first shows the answer; the same key again rates.
            async def show() -> None:
                session.reveal()
                await self._after_answer(p, focus=rating)
                self.notify(
                    f"The answer is shown: press {int(rating)} again (or enter) "
                    f"to rate {NAMES[rating]}",
                    timeout=3,
                )

            await self._guarded(show)
            return
        card_id, card_id_deck = p.card.id, p.card.deck
        intervals = session.current.interval_labels()

        async def step() -> None:
            review = await self.quiz.db.call(session.rate, rating)
            interval = None if self.practice else intervals.get(rating)
            from deck.review.anki import leech_alert

            lapses = review.after.state.lapses
            threshold = self.quiz.config.for_deck(card_id_deck).leech_threshold
            leech = lapses > review.before.state.lapses and leech_alert(lapses, threshold)
            self.notify(saved_note(card_id, NAMES[rating], interval, leech=leech), timeout=3)
            await self._next()

        await self._guarded(step)

    @work(exclusive=True, group="review")
    async def action_undo(self) -> None:
        session = self.session
        if session is None or not session.actions:
            self.notify("Nothing to undo in this session.", timeout=3)
            return

        async def step() -> None:
            p, what = await self.quiz.db.call(session.undo)
            await self._show_card(p)
            self.notify(f"Undone: the {what} of {p.card.id}; the card is back", timeout=3)
            if p.answered:
                await self._after_answer(p)
                answer = self.query_one("#answer", AnswerInput)
                if p.answers:
                    answer.value = p.answers[-1]

        await self._guarded(step)

    def action_suspend(self) -> None:
        """!: suspend the card on screen, once confirmed (it is next to the rating keys)."""
        p = self.current
        if p is None:
            return
        card_id = p.card.id

        def answered(yes: bool | None) -> None:
            if yes and self.current is not None and self.current.card.id == card_id:
                self._flag("suspend")

        self.app.push_screen(
            ConfirmScreen(
                f"Suspend {card_id}?",
                "It leaves every queue until you unsuspend it in Browse (u undoes this).",
            ),
            answered,
        )

    def action_bury(self) -> None:
        """-: hide the card on screen until the next review day."""
        if self.current is not None:
            self._flag("bury")

    @work(exclusive=True, group="review")
    async def _flag(self, what: str) -> None:
        session = self.session
        if session is None or session.current is None:
            return

        async def step() -> None:
            if what == "suspend":
                card_id = await self.quiz.db.call(session.suspend)
                note = f"Suspended {card_id} (unsuspend it in Browse; u undoes)"
            else:
                card_id = await self.quiz.db.call(session.bury)
                note = f"Buried {card_id} until tomorrow (u undoes)"
            self.notify(note, timeout=4)
            await self._next()

        await self._guarded(step)

    def action_hint(self) -> None:
        """h: the card's hint, before answering (the review is logged as hinted)."""
        session = self.session
        p = self.current
        if session is None or p is None:
            return
        if not p.card.hint:
            self.notify("This card has no hint.", timeout=3)
            return
        session.hint()
        self.query_one(CardView).show_hint(p)
        self.refresh_bindings()

    @work(exclusive=True, group="review")
    async def action_edit_card(self) -> None:
        """ctrl+o: the card's YAML in $EDITOR at its line; on return the file is loaded and
        the card checked again, and it is asked afresh (its schedule is keyed on the id)."""
        session, p = self.session, self.current
        if session is None or p is None:
            return
        reloaded = await self.quiz.edit_card(p.card)
        if reloaded is None or reloaded.card is None:
            return  # the app said why; the session keeps the card as it was
        fresh = session.replace_card(reloaded.card)
        if fresh is not None and fresh.card is reloaded.card:
            await self._show_card(fresh)
        if not reloaded.problems:
            self.notify(f"Reloaded {p.card.id}: no problem found", timeout=3)

    def action_edit(self) -> None:
        """Back to the answer box for another attempt, the previous text selected (typing
        replaces it). Focus moves now, not on the next idle, so keys typed right after
        ``e`` land in the box."""
        p = self.current
        answer = self.query_one("#answer", AnswerInput)
        if p is None or not p.retryable or not answer.display:
            return
        answer.try_again()

    def take_stray_key(self, event: events.Key) -> bool:
        """Type ``event`` into the answer box if it was aimed there (a key typed while the
        focus was moving to it); True if it was."""
        return self.query_one("#answer", AnswerInput).take_stray_key(event)

    def action_tab(self) -> None:
        """tab: try again after a wrong answer; otherwise the next field, as everywhere."""
        p = self.current
        if p is not None and p.retryable and self.focused is not self.query_one("#answer"):
            self.action_edit()
        else:
            self.focus_next()

    def action_back(self) -> None:
        self.app.pop_screen()
