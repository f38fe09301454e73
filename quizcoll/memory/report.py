"""Plain-text rendering for the memory commands: every size in bytes, GB and GiB, with bars."""

from __future__ import annotations

from collections.abc import Sequence

BAR_WIDTH = 28


def bytes_three_ways(n: float) -> str:
    """``14,000,000,000 B = 14.00 GB = 13.04 GiB``: never a bare "G"."""
    return f"{round(n):,} B = {n / 1e9:,.2f} GB = {n / 2**30:,.2f} GiB"


def bar(value: float, largest: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of ``value`` against ``largest``; any non-zero value shows a sliver."""
    if largest <= 0 or value <= 0:
        return " " * width
    filled = min(width, round(width * value / largest))
    if filled == 0:
        return "▏" + " " * (width - 1)
    return "█" * filled + " " * (width - filled)


def byte_table(rows: Sequence[tuple[str, float | None]], total_label: str | None = None) -> str:
    """Rows of (label, bytes) with a bar each and columns in bytes, GB and GiB.

    A None value prints as "n/a". ``total_label`` adds a final row summing the others.
    """
    known = [v for _, v in rows if v is not None]
    total = sum(known)
    largest = total if total_label else max(known, default=0)
    lines = [f"  {'':14} {'':{BAR_WIDTH}} {'bytes':>20} {'GB':>10} {'GiB':>10}"]
    label_width = 14
    for label, value in rows:
        if value is None:
            lines.append(f"  {label:{label_width}} {'':{BAR_WIDTH}} {'n/a':>20}")
            continue
        lines.append(_row(label, value, bar(value, largest), label_width))
    if total_label:
        lines.append(_row(total_label, total, "─" * BAR_WIDTH, label_width))
    return "\n".join(lines)


def _row(label: str, value: float, drawn: str, label_width: int) -> str:
    return (
        f"  {label:{label_width}} {drawn} {round(value):>20,} "
        f"{value / 1e9:>10,.2f} {value / 2**30:>10,.2f}"
    )


def count_table(rows: Sequence[tuple[str, int]], total_label: str = "total") -> str:
    """Rows of (label, count) with a bar each and the share of the total."""
    total = sum(v for _, v in rows)
    lines = []
    for label, value in rows:
        share = 100 * value / total if total else 0.0
        lines.append(f"  {label:14} {bar(value, total)} {value:>20,} {share:>6.2f} %")
    lines.append(f"  {total_label:14} {'─' * BAR_WIDTH} {total:>20,}")
    return "\n".join(lines)
