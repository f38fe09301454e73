"""Pilot tests of the interview screen: choosing a script, right answers going deeper and
wrong ones simpler with the transition shown, correcting a judgement, the timer on a passed
clock, the scorecard with its per-topic bars, saving it, and weak cards sent to review."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.widgets import Input, OptionList

from deck.cards.model import Rating
from deck.interview.engine import instance_seed
from deck.review.scheduler import Config, Scheduler, Settings
from deck.review.store import Store
from quizcoll.collection import load
from quizcoll.tui.app import QuizApp
from quizcoll.tui.commands import QuizCommands
from quizcoll.tui.screens.interview import InterviewScreen
from quizcoll.tui.services.env import AppEnv, fixed_seeds
from tests.test_interview import CARDS, SCRIPTS, _answer_right
from tests.tui_support import SMALL, plain, run_async, settle, wait_until

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def _app(db: Path, clock: Clock) -> QuizApp:
    env = AppEnv(
        db_path=db,
        cards=[CARDS],
        clock=clock,
        seeds=fixed_seeds(9),
        config=Config(default=Settings(fuzz=False)),
        tz=UTC,
    )
    return QuizApp(env)


async def _start(pilot, app: QuizApp, script: str | None = "iv-test") -> InterviewScreen:
    await wait_until(pilot, lambda: app.ready.is_set())
    screen = InterviewScreen(script, 9, scripts=[SCRIPTS])
    await app.push_screen(screen)
    await wait_until(pilot, lambda: screen.state in ("asking", "choosing"))
    return screen


async def _answer(pilot, screen: InterviewScreen, text: str) -> None:
    box = screen.query_one("#iv-answer", Input)
    box.value = text
    box.focus()
    await pilot.press("enter")
    await wait_until(
        pilot,
        lambda: screen.state != "asking" or "Try again" in plain(screen.query_one("#iv-feedback")),
    )


def _text(screen: InterviewScreen, widget: str) -> str:
    return plain(screen.query_one(widget))


@run_async
async def test_right_answers_go_deeper_and_the_scorecard_is_saved(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    clock = Clock()
    app = _app(db, clock)
    collection, registry = load([CARDS])
    ring = collection.by_id()["iv-ring-factor"]
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await _start(pilot, app)
        assert "iv-gather-vs-reduce" in _text(screen, "#iv-question")
        assert "Let's begin." in _text(screen, "#iv-why")
        assert "10:00 left" in _text(screen, "#iv-top")
        clock.now += timedelta(seconds=75)
        screen.tick()
        assert "8:45 left" in _text(screen, "#iv-top")  # the timer runs on the passed clock
        await _answer(pilot, screen, "Gather concatenates; Reduce computes a sum")
        feedback = _text(screen, "#iv-feedback")
        assert "RIGHT" in feedback and "✓ Gather concatenates the inputs unchanged" in feedback
        await pilot.press("enter")
        await settle(pilot)
        assert "Deeper: put a number on a ring." in _text(screen, "#iv-why")
        assert f"iv-ring-factor · seed {instance_seed(9, ring.id)}" in _text(screen, "#iv-question")
        await _answer(pilot, screen, _answer_right(ring, instance_seed(9, ring.id), registry))
        assert "Enter: next question" in _text(screen, "#iv-feedback")
        await pilot.press("w")  # exact grading cannot be corrected
        assert screen.verdict.value == "right"
        await pilot.press("enter")
        await settle(pilot)
        await _answer(pilot, screen, "kv cache")  # self-judged: no key points
        await pilot.press("r", "enter")
        await wait_until(pilot, lambda: screen.saved)
        card = _text(screen, "#iv-question")
        assert "Scorecard: 100%" in card and "collectives" in card and "memory" in card
        assert "█" in card  # the per-topic bars
    with Store.open(db) as store:
        (record,) = store.interviews()
        assert record.interview == "iv-test" and record.score == 100.0
        assert [q["card"] for q in record.document["questions"]] == [
            "iv-gather-vs-reduce",
            "iv-ring-factor",
            "iv-self-judged",
        ]


@run_async
async def test_wrong_answers_go_simpler_and_a_judgement_can_be_corrected(tmp_path: Path) -> None:
    app = _app(tmp_path / "r.db", Clock())
    async with app.run_test(size=SMALL) as pilot:
        screen = await _start(pilot, app)
        await _answer(pilot, screen, "Gather concatenates")  # one of two points: partial
        assert "PARTIAL" in _text(screen, "#iv-feedback")
        await pilot.press("w")  # the learner knows better: wrong
        assert "WRONG (corrected; judged partial)" in _text(screen, "#iv-feedback")
        await pilot.press("enter")
        await settle(pilot)
        assert "Simpler: Gather alone." in _text(screen, "#iv-why")
        assert "iv-gather-only" in _text(screen, "#iv-question")
        await _answer(pilot, screen, "")  # I don't know
        assert "WRONG" in _text(screen, "#iv-feedback") and "I don't know" in _text(
            screen, "#iv-feedback"
        )
        await pilot.press("enter")
        await settle(pilot)
        assert "iv-which-reduces" in _text(screen, "#iv-question")
        await _answer(pilot, screen, "zebra")  # not an answer: asked again
        assert screen.state == "asking" and "Try again" in _text(screen, "#iv-feedback")
        assert screen.run.weak_cards() == ["iv-gather-vs-reduce", "iv-gather-only"]


@run_async
async def test_time_up_ends_after_the_answer_and_weak_cards_go_to_review(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    clock = Clock()
    sched = Scheduler(Settings(fuzz=False))
    with Store.open(db) as store:  # the weak card has a real schedule, due later
        state = sched.review(
            store.state("iv-gather-vs-reduce"), Rating.EASY, NOW, "iv-gather-vs-reduce"
        )
        store.record_review(
            "iv-gather-vs-reduce", Rating.EASY, state, reviewed_at=NOW, deck="collectives"
        )
        before = store.state("iv-gather-vs-reduce")
    app = _app(db, clock)
    async with app.run_test(size=SMALL) as pilot:
        screen = await _start(pilot, app)
        clock.now += timedelta(minutes=11)
        screen.tick()
        assert "0:00 left" in _text(screen, "#iv-top")
        await _answer(pilot, screen, "")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.saved)
        assert "ended: time" in _text(screen, "#iv-question")
        await pilot.press("t")
        await settle(pilot)
    with Store.open(db) as store:
        after = store.state("iv-gather-vs-reduce")
        assert store.review_count() == 1
    assert after.due == clock.now < before.due
    assert (after.stability, after.difficulty, after.reps) == (
        before.stability,
        before.difficulty,
        before.reps,
    )


@run_async
async def test_reachable_from_home_and_the_palette_and_the_script_list(tmp_path: Path) -> None:
    app = _app(tmp_path / "r.db", Clock())
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: app.ready.is_set())
        titles = [t for t, _, _ in QuizCommands(app.screen)._commands()]
        assert "Mock interview" in titles
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, InterviewScreen)
        # The built-in scripts ask cards these fixture cards lack: none can run.
        await wait_until(pilot, lambda: "No interview" in plain(app.screen.query_one("#iv-top")))
        await pilot.press("escape")
        screen = await _start(pilot, app, None)
        options = screen.query_one("#iv-scripts", OptionList)
        assert screen.state == "choosing" and options.option_count == 1
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.state == "asking")
        assert "iv-gather-vs-reduce" in _text(screen, "#iv-question")
        await pilot.press("escape")  # leaving ends the interview: the scorecard of nothing
        await settle(pilot)
        assert screen.state == "done" and "No question was answered" in _text(
            screen, "#iv-question"
        )


@run_async
async def test_the_command_line_opens_the_app_on_the_interview(tmp_path: Path) -> None:
    from quizcoll.tui.interview_app import InterviewApp

    env = AppEnv(
        db_path=tmp_path / "r.db",
        cards=[CARDS],
        clock=Clock(),
        seeds=fixed_seeds(9),
        config=Config(default=Settings(fuzz=False)),
        tz=UTC,
    )
    app = InterviewApp(env, "iv-test", 4, [SCRIPTS])
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, InterviewScreen) and app.screen.state == "asking"
        )
        assert app.screen.run.seed == 4
        assert f"seed {instance_seed(4, 'iv-gather-vs-reduce')}" in plain(
            app.screen.query_one("#iv-question")
        )
