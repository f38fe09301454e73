"""Pilot tests of the review's lab keys: under a revealed collectives card, ``l`` opens the
simulation lab on that card's collective; under a memory card naming a catalog model, ``m``
opens the memory lab on its setting; escape comes back to the same unrated card. Where no
lab can replay the answer, neither key is offered nor named."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select, Static
from tui_support import (
    LAB_CARDS,
    SMALL,
    footer_keys,
    footer_overflow,
    make_app,
    plain,
    run_async,
    settle,
)

from deck.review.store import Store
from quizcoll.tui.screens.help import HelpScreen
from quizcoll.tui.screens.home import HomeScreen
from quizcoll.tui.screens.memory_lab import MemoryLabScreen
from quizcoll.tui.screens.review import ReviewScreen
from quizcoll.tui.screens.sim_lab import SimLabScreen
from quizcoll.tui.services.lab import LabRequest
from quizcoll.tui.services.lab_links import memory_request, sim_request
from quizcoll.tui.widgets.step_view import StepView


async def _revealed(pilot, app, card_id: str) -> ReviewScreen:  # type: ignore[no-untyped-def]
    """A review whose first card is ``card_id``, its answer shown."""
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    assert screen.session.current.card.id == card_id
    await pilot.press("space")
    await settle(pilot)
    assert screen.session.current.revealed
    return screen


def _offers(screen: ReviewScreen) -> tuple[bool, bool]:
    return screen.check_action("open_lab", ()), screen.check_action("open_memory_lab", ())


def _help_text(app) -> str:  # type: ignore[no-untyped-def]
    return "".join(plain(s) for s in app.screen.query(Static))


@run_async
async def test_l_opens_the_cards_collective_in_the_lab_and_escape_returns(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, cards=[LAB_CARDS / "collectives.yaml"])
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen)
        card = review.session.current
        n, size = card.instance.values["n"], card.instance.values["size"]
        assert _offers(review) == (False, False)  # nothing revealed yet
        assert not any("Lab" in k for k in footer_keys(app))

        await pilot.press("space")
        await settle(pilot)
        result = plain(review.query_one("#result", Static))
        assert f"{2 * (n - 1)} steps of ring on {n} ranks (l opens the lab" in result
        assert _offers(review) == (True, False)
        assert any("Lab" in k for k in footer_keys(app))
        assert footer_overflow(app) == []
        titles = [title for title, _, _ in review.palette_commands()]
        assert "Open this collective in the simulation lab" in titles
        assert "Open this model in the memory lab" not in titles

        await pilot.press("l")
        await settle(pilot)
        lab_screen = app.screen
        assert isinstance(lab_screen, SimLabScreen)
        assert app.screen_stack[-2] is review  # pushed over the review, not replacing it
        lab = lab_screen.lab
        assert lab is not None
        req = lab.request
        assert (req.collective, req.algorithm, req.ranks, req.size_bytes, req.op) == (
            "all_reduce",
            "ring",
            n,
            size,
            "sum",
        )
        assert lab.steps == 2 * (n - 1) and lab.verified is True
        assert lab_screen.query_one("#lab-ranks", Input).value == str(n)
        assert lab_screen.query_one("#lab-size", Input).value == f"{size // 2**20}MiB"
        assert lab_screen.query_one("#lab-collective", Select).value == "all_reduce"
        assert lab_screen.query_one("#lab-algorithm", Select).value == "ring"
        view = lab_screen.query_one("#lab-steps", StepView)
        assert view.view == 0 and app.focused is view
        assert footer_overflow(app) == []
        status = plain(lab_screen.query_one("#lab-status", Static))
        assert f"all_reduce · ring · {n} ranks" in status

        await pilot.press("right")
        assert view.view == 1
        await pilot.press("right")
        assert view.view == 2

        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is review
        assert review.session.current is card and review.session.committed == []
        assert review.query_one("#ratings").display
        with Store.open(db) as store:
            assert store.reviews() == []

        await pilot.press("3")
        await settle(pilot)
        with Store.open(db) as store:
            [saved] = store.reviews()
            assert (saved.card_id, int(saved.rating)) == ("lab-ring-allreduce-bytes", 3)

        assert _offers(review) == (False, False)  # the session is done
        await pilot.press("u")  # the card is back, its answer shown: l applies again
        await settle(pilot)
        assert review.session.current.card.id == "lab-ring-allreduce-bytes"
        assert _offers(review) == (True, False)

        # home's own lab is a different screen: it keeps its defaults
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("l")
        await settle(pilot)
        assert app.screen.lab.request == LabRequest()


@run_async
async def test_m_opens_the_cards_model_in_the_memory_lab(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    app = make_app(db, cards=[LAB_CARDS / "memory.yaml"])
    async with app.run_test(size=SMALL) as pilot:
        review = await _revealed(pilot, app, "lab-llama-inference")
        card = review.session.current
        b, ctx = card.instance.values["b"], card.instance.values["ctx"]
        assert _offers(review) == (False, True)
        result = plain(review.query_one("#result", Static))
        assert "m opens the memory lab with llama-3-8b (fp16" in result
        assert "l opens" not in result
        assert footer_overflow(app) == []

        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = _help_text(app)
        assert "open this card's model and setting in the memory lab" in text
        assert "simulation lab" not in text.split("Review")[1].split("Simulation lab")[0]
        await pilot.press("escape")
        await pilot.pause()

        await pilot.press("m")
        await settle(pilot)
        lab = app.screen
        assert isinstance(lab, MemoryLabScreen)
        assert app.screen_stack[-2] is review
        res = lab.result
        assert res is not None
        assert (res.request.model, res.request.dtype, res.request.batch) == (
            "llama-3-8b",
            "fp16",
            b,
        )
        assert (res.request.gpu, res.estimate.context) == ("a100-80gb", ctx)
        # the lab's total is the card's answer (same model, setting and overhead)
        assert res.estimate.total_bytes == card.solution.result["total_bytes"]
        assert lab.query_one("#mem-model", Select).value == "llama-3-8b"
        assert lab.query_one("#mem-context", Input).value == str(ctx)
        assert footer_overflow(app) == []

        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is review and review.session.current is card
        await pilot.press("1")
        await settle(pilot)
        with Store.open(db) as store:
            [saved] = store.reviews()
            assert (saved.card_id, int(saved.rating)) == ("lab-llama-inference", 1)


@run_async
async def test_no_lab_key_where_no_lab_can_replay_the_answer(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db", cards=[LAB_CARDS / "no_lab.yaml"])
    async with app.run_test(size=SMALL) as pilot:
        review = await _revealed(pilot, app, "lab-none-crossover")
        for card_id in ("lab-none-crossover", "lab-none-weights"):
            assert review.session.current.card.id == card_id
            assert review.query_one("#result").display  # a live result, just no lab for it
            assert _offers(review) == (False, False)
            result = plain(review.query_one("#result", Static))
            assert "opens the" not in result and "lab" not in result
            assert not any("Lab" in k for k in footer_keys(app))
            titles = [title for title, _, _ in review.palette_commands()]
            assert not any("lab" in t for t in titles)
            await pilot.press("l", "m")
            await settle(pilot)
            assert app.screen is review
            await pilot.press("question_mark")
            await pilot.pause()
            assert "in the memory lab" not in _help_text(app)
            assert "in the simulation lab" not in _help_text(app)
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("3")
            await settle(pilot)
            if card_id == "lab-none-crossover":
                await pilot.press("space")
                await settle(pilot)


def test_lab_requests_from_executable_arguments() -> None:
    args = {"algorithm": "default", "ranks": 8, "size": 2**20, "dtype": "float32", "root": 0}
    req = sim_request("collectives.all_reduce", args, {"algorithm": "ring"})
    assert req is not None and (req.collective, req.algorithm, req.ranks) == (
        "all_reduce",
        "ring",
        8,
    )
    # the default algorithm without a result: the collective's usual one
    assert sim_request("collectives.broadcast", {**args, "root": 3}).algorithm == "binomial"
    assert sim_request("collectives.broadcast", {**args, "root": 3}).root == 3
    assert sim_request("collectives.cost", {**args, "collective": "all_gather"}).collective == (
        "all_gather"
    )
    hier = sim_request("collectives.hierarchical", {"nodes": 2, "gpus_per_node": 4, "size": 4096})
    assert hier is not None and (hier.algorithm, hier.ranks, hier.nodes) == ("hierarchical", 8, 2)
    assert sim_request("collectives.all_reduce", {**args, "ranks": 128}) is None  # lab: ≤ 64
    assert sim_request("collectives.crossover", {"ranks": 8}) is None
    assert sim_request("memory.inference", args) is None

    mem = memory_request(
        "memory.kv_cache", {"model": "llama-3-8b", "dtype": "fp8", "context": 4096}
    )
    assert mem is not None and (mem.kv_dtype, mem.context) == ("fp8", "4096")
    assert memory_request("memory.kv_cache", {"model": None, "layers": 32}) is None
    assert memory_request("memory.gpus_needed", {"params": 7_000_000_000}) is None
    assert memory_request("memory.inference", {"model": "no-such-model"}) is None


def test_the_lab_uses_the_cards_own_latency_and_bandwidth() -> None:
    """Item 8: ddp-bucket-allreduce-time gives α and B; the lab used nvlink's instead."""
    import numpy as np

    from deck.answers.checking import solve
    from deck.cards.instances import draw
    from quizcoll.collection import load
    from quizcoll.tui.services.lab import simulate
    from quizcoll.tui.services.lab_links import lab_links

    collection, registry = load()
    card = collection.by_id()["ddp-bucket-allreduce-time"]
    solution = solve(card, draw(card, 0), registry)
    req = lab_links(card.answer.computation.run, solution).sim
    assert req is not None
    assert (req.latency, req.bandwidth) == (solution.args["latency"], solution.args["bandwidth"])
    lab = simulate(req, np.random.default_rng(0))
    assert abs(lab.time_s - solution.result["time_s"]) <= 1e-12 * solution.result["time_s"]
    assert "α " in req.link_label() and "B " in req.link_label()


def test_formula_answers_in_bold_keep_their_stars() -> None:
    """Item 3: `**{answer}**` made Markdown eat the * of N*B; the answer is a code span."""
    from deck.answers.checking import solve
    from deck.cards.instances import draw
    from quizcoll.collection import load

    collection, registry = load()
    card = collection.by_id()["ddp-buckets-total-time"]
    back = solve(card, draw(card, 0), registry).back
    assert back.startswith("**`2*(N - 1)*(k*a + G/(N*B))`**")
