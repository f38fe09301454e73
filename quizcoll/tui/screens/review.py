"""Review (and practice): the question, the answer box, the verdict with the worked answer
and the executable's live result, then the four ratings with their intervals.

Under a revealed answer whose live result a lab can replay, ``l`` (a collective) or ``m``
(a catalog model's memory) opens that lab on the card's values, over the review.

Database steps run on the database thread and checking in a worker thread, so the
screen never waits; a rating is acknowledged only once it is committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Input, Markdown, ProgressBar, Static

from deck.checking import answer_dim, answer_sentence
from deck.errors import DeckError
from deck.examples import answer_hint
from deck.model import CardType, Rating
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.review import Presented, ReviewSession
from quizcoll.tui.widgets.answer_input import AnswerInput
from quizcoll.tui.widgets.rating_bar import NAMES, RatingBar
from quizcoll.tui.widgets.result_view import ResultView

if TYPE_CHECKING:
    from quizcoll.tui.services.lab import LabRequest
    from quizcoll.tui.services.memory_lab import MemoryRequest

T = TypeVar("T")

KEYS_HINT = "Enter checks, space reveals"


# The four ratings share one footer entry ("1234 Rate") so the footer fits in 80 columns;
# the help screen and the palette's key panel still list each of them.
RATE = Binding.Group("Rate", compact=True)
# The lab keys under a revealed answer: the key and what it opens (for the help screen).
LAB_KEYS = {
    "open_lab": ("l", "step through this card's collective in the simulation lab"),
    "open_memory_lab": ("m", "open this card's model and setting in the memory lab"),
}
RETRY_HINT = "e or tab: try again · space: show the answer · 1–4: rate"
EMPTY_HINT = "Type an answer, then Enter — or press space to show the answer."


def _sentence(text: str) -> str:
    """``text`` ending as a sentence ("Correct" → "Correct.")."""
    return text if text.endswith((".", "!", "?")) else f"{text}."


class ReviewScreen(QuizScreen):
    """One review or practice session."""

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
        Binding("exclamation_mark", "suspend", "Suspend", key_display="!"),
        # Offered only under a live result a lab can replay (see check_action).
        Binding("l", "open_lab", "Lab"),
        Binding("m", "open_memory_lab", "Memory lab"),
    ]

    def __init__(self, deck: str | None = None, *, practice: bool = False) -> None:
        super().__init__()
        self.deck = deck
        self.practice = practice
        self.session: ReviewSession | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="review-top"):
            yield Static("", id="review-title")
            yield ProgressBar(id="review-progress", show_eta=False)
        with VerticalScroll(id="review-body"):
            yield Markdown("", id="front")
            yield Static("", id="options")
            yield AnswerInput(id="answer")
            yield Static("", id="verdict")
            yield Markdown("", id="solution")
            yield ResultView("", id="result")
            yield Static("", id="done")
        yield RatingBar(id="ratings")
        yield Footer()

    def on_mount(self) -> None:
        for selector in ("#options", "#verdict", "#solution", "#result", "#ratings", "#answer"):
            self.query_one(selector).display = False
        self.query_one("#done", Static).display = False
        self.start()

    # -- state ----------------------------------------------------------------------------

    @property
    def current(self) -> Presented | None:
        return self.session.current if self.session else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Grey out keys that do nothing now (shown dimmed in the footer)."""
        p = self.current
        if action == "rate":
            return True if p is not None and p.answered else None
        if action == "reveal":
            if p is not None and p.revealed and any(map(self._lab_preset, LAB_KEYS)):
                return False  # a lab key takes its place in an 80-column footer
            return True if p is not None and not p.revealed else None
        if action == "undo":
            return True if self.session and self.session.committed else None
        if action == "edit":
            return True if p is not None and p.retryable else None
        if action == "suspend":
            return True if p is not None else None
        if action in LAB_KEYS:
            # Hidden (not just dimmed) where it does not apply: most cards have no lab.
            return self._lab_preset(action) is not None
        return True

    def _lab_preset(self, action: str) -> LabRequest | MemoryRequest | None:
        """What ``action`` (open_lab, open_memory_lab) would open for the revealed card."""
        p = self.current
        if p is None or not p.revealed:
            return None
        links = self.query_one("#result", ResultView).links
        if links is None:
            return None
        return links.sim if action == "open_lab" else links.memory

    def action_open_lab(self) -> None:
        """l: the simulation lab on this card's collective, over the review (escape returns)."""
        preset = self._lab_preset("open_lab")
        if preset is not None:
            self.quiz.open_lab_over(preset)

    def action_open_memory_lab(self) -> None:
        """m: the memory lab on this card's model and setting, over the review."""
        preset = self._lab_preset("open_memory_lab")
        if preset is not None:
            self.quiz.open_lab_over(preset)

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
        items = [
            ("reveal", "Show the answer", "space"),
            ("edit", "Try again", "e or tab"),
            *((f"rate({int(r)})", f"Rate {NAMES[r]}", str(int(r))) for r in Rating),
            ("undo", "Undo the last rating", "u"),
            ("suspend", "Suspend this card", "!"),
            ("open_lab", "Open this collective in the simulation lab", "l"),
            ("open_memory_lab", "Open this model in the memory lab", "m"),
        ]
        out: list[tuple[str, str, Callable[[], object]]] = []
        for action, title, key in items:
            name, _, arg = action.partition("(")
            params = (int(arg.rstrip(")")),) if arg else ()
            if self.check_action(name, params):
                out.append((title, f"Review  [{key}]", partial(self.run_action, action)))
        return out

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
            tz=quiz.env.tz,
        )
        session = self.session

        async def begin() -> None:
            await quiz.db.call(session.load)
            await self._next()

        await self._guarded(begin)

    async def _next(self) -> None:
        assert self.session is not None
        p = await self.quiz.db.call(self.session.advance)
        self._show_card(p)

    def _title(self) -> Text:
        s = self.session
        text = Text()
        text.append("Practice" if self.practice else "Review", style="bold")
        if self.deck:
            text.append(f" · {self.deck}")
        if s and s.current:
            text.append(f" · {s.current.card.deck} · {s.kind_label()}", style="dim")
        if s:
            text.append(f"  {s.done}/{s.total}")
        return text

    def _update_progress(self) -> None:
        s = self.session
        bar = self.query_one("#review-progress", ProgressBar)
        if s:
            bar.update(total=max(s.total, 1), progress=s.done)
        self.query_one("#review-title", Static).update(self._title())

    def _show_card(self, p: Presented | None) -> None:
        self._update_progress()
        answer = self.query_one("#answer", AnswerInput)
        for selector in ("#verdict", "#solution", "#result", "#ratings", "#options"):
            self.query_one(selector).display = False
        self.query_one("#result", ResultView).links = None  # no lab key until it is revealed
        done = self.query_one("#done", Static)
        front = self.query_one("#front", Markdown)
        if p is None:
            front.display = False
            answer.display = False
            done.display = True
            s = self.session
            count = s.done if s else 0
            message = Text()
            message.append("Session done. ", style="bold green")
            message.append(f"{count} rating{'s' if count != 1 else ''} saved.")
            if not count:
                message = Text("Nothing is due now. ", style="bold")
                message.append("Practise (p on the home screen) reviews ahead.", style="")
            message.append("\nescape: home · u: undo the last rating", style="dim")
            done.update(message)
            self.refresh_bindings()
            return
        done.display = False
        front.display = True
        front.update(p.front_markdown())
        options = p.options()
        if options:
            text = Text()
            for i, option in enumerate(options):
                text.append(f" {chr(ord('a') + i)} ", style="bold reverse")
                text.append(f" {option}\n")
            self.query_one("#options", Static).update(text)
            self.query_one("#options").display = True
        answer.value = ""
        answer.disabled = False
        if p.card.type is CardType.BASIC:
            answer.display = False
            self.query_one("#verdict", Static).update(
                Text("Think of the answer, then press space to reveal it.", style="italic")
            )
            self.query_one("#verdict").display = True
            self.query_one("#verdict").set_classes("-hint")
            self.query_one("#review-body").focus()
        else:
            answer.display = True
            # The example matches the card's quantity: a size, a time, a formula in its names.
            dim = answer_dim(p.card, self.quiz.registry)
            answer.placeholder = f"{answer_hint(p.card, dim)} — {KEYS_HINT}"
            answer.focus()
        self.query_one("#review-body", VerticalScroll).scroll_home(animate=False)
        self.refresh_bindings()

    def _verdict_text(self, p: Presented) -> Text:
        """The verdict; while a wrong answer can be retried, without the answer."""
        verdict = p.verdict
        assert verdict is not None
        text = Text()
        if verdict.correct is True:
            text.append("✔ ", style="bold green")
        elif verdict.correct is False:
            text.append("✘ ", style="bold red")
        text.append(_sentence(verdict.feedback))
        if not p.retryable:
            if verdict.feedback != verdict.message:
                text.append(answer_sentence(verdict.exact))
            if verdict.exact and verdict.exact not in verdict.message:
                text.append("\nAnswer: ", style="bold")
                text.append(verdict.exact)
        if p.attempts > 1:
            text.append(f"\nattempt {p.attempts}", style="dim")
        if p.retryable:
            text.append(f"\n{RETRY_HINT}", style="dim")
        return text

    def _show_verdict(
        self, p: Presented, intervals: dict[Rating, str], focus: Rating | None = None
    ) -> None:
        verdict = p.verdict
        assert verdict is not None
        box = self.query_one("#verdict", Static)
        box.set_classes(
            "-right" if verdict.correct else "-wrong" if verdict.correct is False else "-self"
        )
        box.update(self._verdict_text(p))
        box.display = True
        # The answer, its worked solution and the live result wait until it is revealed.
        solution = verdict.solution.strip() if p.revealed else ""
        md = self.query_one("#solution", Markdown)
        md.display = bool(solution)
        md.update(solution)
        run = p.card.answer.computation.run if p.card.answer and p.card.answer.computation else ""
        result = self.query_one("#result", ResultView)
        result.show(p.solution if p.revealed else None, run, self.quiz.registry)
        answer = self.query_one("#answer", AnswerInput)
        answer.disabled = p.revealed  # keeps what was typed on screen; nothing left to try
        ratings = self.query_one("#ratings", RatingBar)
        ratings.display = True
        ratings.show(intervals, verdict.suggested, focus=focus)
        self.refresh_bindings()

    async def _after_answer(self, p: Presented, focus: Rating | None = None) -> None:
        assert self.session is not None
        intervals = await self.quiz.db.call(self.session.preview)
        self._show_verdict(p, intervals, focus)

    # -- events and actions ---------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        p = self.current
        if p is None or event.input.id != "answer":
            return
        if not event.value.strip():
            # Nothing typed is not an attempt: say what to do instead.
            if p.answered:
                self.notify(EMPTY_HINT, timeout=3)
            else:
                box = self.query_one("#verdict", Static)
                box.update(Text(EMPTY_HINT, style="italic"))
                box.set_classes("-hint")
                box.display = True
            return
        self.check(event.value)

    def _show_unreadable(self, p: Presented, message: str) -> None:
        """Text that is not an answer: say where reading failed; no attempt, nothing shown."""
        if p.answered:
            self.notify(message, timeout=5)
            return
        box = self.query_one("#verdict", Static)
        box.update(Text(message, style="italic"))
        box.set_classes("-hint")
        box.display = True

    @work(exclusive=True, group="review")
    async def check(self, text: str) -> None:
        session = self.session
        if session is None or session.current is None:
            return
        p = session.current

        async def step() -> None:
            verdict = await asyncio.to_thread(session.check, text)
            if verdict is not None and verdict.invalid:
                self._show_unreadable(p, verdict.message)
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
        card_id = p.card.id
        intervals = session.current.interval_labels()

        async def step() -> None:
            review = await self.quiz.db.call(session.rate, rating)
            note = f"Saved {card_id}: {NAMES[rating]}"
            if rating in intervals and not self.practice:
                note += f", next in {intervals[rating]}"
            if review.after.leech and not review.before.leech:
                note += " — a leech now, suspended"
            self.notify(note, timeout=3)
            await self._next()

        await self._guarded(step)

    @work(exclusive=True, group="review")
    async def action_undo(self) -> None:
        session = self.session
        if session is None or not session.committed:
            self.notify("Nothing to undo in this session.", timeout=3)
            return

        async def step() -> None:
            p = await self.quiz.db.call(session.undo)
            self._show_card(p)
            self.notify(f"Undone: {p.card.id} is back", timeout=3)
            if p.answered:
                await self._after_answer(p)
                answer = self.query_one("#answer", AnswerInput)
                if p.answers:
                    answer.value = p.answers[-1]

        await self._guarded(step)

    @work(exclusive=True, group="review")
    async def action_suspend(self) -> None:
        session = self.session
        if session is None or session.current is None:
            return

        async def step() -> None:
            card_id = await self.quiz.db.call(session.suspend)
            self.notify(f"Suspended {card_id} (unsuspend it in Browse)", timeout=4)
            await self._next()

        await self._guarded(step)

    def action_edit(self) -> None:
        """Back to the answer box for another attempt, the previous text selected (typing
        replaces it). Focus moves now, not on the next idle, so keys typed right after
        ``e`` land in the box."""
        p = self.current
        answer = self.query_one("#answer", AnswerInput)
        if p is None or not p.retryable or not answer.display:
            return
        answer.disabled = False
        self.set_focus(answer)
        answer.select_all()

    def take_stray_key(self, event: events.Key) -> bool:
        """Type ``event`` into the answer box if it was aimed there; True if it was.

        A key sent right after ``e``/tab (by a fast typist, or a terminal pasting keys)
        was routed to the widget focused before the focus moved, and reaches the app
        unhandled. The box itself stops every key it types, so a printable key that gets
        that far while the box has focus belongs in it.
        """
        answer = self.query_one("#answer", AnswerInput)
        if (
            self.focused is not answer
            or not event.is_printable
            or event.character is None
            or answer.passes(event.character)
        ):
            return False
        selection = answer.selection
        if selection.is_empty:
            answer.insert_text_at_cursor(event.character)
        else:
            answer.replace(event.character, *selection)
        return True

    def action_tab(self) -> None:
        """tab: try again after a wrong answer; otherwise the next field, as everywhere."""
        p = self.current
        if p is not None and p.retryable and self.focused is not self.query_one("#answer"):
            self.action_edit()
        else:
            self.focus_next()

    def action_back(self) -> None:
        self.app.pop_screen()
