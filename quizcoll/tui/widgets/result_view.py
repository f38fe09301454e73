"""The executable's live result under a checked answer.

A memory result (weights, KV cache, activations, overhead) is drawn as bars; a
collective's per-rank traffic as bars per rank and its trace as one line per step;
any other result as a table of its fields, bytes in both GB and GiB. When a lab can
replay the result, the view names the key that opens it (l or m in the review).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from deck import units
from deck.answers.checking import Solution
from deck.cards.registry import Registry
from quizcoll.tui.widgets.bars import Bar, render_bars

if TYPE_CHECKING:  # the collectives pull in numpy: imported when a result is drawn
    from quizcoll.tui.services.lab import LabRequest
    from quizcoll.tui.services.lab_links import LabLinks
    from quizcoll.tui.services.memory_lab import MemoryRequest

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


def _trace_lines(trace: Sequence[Any], lab: bool = False) -> Text:
    out = Text()
    for i, step in enumerate(list(trace)[:MAX_STEPS_SHOWN]):
        moves = list(step) if isinstance(step, Sequence) else []
        described = ", ".join(_transfer(m) for m in moves[:6])
        more = f" … +{len(moves) - 6}" if len(moves) > 6 else ""
        out.append(f"step {i + 1:>2}  ", style="bold")
        out.append(described + more + "\n")
    if len(trace) > MAX_STEPS_SHOWN:
        more = f"… {len(trace) - MAX_STEPS_SHOWN} more steps"
        out.append(more + (" (open the lab: l)\n" if lab else "\n"), style="dim")
    return out


def _transfer(move: Any) -> str:
    if isinstance(move, Mapping):
        return f"{move.get('src')}→{move.get('dst')}[{move.get('chunk')}]"
    for name in ("src", "dst", "chunk"):
        if not hasattr(move, name):
            return str(move)
    return f"{move.src}→{move.dst}[{move.chunk}]"


def collective_steps(req: LabRequest) -> Text | None:
    """The rounds of the collective ``req`` describes: transfers, bytes, running total."""
    from quizcoll.collectives import CollectiveError
    from quizcoll.tui.services.lab import HIERARCHICAL, layout_only

    try:
        lab = layout_only(req)
    except CollectiveError:
        return None
    where = f"{req.ranks} ranks"
    if req.algorithm == HIERARCHICAL:
        where = f"{req.nodes} nodes × {req.ranks // req.nodes} GPUs"
    out = Text()
    out.append(f"{lab.steps} steps of {req.algorithm} on {where}", style="italic")
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


def memory_hint(req: MemoryRequest) -> Text:
    """What ``m`` opens: the memory lab on this card's model and setting."""
    from quizcoll.tui.services.memory_lab import AUTO

    text = Text(f"m opens the memory lab with {req.model} ({req.dtype}", style="dim")
    if req.kv_dtype != AUTO:
        text.append(f", KV {req.kv_dtype}")
    text.append(f", context {req.context}, batch {req.batch}, {req.gpus} × {req.gpu})")
    return text


def field_label(name: str) -> str:
    """A result field's name as a reader sees it: ``nccl_time_s`` → ``nccl time``,
    ``kv_bytes_per_token`` → ``kv bytes per token`` (the unit is in the value)."""
    words = name.removesuffix("_s").split("_")
    return " ".join(w for w in words if w) or name


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
        table.add_row(field_label(key), shown)
    return table


def render_result(
    solution: Solution,
    run: str,
    registry: Registry | None,
    width: int,
    links: LabLinks | None = None,
) -> RenderableType | None:
    """The richest view of ``solution.result`` we know how to draw; None without a result.

    ``links`` (worked out from ``run`` and the solution when not given) say which lab can
    replay the result: only then are the collective's rounds listed and the lab keys named.
    """
    result = solution.result
    if not result:
        return None
    if links is None:
        from quizcoll.tui.services.lab_links import lab_links

        links = lab_links(run, solution)
    dims: dict[str, units.Dim] = {}
    if registry is not None and run in registry:
        dims = {f.name: f.dimension for f in registry.get(run).fields}
    parts: list[RenderableType] = [Text(f"Live result of {run}", style="bold underline")]
    bars = memory_bars(result)
    if len(bars) >= 2:
        parts.append(render_bars(bars, width))
    if links.memory is not None:
        parts.append(memory_hint(links.memory))
    sent = result.get("bytes_sent")
    if isinstance(sent, Sequence | tuple) or hasattr(sent, "tolist"):
        listed = sent.tolist() if hasattr(sent, "tolist") else list(sent)  # type: ignore[union-attr]
        parts.append(Text("bytes sent per rank", style="italic"))
        parts.append(render_bars(rank_bars(listed), width))
    steps = collective_steps(links.sim) if links.sim is not None else None
    if steps is not None:
        parts.append(steps)
    trace = result.get("trace")
    if isinstance(trace, Sequence) and trace:
        parts.append(Text("trace (src→dst[chunk])", style="italic"))
        parts.append(_trace_lines(trace, lab=links.sim is not None))
    parts.append(field_table(result, dims))
    return Group(*parts)


class ResultView(Static):
    """Shows :func:`render_result` for a card's solution; :attr:`links` says which lab can
    replay what it shows."""

    links: LabLinks | None = None

    def show(self, solution: Solution | None, run: str, registry: Registry | None) -> None:
        renderable = None
        self.links = None
        if solution is not None:
            from quizcoll.tui.services.lab_links import lab_links

            self.links = lab_links(run, solution)
            width = max(40, self.size.width or 76)
            renderable = render_result(solution, run, registry, width, self.links)
        self.display = renderable is not None
        self.update(renderable or "")
