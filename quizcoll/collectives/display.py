"""Sizes for the simulator's own messages (``1.50 GiB``): binary units, as its budgets are set.

The simulator stands alone (it imports nothing from the flashcard engine), so it keeps this
one formatter of its own.
"""

from __future__ import annotations


def format_bytes(n: float) -> str:
    """``1610612736`` → ``1.50 GiB``; below 1 KiB, whole bytes (``512 B``)."""
    x, unit = float(n), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(x) < 1024 or unit == "PiB":
            break
        x /= 1024
    return f"{x:.0f} B" if unit == "B" else f"{x:.2f} {unit}"
