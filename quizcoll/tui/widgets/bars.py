"""Horizontal bar charts as Rich text: a memory breakdown, bytes per rank."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

BLOCKS = " ▏▎▍▌▋▊▉█"


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str  # the value as people read it
    style: str = "cyan"


def bar_cells(value: float, scale: float, width: int) -> str:
    """A bar of ``value`` on ``width`` cells where ``scale`` fills them, in eighths."""
    if scale <= 0 or value <= 0 or width <= 0:
        return ""
    eighths = round(min(value / scale, 1.0) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (BLOCKS[part] if part else "")


def render_bars(
    bars: Sequence[Bar], width: int, *, scale: float | None = None, limit: float | None = None
) -> Text:
    """One line per bar: label, bar, value. ``limit`` draws a marker (a GPU's memory)."""
    if not bars:
        return Text("")
    label_w = max(len(b.label) for b in bars)
    value_w = max(len(b.text) for b in bars)
    bar_w = max(8, width - label_w - value_w - 4)
    top = scale or max([b.value for b in bars] + ([limit] if limit else []))
    out = Text()
    for i, b in enumerate(bars):
        if i:
            out.append("\n")
        out.append(f"{b.label:<{label_w}} ", style="bold")
        cells = bar_cells(b.value, top, bar_w)
        out.append(cells, style=b.style)
        out.append(" " * (bar_w - len(cells)))
        out.append(f" {b.text:>{value_w}}")
    if limit:
        mark = min(bar_w - 1, round(limit / top * bar_w) - 1) if top else 0
        out.append("\n" + " " * (label_w + 1 + max(mark, 0)) + "▲ ", style="red")
        out.append("limit", style="red")
    return out


COLUMN_EIGHTHS = " ▁▂▃▄▅▆▇█"


def render_columns(
    values: Sequence[int], labels: Sequence[str], height: int, *, style: str = "cyan"
) -> Text:
    """A column chart, one column per value (two cells wide), ``height`` rows tall,
    with the maximum on the left and the first and last labels underneath."""
    out = Text()
    top = max(values) if values else 0
    axis_w = max(len(str(top)), 1)
    for row in range(height, 0, -1):
        tick = str(top) if row == height and top else ("0" if row == 1 else "")
        out.append(f"{tick:>{axis_w}}│", style="dim")
        for v in values:
            level = v / top * height if top else 0.0
            fill = max(0.0, min(1.0, level - (row - 1)))
            glyph = COLUMN_EIGHTHS[round(fill * 8)]
            if v and row == 1 and glyph == " ":
                glyph = "▁"
            out.append(glyph * 2, style=style)
        out.append("\n")
    out.append(" " * axis_w + "└" + "─" * (2 * len(values)) + "\n", style="dim")
    if labels:
        first, last = labels[0], labels[-1]
        gap = max(1, 2 * len(values) - len(first) - len(last))
        out.append(" " * (axis_w + 1) + first + " " * gap + last, style="dim")
    return out
