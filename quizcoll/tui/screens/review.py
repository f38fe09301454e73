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

from rich.table import Table
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
from quizcoll.tui.screens.confirm import ConfirmScreen
from quizcoll.tui.services.review import Presented, ReviewSession
from quizcoll.tui.widgets.answer_input import PASS_WHEN_EMPTY, AnswerInput
from quizcoll.tui.widgets.rating_bar import NAMES, RatingBar
from quizcoll.tui.widgets.result_view import ResultView
from quizcoll.tui.widgets.session_summary import render_summary

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
# Actions about the card on screen: none applies once the session is done.
_CARD_ACTIONS = frozenset(
    {
        "reveal",
        "rate",
        "edit",
        "hint",
        "suspend",
        "bury",
        "edit_card",
        "open_lab",
        "open_memory_lab",
        "no_lab",
    }
)
RETRY_HINT = "e or tab: try again · space: show the answer · 1–4: rate"
EMPTY_HINT = "Type an answer, then Enter — or press space to show the answer."


def _options_table(options: list[str]) -> Table:
    """The choice options, the letter in its own column so a wrapped option's text lines
    up under its first line, not under its letter."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()
    for i, option in enumerate(options):
        table.add_row(Text(f" {chr(ord('a') + i)} ", style="bold reverse"), option)
    return table


def _pass_keys(p: Presented) -> frozenset[str]:
    """The keys an empty answer box leaves to the screen for this card: ``h`` only where
    the card has a hint and no formula variable starts with an h."""
    variables = [v.name for v in p.card.variables]
    if p.card.hint and not any(name.startswith("h") for name in variables):
        return PASS_WHEN_EMPTY | {"h"}
    return PASS_WHEN_EMPTY


def _sentence(text: str) -> str:
    """``text`` ending as a sentence ("Correct" → "Correct.")."""
    return text if text.endswith((".", "!", "?")) else f"{text}."


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
        with Horizontal(id="review-top"):
            yield Static("", id="review-title")
            yield ProgressBar(id="review-progress", show_eta=False)
        with VerticalScroll(id="review-body"):
            yield Markdown("", id="front")
            yield Static("", id="options")
            yield Static("", id="hint")
            yield AnswerInput(id="answer")
            yield Static("", id="verdict")
            yield Markdown("", id="solution")
            yield ResultView("", id="result")
            yield Static("", id="done")
        yield RatingBar(id="ratings")
        yield Footer()

    def on_mount(self) -> None:
        for selector in (
            "#options",
            "#hint",
            "#verdict",
            "#solution",
            "#result",
            "#ratings",
            "#answer",
        ):
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
        if p is None and self.session is not None and action != "undo" and action in _CARD_ACTIONS:
            return False  # the session is done: its summary has no card to act on
        if action == "rate":
            return True if p is not None and p.answered else None
        if action == "reveal":
            if p is not None and p.revealed and any(map(self._lab_preset, LAB_KEYS)):
                return False  # a lab key takes its place in an 80-column footer
            return True if p is not None and not p.revealed else None
        if action == "undo":
            return True if self.session and self.session.actions else None
        if action == "edit":
            return True if p is not None and p.retryable else None
        if action in ("suspend", "bury", "edit_card"):
            return True if p is not None else None
        if action == "hint":
            # Shown only on a card that has a hint, until its answer is on screen.
            return p is not None and bool(p.card.hint) and not p.revealed
        if action in LAB_KEYS:
            # Hidden (not just dimmed) where it does not apply: most cards have no lab.
            return self._lab_preset(action) is not None
        if action == "no_hint":
            return p is not None and not p.card.hint
        if action == "no_lab":
            wanted = "open_lab" if parameters == ("simulation",) else "open_memory_lab"
            return p is not None and self._lab_preset(wanted) is None
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

    def action_no_lab(self, which: str) -> None:
        """l or m where that lab cannot replay this card: say so instead of doing nothing."""
        p = self.current
        if p is None:
            return
        if not p.revealed:
            self.notify(f"The {which} lab opens under a revealed answer.", timeout=3)
        else:
            self.notify(f"The {which} lab cannot replay this card's answer.", timeout=3)

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
        items = [
            ("reveal", "Show the answer", "space"),
            ("edit", "Try again", "e or tab"),
            *((f"rate({int(r)})", f"Rate {NAMES[r]}", str(int(r))) for r in Rating),
            ("undo", "Undo the last step", "u"),
            ("hint", "Show the hint", "h"),
            ("suspend", "Suspend this card", "!"),
            ("bury", "Bury this card until tomorrow", "-"),
            ("edit_card", "Edit this card in $EDITOR", "ctrl+o"),
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
            tag=self.tag,
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
        await self._show_card(p)

    def _title(self) -> Text:
        s = self.session
        text = Text()
        text.append("Practice" if self.practice else "Review", style="bold")
        if self.deck:
            text.append(f" · {self.deck}")
        if self.tag:
            text.append(f" · tag {self.tag}")
        if s and s.current:
            # the card's deck only where the session mixes decks
            where = "" if self.deck else f" · {s.current.card.deck}"
            text.append(f"{where} · {s.kind_label()}", style="dim")
        if s:
            text.append(f"  {s.done}/{s.total}")
        return text

    def _update_progress(self) -> None:
        s = self.session
        bar = self.query_one("#review-progress", ProgressBar)
        if s:
            bar.update(total=max(s.total, 1), progress=s.done)
        self.query_one("#review-title", Static).update(self._title())

    async def _show_card(self, p: Presented | None) -> None:
        self._update_progress()
        answer = self.query_one("#answer", AnswerInput)
        for selector in ("#verdict", "#solution", "#result", "#ratings", "#options", "#hint"):
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
            await self._show_summary(done)
            return
        done.display = False
        front.display = False  # shown once it holds this card's question, not the last one's
        await front.update(p.front_markdown())
        front.display = True
        options = p.options()
        if options:
            self.query_one("#options", Static).update(_options_table(options))
            self.query_one("#options").display = True
        if p.hinted:
            self._show_hint(p)
        answer.value = ""
        answer.disabled = False
        answer.pass_keys = _pass_keys(p)
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

    async def _show_summary(self, done: Static) -> None:
        """The end of the session: what it did and when the next card is due."""
        assert self.session is not None
        summary = await self.quiz.db.call(self.session.summary)
        env = self.quiz.env
        done.update(render_summary(summary, env.clock(), env.tz, practice=self.practice))
        done.display = True
        self.query_one("#review-body").focus()
        self.refresh_bindings()

    def _show_hint(self, p: Presented) -> None:
        box = self.query_one("#hint", Static)
        text = Text("Hint: ", style="bold")
        text.append(p.hint_text())
        box.update(text)
        box.display = True

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

    async def _show_verdict(
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
        await md.update(solution)  # filled before it is shown: no other card's answer flashes
        md.display = bool(solution)
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
        await self._show_verdict(p, intervals, focus)

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
        self._show_hint(p)
        self.refresh_bindings()

    @work(exclusive=True, group="review")
    async def action_edit_card(self) -> None:
        """ctrl+o: the card's YAML in $EDITOR at its line; on return the file is loaded and
        the card checked again, and it is asked afresh (its schedule is keyed on the id)."""
        from quizcoll.collection import card_file
        from quizcoll.tui.services.editor import reload_card

        session, p = self.session, self.current
        if session is None or p is None:
            return
        card = p.card
        path = card_file(card)
        if not path.is_file():
            self.quiz.report(f"{path}: the card's file is not there to edit", title="Edit")
            return
        status = await self.quiz.edit_file(path, card.location.line)
        if status != 0:
            self.quiz.report(f"the editor exited with status {status}", title="Edit")
        reloaded = await asyncio.to_thread(
            reload_card, path, card.location.path, card.id, self.quiz.registry
        )
        for line in reloaded.problems[:5]:
            self.quiz.report(line, title="Card problem")
        if reloaded.card is None:
            self.quiz.report(
                f"{card.id} is no longer in {card.location.path}; this session keeps the old "
                f"text. Its history stays under {card.id}: `quizcoll rename {card.id} NEW_ID` "
                "carries it to a new id.",
                title="Edit",
            )
            return
        self.quiz.replace_card(reloaded.card)
        fresh = session.replace_card(reloaded.card)
        if fresh is not None and fresh.card is reloaded.card:
            await self._show_card(fresh)
        if not reloaded.problems:
            self.notify(f"Reloaded {card.id}: no problem found", timeout=3)

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
