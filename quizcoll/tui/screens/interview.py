"""The mock interview: pick a script, answer its questions against the clock, see why each
follow-up comes, and get a scorecard with a bar per topic.

Per question: the transition (why this question), the card's front, the answer box (Enter
answers; an empty answer means "I don't know"). An explanation then lists the key points
the answer covered and the model answer; ``r``, ``p``, ``w`` correct the judgement and Enter
accepts it. Numeric, formula and choice answers are graded exactly, as in a review. The
scorecard is saved when the interview ends; ``t`` there makes the weak cards due now (the
rest of their schedule untouched). The timer counts down the script's budget; at zero the
interview ends after the current answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from deck.answers.keypoints import Judgement
from deck.base.errors import DeckError
from deck.interview.engine import InterviewRun, Prompt
from deck.interview.judge import Answered
from quizcoll.interviewing import Interviews
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.interview import (
    InterviewTexts,
    ask_texts,
    judge_prompt,
    scorecard_text,
    verdict_text,
)


class InterviewScreen(QuizScreen):
    """A mock interview: the script list, then the questions, then the scorecard."""

    HELP_NAME = "Interview"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("r", "judge('right')", "Right"),
        Binding("p", "judge('partial')", "Partial"),
        Binding("w", "judge('wrong')", "Wrong"),
        Binding("enter", "accept", "Next", show=False),
        Binding("t", "to_review", "Weak cards to review"),
    ]

    def __init__(
        self,
        script_id: str | None = None,
        seed: int | None = None,
        *,
        scripts: Sequence[Path] | None = None,
    ) -> None:
        super().__init__()
        self.script_id = script_id
        self.seed = seed
        self.script_paths = list(scripts) if scripts else None
        self.interviews: Interviews | None = None
        self.run: InterviewRun | None = None
        self.prompt: Prompt | None = None
        self.texts: InterviewTexts | None = None
        self.answered: Answered | None = None
        self.verdict: Judgement | None = None
        self.state = "loading"  # loading | choosing | asking | judging | done
        self.started_at = None
        self.saved = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading the interviews…", id="iv-top")
        yield OptionList(id="iv-scripts")
        with VerticalScroll(id="iv-body"):
            yield Static("", id="iv-why")
            yield Static("", id="iv-question")
            yield Input(
                placeholder='Your answer; Enter answers (empty: "I don\'t know")', id="iv-answer"
            )
            yield Static("", id="iv-feedback")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#iv-scripts").display = False
        self.query_one("#iv-answer").display = False
        self.set_interval(1.0, self.tick)
        self.load()

    # -- loading and choosing -------------------------------------------------------------

    @work(exclusive=True, group="interview-load")
    async def load(self) -> None:
        from quizcoll.interviewing import load_interviews

        await self.ready()
        collection = self.quiz.collection
        if collection is None:
            return
        self.interviews = await asyncio.to_thread(load_interviews, collection, self.script_paths)
        for problem in self.interviews.problems[:5]:
            self.quiz.report(problem.format(), title="Interview script problem")
        if self.script_id is not None:
            self.begin(self.script_id)
            return
        if not self.interviews.scripts:
            self.query_one("#iv-top", Static).update(
                Text("No interview can run on these cards (escape: back)", style="bold")
            )
            return
        options = self.query_one("#iv-scripts", OptionList)
        options.clear_options()
        for s in self.interviews.scripts:
            line = Text()
            line.append(f"{s.title}\n", style="bold")
            line.append(
                f"  {s.topic} · up to {s.depth()} questions · {s.minutes:g} min", style="dim"
            )
            options.add_option(Option(line, id=s.id))
        options.display = True
        options.highlighted = 0
        options.focus()
        self.state = "choosing"
        self.query_one("#iv-top", Static).update(
            Text("Choose an interview (Enter starts it)", style="bold")
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.begin(event.option.id)

    def begin(self, script_id: str) -> None:
        from quizcoll.interviewing import pick_script, start_run

        assert self.interviews is not None and self.quiz.collection is not None
        env = self.quiz.env
        seed = self.seed if self.seed is not None else env.seeds()
        try:
            script = pick_script(self.interviews, script_id, None, seed)
            self.run = start_run(
                script, seed, self.quiz.collection, lambda: env.clock().timestamp()
            )
        except (DeckError, ValueError) as exc:
            self.quiz.report(str(exc), title="Interview")
            return
        self.started_at = env.clock()
        self.query_one("#iv-scripts").display = False
        self.next_question()

    # -- asking ---------------------------------------------------------------------------

    def next_question(self) -> None:
        assert self.run is not None
        self.prompt = self.run.ask()
        if self.prompt is None:
            self.finish()
            return
        self.texts = ask_texts(self.prompt, self.quiz.registry)
        self.answered = None
        self.verdict = None
        self.state = "asking"
        self.query_one("#iv-why", Static).update(self.texts.why)
        self.query_one("#iv-question", Static).update(self.texts.question)
        self.query_one("#iv-feedback", Static).update("")
        box = self.query_one("#iv-answer", Input)
        box.value = ""
        box.disabled = False
        box.display = True
        box.focus()
        self.tick()

    def tick(self) -> None:
        run = self.run
        if run is None or self.state in ("loading", "choosing"):
            return
        left = run.remaining()
        top = Text()
        top.append(run.script.title, style="bold")
        top.append(
            f"  ·  {int(left // 60)}:{int(left % 60):02d} left",
            style="bold red" if left < 60 else "",
        )
        top.append(
            f"  ·  question {len(run.asked) + (self.state != 'done')}/{run.script.max_questions}"
        )
        top.append(f"  ·  seed {run.seed}", style="dim")
        self.query_one("#iv-top", Static).update(top)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.state != "asking" or self.prompt is None or self.texts is None:
            return
        from deck.interview.judge import judge

        prompt, texts = self.prompt, self.texts
        try:
            answered = await asyncio.to_thread(
                judge, prompt.card, texts.instance, event.value, self.quiz.registry
            )
        except DeckError as exc:
            self.query_one("#iv-feedback", Static).update(
                Text(f"{exc}. Try again.", style="bold red")
            )
            return
        if answered.invalid:
            self.query_one("#iv-feedback", Static).update(
                Text(f"{answered.message} Try again.", style="bold red")
            )
            return
        self.answered = answered
        self.verdict = answered.judgement or Judgement.PARTIAL
        box = self.query_one("#iv-answer", Input)
        box.disabled = True
        self.state = "judging"
        self.set_focus(None)
        self.show_verdict()

    def show_verdict(self) -> None:
        assert self.answered is not None and self.verdict is not None
        feedback = verdict_text(self.answered, self.verdict)
        feedback.append("\n\n")
        feedback.append(judge_prompt(self.answered, self.verdict), style="bold")
        self.query_one("#iv-feedback", Static).update(feedback)

    def action_judge(self, verdict: str) -> None:
        """r / p / w: correct an explanation's judgement (exact grading stays as it is)."""
        if self.state != "judging" or self.answered is None or self.answered.exact:
            return
        self.verdict = Judgement(verdict)
        self.show_verdict()

    def action_accept(self) -> None:
        if self.state != "judging" or self.run is None or self.answered is None:
            return
        self.run.answer(self.answered, self.verdict)
        self.next_question()

    # -- the end --------------------------------------------------------------------------

    def finish(self) -> None:
        assert self.run is not None
        self.state = "done"
        self.query_one("#iv-answer").display = False
        self.query_one("#iv-why", Static).update("")
        self.query_one("#iv-feedback", Static).update("")
        self.query_one("#iv-question", Static).update(scorecard_text(self.run.scorecard(), 60))
        self.tick()
        self.save()

    @work(exclusive=True, group="interview-save")
    async def save(self) -> None:
        from quizcoll.interviewing import save_run

        if self.run is None or self.saved:
            return
        try:
            record = await self.quiz.db.call(save_run, self.run, self.started_at)
        except DeckError as exc:
            self.quiz.report(f"the scorecard is not saved: {exc}", title="Interview")
            return
        self.saved = record is not None
        if record is not None:
            self.notify(f"Scorecard saved ({record.score:g}%).", timeout=3)

    @work(exclusive=True, group="interview-save")
    async def action_to_review(self) -> None:
        """t (on the scorecard): make the weak cards due now."""
        from quizcoll.interviewing import send_to_review

        if self.state != "done" or self.run is None:
            return
        try:
            moved, left = await self.quiz.db.call(send_to_review, self.run, self.quiz.env.clock())
        except DeckError as exc:
            self.quiz.report(str(exc), title="Interview")
            return
        text = f"To review now: {', '.join(moved) or 'none'}"
        if left:
            text += f". Already waiting (new or due): {', '.join(left)}"
        self.notify(text, title="Weak cards", timeout=6)

    def action_back(self) -> None:
        if self.run is not None and self.state in ("asking", "judging"):
            self.run.stop()
            self.finish()  # the scorecard of what was asked, saved
            return
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "judge":
            return self.state == "judging" and self.answered is not None and not self.answered.exact
        if action == "accept":
            return self.state == "judging"
        if action == "to_review":
            return self.state == "done"
        return True
