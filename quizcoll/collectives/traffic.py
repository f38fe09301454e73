"""Traffic of a schedule's rows: the bytes every transfer carries, summed per round and
rank for the trace.

A transfer carries its source block: ``elems[src, src_block] × itemsize`` bytes. These
sums read the laid-out rows (bounded sizes); :mod:`.counting` gets the same totals from
the schedule's structure at any size.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.layout import Layout
from quizcoll.collectives.schedule import Schedule


def row_bytes(schedule: Schedule, layout: Layout, itemsize: int) -> np.ndarray:
    """Bytes carried by every transfer row."""
    return layout.elems[schedule.src, schedule.src_block] * np.int64(itemsize)


def per_step_sent(schedule: Schedule, values: np.ndarray) -> np.ndarray:
    """``(steps, ranks)`` sums of ``values`` by round and sending rank."""
    return _per_step(schedule, values, schedule.src_key)


def per_step_received(schedule: Schedule, values: np.ndarray) -> np.ndarray:
    """``(steps, ranks)`` sums of ``values`` by round and receiving rank."""
    return _per_step(schedule, values, schedule.dst_key)


def _per_step(schedule: Schedule, values: np.ndarray, key: np.ndarray) -> np.ndarray:
    n = schedule.ranks
    return np.bincount(key, weights=values, minlength=schedule.steps * n).reshape(schedule.steps, n)
