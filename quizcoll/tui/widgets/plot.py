"""A log-log line plot on a character grid: modelled time against message size."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from rich.text import Text

MARKERS = "●◆▲■✚○◇"
COLOURS = ("cyan", "magenta", "yellow", "green", "red", "blue", "white")


def _pos(value: float, lo: float, hi: float, cells: int) -> int:
    if hi <= lo:
        return 0
    frac = (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))
    return max(0, min(cells - 1, round(frac * (cells - 1))))


def render_loglog(
    series: Mapping[str, Sequence[tuple[float, float]]],
    width: int,
    height: int,
    *,
    x_label: str,
    y_label: str,
    x_format: Callable[[float], str],
    y_format: Callable[[float], str],
    marks: Sequence[tuple[float, str]] = (),
) -> Text:
    """Each series as markers on a ``width`` × ``height`` grid; ``marks`` are vertical lines
    at x values with a label (the crossover, the current size)."""
    points = [(x, y) for pts in series.values() for x, y in pts if x > 0 and y > 0]
    if not points:
        return Text("no data to plot", style="dim")
    y_axis_w = 9
    plot_w = max(10, width - y_axis_w - 1)
    plot_h = max(4, height - 3)
    x_lo, x_hi = min(p[0] for p in points), max(p[0] for p in points)
    y_lo, y_hi = min(p[1] for p in points), max(p[1] for p in points)
    grid: list[list[tuple[str, str]]] = [[(" ", "")] * plot_w for _ in range(plot_h)]
    for x, label in marks:
        if x_lo <= x <= x_hi:
            col = _pos(x, x_lo, x_hi, plot_w)
            for row in range(plot_h):
                grid[row][col] = ("┊", "red" if label == "crossover" else "bright_black")
    # Drawn last to first, so the first series (the default algorithm) stays on top.
    for i, (_name, pts) in reversed(list(enumerate(series.items()))):
        marker, colour = MARKERS[i % len(MARKERS)], COLOURS[i % len(COLOURS)]
        for x, y in pts:
            if x <= 0 or y <= 0:
                continue
            col = _pos(x, x_lo, x_hi, plot_w)
            row = plot_h - 1 - _pos(y, y_lo, y_hi, plot_h)
            grid[row][col] = (marker, colour)
    out = Text()
    out.append(f"{y_label}\n", style="bold")
    for row in range(plot_h):
        if row == 0:
            tick = y_format(y_hi)
        elif row == plot_h - 1:
            tick = y_format(y_lo)
        else:
            tick = ""
        out.append(f"{tick:>{y_axis_w}}│", style="dim")
        for glyph, style in grid[row]:
            out.append(glyph, style=style)
        out.append("\n")
    out.append(" " * y_axis_w + "└" + "─" * plot_w + "\n", style="dim")
    left, right = x_format(x_lo), x_format(x_hi)
    gap = max(1, plot_w - len(left) - len(right) - len(x_label) - 2)
    out.append(" " * (y_axis_w + 1) + left + " " * (gap // 2) + x_label, style="dim")
    out.append(" " * (gap - gap // 2) + right + "\n", style="dim")
    for i, name in enumerate(series):
        out.append(f" {MARKERS[i % len(MARKERS)]} ", style=COLOURS[i % len(COLOURS)])
        out.append(name + " ")
    for _x, label in marks:
        out.append(" ┊ ", style="red" if label == "crossover" else "bright_black")
        out.append(label + " ")
    return out
