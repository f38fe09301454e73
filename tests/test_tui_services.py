"""Unit tests of what the TUI screens draw and filter, without running the app."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from rich.console import Console
from tui_support import BASE_CARDS

from deck.answers.checking import Solution
from quizcoll.collection import load
from quizcoll.executables import build_registry
from quizcoll.tui.screens.memory_lab import verdict
from quizcoll.tui.services.browse import filter_rows, rows
from quizcoll.tui.services.memory_lab import MemoryRequest, compute
from quizcoll.tui.widgets.bars import Bar, bar_cells, render_bars
from quizcoll.tui.widgets.result_view import render_result

NOW = datetime(2025, 3, 3, tzinfo=UTC)


def _text(renderable: object) -> str:
    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_browse_query_language() -> None:
    collection, _ = load(BASE_CARDS)
    all_rows = rows(collection.cards, {})

    def ids(query: str) -> list[str]:
        return [r.card.id for r in filter_rows(all_rows, query, NOW)]

    assert ids("type:choice") == ["ring-steps"]
    assert ids("tag:vram deck:memory") == ["fp32-weights-gib", "kv-cache-growth"]
    assert ids("RING deck:collectives type:numeric") == ["ring-reduce-scatter-bytes"]
    assert ids("is:new") == [c.id for c in collection.cards]
    assert ids("is:suspended") == [] and ids("is:due") == []
    assert ids("deck:nope") == []


def test_bars_scale_in_eighths() -> None:
    assert bar_cells(1, 1, 4) == "████"
    assert bar_cells(0.5, 1, 4) == "██"
    assert bar_cells(1, 8 * 4, 4) == "▏"  # one eighth of a cell
    assert bar_cells(0, 1, 4) == "" and bar_cells(1, 0, 4) == ""
    text = render_bars([Bar("a", 2, "2 B"), Bar("bb", 1, "1 B")], 30, limit=4).plain
    assert text.splitlines()[0].startswith("a  ") and "▲ limit" in text


def test_result_view_of_a_collective_shows_every_step() -> None:
    registry = build_registry()
    ex = registry.get("collectives.all_reduce")
    args = ex.bind({"ranks": 4, "size": "1MiB"})
    result = registry.call("collectives.all_reduce", args)
    text = _text(render_result(Solution(1.0, "", result=result, args=args), ex.name, registry, 80))
    assert "6 steps of ring on 4 ranks" in text
    assert "step  6" in text and "max sent so far 1.50 MiB" in text  # 2(N−1)/N · S
    assert text.count("rank ") >= 4


def test_result_view_of_a_memory_estimate_draws_the_breakdown() -> None:
    registry = build_registry()
    ex = registry.get("memory.inference")
    args = ex.bind({"model": "llama-3-8b"})
    result = registry.call("memory.inference", args)
    text = _text(render_result(Solution(1.0, "", result=result, args=args), ex.name, registry, 80))
    for part in ("weights", "KV cache", "activations", "overhead"):
        assert part in text
    assert "14.96 GiB (16.06 GB)" in text  # 8,030,261,248 parameters × 2 bytes


def test_memory_lab_names_the_models_own_context_limit_only_when_memory_allows_more() -> None:
    roomy = compute(MemoryRequest(model="llama-3-8b", gpu="h100-80gb"))
    assert roomy.model_max_context == 8192 < roomy.max_context
    assert "256,278 tokens (the model itself stops at 8,192)" in verdict(roomy).plain
    tight = compute(MemoryRequest(model="llama-2-13b", gpu="rtx-4090"))  # 26 GB of weights
    assert tight.max_context == 0 and "stops at" not in verdict(tight).plain
    short = compute(MemoryRequest(model="llama-3.1-8b", gpu="rtx-4090"))  # trained for 128k
    assert 0 < short.max_context < short.model_max_context == 131072
    assert "stops at" not in verdict(short).plain


def test_session_summary_counts_right_answers_hints_and_new_leeches(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from deck.cards.model import Rating
    from deck.review.scheduler import CardState, Config, Phase, Settings
    from deck.review.store import Store
    from quizcoll.tui.services.env import fixed_seeds
    from quizcoll.tui.services.review import ReviewSession

    collection, registry = load(BASE_CARDS)
    memory = [c for c in collection.cards if c.deck == "memory"]
    lapsing = CardState(
        phase=Phase.REVIEW,
        stability=2.0,
        difficulty=9.0,
        due=NOW - timedelta(days=1),
        last_review=NOW - timedelta(days=3),
        reps=20,
        lapses=7,
    )
    with Store.open(tmp_path / "r.db") as store:
        store.record_review("kv-cache-growth", Rating.GOOD, lapsing, reviewed_at=NOW, deck="memory")
        session = ReviewSession(
            memory, registry, Config(default=Settings(fuzz=False)), lambda: NOW, fixed_seeds(1),
            deck="memory",
        )  # fmt: skip
        session.load(store)
        while (p := session.advance(store)) is not None:
            if p.card.id == "kv-cache-growth":
                session.reveal()
                session.rate(store, Rating.AGAIN)  # the 8th lapse: a leech, suspended
            else:
                session.hint()  # no hint on this card: nothing logged
                session.check("3.73 GiB")
                session.rate(store, Rating.GOOD)
        summary = session.summary(store)
    assert (summary.reviewed, summary.correct, summary.wrong, summary.hinted) == (2, 1, 1, 0)
    assert summary.leeches == ("kv-cache-growth",)
    assert summary.next_due is not None and summary.next_due > NOW
