"""Pilot tests of the two labs: stepping through a ring all-reduce, and a memory breakdown."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select, Static
from tui_support import SMALL, make_app, plain, run_async, settle

from quizcoll.tui.screens.memory_lab import MemoryLabScreen
from quizcoll.tui.screens.sim_lab import SimLabScreen
from quizcoll.tui.widgets.step_view import StepView


@run_async
async def test_step_through_ring_all_reduce(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SimLabScreen)
        screen.query_one("#lab-ranks", Input).value = "4"
        screen.query_one("#lab-size", Input).value = "64KiB"
        screen.action_run()
        await settle(pilot)
        lab = screen.lab
        assert lab is not None and lab.verified is True
        assert (lab.request.algorithm, lab.ranks, lab.steps) == ("ring", 4, 6)
        view = screen.query_one("#lab-steps", StepView)
        assert app.focused is view and view.view == 0

        await pilot.press("right")
        assert view.view == 1
        assert "4 transfer(s), 64.00 KiB on the wire" in plain(view)
        # after reduce-scatter (N−1 = 3 steps) each rank holds one fully reduced block
        await pilot.press("right", "right")
        assert [int((lab.holdings[3, r] == 4).sum()) for r in range(4)] == [1, 1, 1, 1]
        await pilot.press("end")
        assert view.view == 6
        # per-rank traffic of a ring all-reduce: 2(N−1)/N · S
        assert lab.sent_so_far[6].tolist() == [2 * 3 * 64 * 1024 // 4] * 4
        assert (lab.holdings[6] == 4).all()
        await pilot.press("right")  # past the end stays at the end
        assert view.view == 6
        await pilot.press("left", "home")
        assert view.view == 0
        status = plain(screen.query_one("#lab-status", Static))
        assert "✔ verified" in status and "busbw" in status


@run_async
async def test_lab_reports_bad_input_and_keeps_running(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#lab-collective", Select).value = "reduce_scatter"
        await pilot.pause()
        assert screen.query_one("#lab-algorithm", Select).value == "ring"
        screen.query_one("#lab-size", Input).value = "12 parsecs"
        screen.action_run()
        await settle(pilot)
        assert any("size" in n.message for n in app._notifications)
        screen.query_one("#lab-size", Input).value = "96KiB"
        screen.query_one("#lab-ranks", Input).value = "3"
        screen.action_run()
        await settle(pilot)
        assert screen.lab.request.collective == "reduce_scatter"
        assert screen.lab.sent_so_far[-1].tolist() == [2 * 32 * 1024] * 3  # (N−1)/N · S


@run_async
async def test_memory_breakdown(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryLabScreen)
        result = screen.result
        assert result is not None and result.fits
        assert result.estimate.parameters == 8_030_261_248  # Llama-3-8B, exact
        # memory alone would allow far more than the 8,192 tokens Llama-3-8B was trained for
        assert result.max_context > result.model_max_context == 8192
        status = plain(screen.query_one("#mem-status", Static))
        assert f"{result.max_context:,} tokens (the model itself stops at 8,192)" in status
        screen.query_one("#mem-model", Select).value = "llama-3-70b"
        screen.query_one("#mem-context", Input).value = "32k"
        screen.query_one("#mem-gpus", Input).value = "2"
        screen.action_compute()
        await settle(pilot)
        result = screen.result
        assert result.estimate.context == 32768
        assert not result.fits and result.gpus_needed == 3
        assert 0 < result.max_context < 32768
        status = plain(screen.query_one("#mem-status", Static))
        assert f"{result.max_context:,} tokens (the model itself stops at 8,192)" in status
        assert "does not fit" in status and "needs 3 × NVIDIA H100 80GB" in status
        bars = plain(screen.query_one("#mem-bars", Static))
        assert "KV cache" in bars and "GiB" in bars and "GB)" in bars


@run_async
async def test_memory_group_size_changes_the_weights_bar(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryLabScreen)
        group = screen.query_one("#mem-group", Input)
        assert group.disabled and group.value == "128"  # bf16 has no groups

        def weights_bar() -> str:
            bars = plain(screen.query_one("#mem-bars", Static))
            return next(line for line in bars.splitlines() if "weights" in line)

        screen.query_one("#mem-dtype", Select).value = "gptq"
        await settle(pilot)
        assert not group.disabled
        weights = {128: screen.result.estimate.weights_bytes}
        bars = {128: weights_bar()}
        for g in (64, 32):
            group.value = str(g)
            await pilot.click("#mem-group")
            await pilot.press("enter")
            await settle(pilot)
            assert screen.result.request.group_size == g
            weights[g] = screen.result.estimate.weights_bytes
            bars[g] = weights_bar()
        # smaller groups carry more fp16 scales and packed zeros
        assert weights[32] > weights[64] > weights[128]
        assert len(set(bars.values())) == 3
        assert "(group size 32)" in plain(screen.query_one("#mem-status", Static))

        for bad in ("4", "5000", ""):
            group.value = bad
            screen.action_compute()
            await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert "group size must be between 8 and 4096, got 4" in messages
        assert "group size must be between 8 and 4096, got 5000" in messages
        assert "group size: expected a whole number, got ''" in messages
        assert screen.result.request.group_size == 32 and weights_bar() == bars[32]

        # other formats ignore the field, whatever it holds
        screen.query_one("#mem-dtype", Select).value = "int4"
        await settle(pilot)
        assert group.disabled
        assert screen.result.request.dtype == "int4"  # computed although the field holds ""
        screen.query_one("#mem-dtype", Select).value = "awq"
        group.value = "64"
        await settle(pilot)
        screen.action_compute()
        await settle(pilot)
        assert screen.result.estimate.weights_bytes != weights[64]  # AWQ's layout differs
        assert screen.result.request.group_size == 64


@run_async
async def test_hierarchical_all_reduce_in_the_lab(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        nodes = screen.query_one("#lab-nodes", Input)
        assert nodes.disabled  # ring: no nodes
        screen.query_one("#lab-algorithm", Select).value = "hierarchical"
        await pilot.pause()
        assert not nodes.disabled
        screen.query_one("#lab-ranks", Input).value = "8"
        nodes.value = "3"
        screen.action_run()
        await settle(pilot)
        assert any("does not divide the 8 ranks" in n.message for n in app._notifications)
        nodes.value = "2"
        screen.query_one("#lab-size", Input).value = "64KiB"
        screen.action_run()
        await settle(pilot)
        lab = screen.lab
        assert lab is not None and lab.verified is True
        assert (lab.request.algorithm, lab.request.nodes, lab.ranks) == ("hierarchical", 2, 8)
        assert lab.steps == 2 * (4 - 1) + 2 * (2 - 1)
        # inter-node bytes per GPU: 2(b−1)/(ab)·S = 2·1/8 · 64 KiB = 16 KiB
        assert "inter-node bytes/GPU 16.00 KiB (2(b−1)/(ab)·S = 16.00 KiB)" in lab.crossover_note
        assert "hierarchical" in lab.sweep and "ring" in lab.sweep
        assert (lab.holdings[-1] == 8).all()
        status = plain(screen.query_one("#lab-status", Static))
        assert "8 ranks (2 nodes)" in status and "✔ verified" in status
        assert "(nvlink/infiniband)" in status
        assert "2(b−1)/(ab)·S" in plain(screen.query_one("#lab-plot", Static))
        screen.query_one("#lab-algorithm", Select).value = "ring"
        await pilot.pause()
        assert nodes.disabled


@run_async
async def test_a_real_run_on_gloo_beside_the_model(tmp_path: Path) -> None:
    """``g`` runs the lab's collective on torch.distributed (gloo) with the simulation's
    inputs: measured time and bandwidths beside the model's, and the outputs compared."""
    import pytest

    pytest.importorskip("torch.distributed")
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SimLabScreen)
        screen.query_one("#lab-ranks", Input).value = "2"
        screen.query_one("#lab-size", Input).value = "64KiB"
        screen.action_run()
        await settle(pilot)
        screen.action_real_run()
        await app.workers.wait_for_complete()
        await settle(pilot)
        shown = plain(screen.query_one("#lab-real", Static))
        assert "measured on gloo" in shown and "(model " in shown, shown
        assert "✔ outputs equal the simulation's" in shown


@run_async
async def test_a_real_run_refuses_more_ranks_than_the_lab_starts(tmp_path: Path) -> None:
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SimLabScreen)
        screen.query_one("#lab-ranks", Input).value = "32"
        screen.action_run()
        await settle(pilot)
        screen.action_real_run()
        await app.workers.wait_for_complete()
        await settle(pilot)
        shown = plain(screen.query_one("#lab-real", Static))
        assert "at most 16, got 32" in shown
