"""The executable's live result under a checked answer.

A memory result (weights, KV cache, activations, overhead) is drawn as bars; a
collective's per-rank traffic as bars per rank and its trace as one line per step;
any other result as a table of its fields, bytes in both GB and GiB.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from deck import units
from deck.checking import Solution
from deck.registry import Registry
from quizcoll.tui.widgets.bars import Bar, render_bars

MEMORY_PARTS = (
    ("weights_bytes", "weights", "magenta"),
    ("kv_cache_bytes", "KV cache", "cyan"),
    ("activation_bytes", "activations", "yellow"),
    ("overhead_bytes", "overhead", "bright_black"),
)
MAX_STEPS_SHOWN = 12
MAX_RANKS_SHOWN = 16


def memory_bars(result: Mapping[str, Any]) -> list[Bar]:
    """Bars of the memory parts present in ``result`` (bytes)."""
    return [
        Bar(label, float(result[key]), units.format_bytes_both(float(result[key])), style)
        for key, label, style in MEMORY_PARTS
        if isinstance(result.get(key), int | float) and result[key]
    ]


def rank_bars(sent: Sequence[Any]) -> list[Bar]:
    values = [float(v) for v in list(sent)[:MAX_RANKS_SHOWN]]
    return [Bar(f"rank {i}", v, units.format_bytes(v)) for i, v in enumerate(values)]


def _trace_lines(trace: Sequence[Any]) -> Text:
    out = Text()
    for i, step in enumerate(list(trace)[:MAX_STEPS_SHOWN]):
        moves = list(step) if isinstance(step, Sequence) else []
        described = ", ".join(_transfer(m) for m in moves[:6])
        more = f" … +{len(moves) - 6}" if len(moves) > 6 else ""
        out.append(f"step {i + 1:>2}  ", style="bold")
        out.append(described + more + "\n")
    if len(trace) > MAX_STEPS_SHOWN:
        out.append(f"… {len(trace) - MAX_STEPS_SHOWN} more steps (open the lab: l)\n", style="dim")
    return out


def _transfer(move: Any) -> str:
    if isinstance(move, Mapping):
        return f"{move.get('src')}→{move.get('dst')}[{move.get('chunk')}]"
    for name in ("src", "dst", "chunk"):
        if not hasattr(move, name):
            return str(move)
    return f"{move.src}→{move.dst}[{move.chunk}]"


def collective_steps(run: str, args: Mapping[str, Any] | None) -> Text | None:
    """For a ``collectives.<primitive>`` card, its rounds: transfers, bytes, running total."""
    from quizcoll.tui.services.lab import COLLECTIVES, LabRequest, layout_only

    name = run.removeprefix("collectives.")
    if not run.startswith("collectives.") or name not in COLLECTIVES or not args:
        return None
    ranks, size = args.get("ranks"), args.get("size")
    if not isinstance(ranks, int) or not isinstance(size, int | float) or not 1 < ranks <= 64:
        return None
    from quizcoll.collectives import CollectiveError, algorithms

    algorithm = str(args.get("algorithm") or "default")
    if algorithm not in algorithms(name):
        algorithm = algorithms(name)[0]
    dtype = str(args.get("dtype") or "float32")
    try:
        lab = layout_only(LabRequest(name, algorithm, ranks, int(size), dtype=dtype))
    except CollectiveError:
        return None
    out = Text()
    out.append(f"{lab.steps} steps of {algorithm} on {ranks} ranks", style="italic")
    out.append(" (l opens the lab to step through them)\n", style="dim")
    for i in range(min(lab.steps, MAX_STEPS_SHOWN)):
        st = lab.step(i)
        kind = "reduce" if bool(st.reduce.any()) else "copy"
        out.append(f"step {i + 1:>2} ", style="bold")
        out.append(
            f"{len(st):>3} transfers · {units.format_bytes(float(st.bytes.sum())):>11} · {kind}"
            f" · max sent so far {units.format_bytes(float(lab.sent_so_far[i + 1].max()))}\n"
        )
    if lab.steps > MAX_STEPS_SHOWN:
        out.append(f"… {lab.steps - MAX_STEPS_SHOWN} more steps\n", style="dim")
    return out


def field_table(result: Mapping[str, Any], dims: Mapping[str, units.Dim]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for key, value in result.items():
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            continue
        dim = dims.get(key)
        if isinstance(value, str):
            shown = value
        elif dim is units.Dim.BYTES:
            shown = units.format_bytes_both(float(value))
        elif dim is not None:
            shown = units.format_value(float(value), dim)
        else:
            shown = units.format_number(float(value))
        table.add_row(key, shown)
    return table


def render_result(
    solution: Solution, run: str, registry: Registry | None, width: int
) -> RenderableType | None:
    """The richest view of ``solution.result`` we know how to draw; None without a result."""
    result = solution.result
    if not result:
        return None
    dims: dict[str, units.Dim] = {}
    if registry is not None and run in registry:
        dims = {f.name: f.dimension for f in registry.get(run).fields}
    parts: list[RenderableType] = [Text(f"Live result of {run}", style="bold underline")]
    bars = memory_bars(result)
    if len(bars) >= 2:
        parts.append(render_bars(bars, width))
    sent = result.get("bytes_sent")
    if isinstance(sent, Sequence | tuple) or hasattr(sent, "tolist"):
        listed = sent.tolist() if hasattr(sent, "tolist") else list(sent)  # type: ignore[union-attr]
        parts.append(Text("bytes sent per rank", style="italic"))
        parts.append(render_bars(rank_bars(listed), width))
    steps = collective_steps(run, solution.args)
    if steps is not None:
        parts.append(steps)
    trace = result.get("trace")
    if isinstance(trace, Sequence) and trace:
        parts.append(Text("trace (src→dst[chunk])", style="italic"))
        parts.append(_trace_lines(trace))
    parts.append(field_table(result, dims))
    return Group(*parts)


class ResultView(Static):
    """Shows :func:`render_result` for a card's solution."""

    def show(self, solution: Solution | None, run: str, registry: Registry | None) -> None:
        renderable = None
        if solution is not None:
            renderable = render_result(solution, run, registry, max(40, self.size.width or 76))
        self.display = renderable is not None
        self.update(renderable or "")
