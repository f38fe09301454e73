"""Traffic accounting: the bytes every transfer of a schedule carries, summed per rank.

A transfer carries its source block: ``elems[src, src_block] × itemsize`` bytes. All
counts here come from the schedule's rows, never from a formula.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.layout import Layout
from quizcoll.collectives.schedule import Schedule


def row_bytes(schedule: Schedule, layout: Layout, itemsize: int) -> np.ndarray:
    """Bytes carried by every transfer row."""
    return layout.elems[schedule.src, schedule.src_block] * np.int64(itemsize)


def per_rank(schedule: Schedule, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Total bytes sent and received by every rank over the whole schedule."""
    n = schedule.ranks
    sent = np.bincount(schedule.src, weights=sizes, minlength=n)
    received = np.bincount(schedule.dst, weights=sizes, minlength=n)
    return np.rint(sent).astype(np.int64), np.rint(received).astype(np.int64)


def per_step_rank(schedule: Schedule, values: np.ndarray, by: np.ndarray) -> np.ndarray:
    """``(steps, ranks)`` sums of ``values`` keyed by round and the rank in ``by``."""
    return _per_step(schedule, values, schedule.step_of_row() * schedule.ranks + by)


def per_step_sent(schedule: Schedule, values: np.ndarray) -> np.ndarray:
    """``(steps, ranks)`` sums of ``values`` by round and sending rank."""
    return _per_step(schedule, values, schedule.src_key)


def per_step_received(schedule: Schedule, values: np.ndarray) -> np.ndarray:
    """``(steps, ranks)`` sums of ``values`` by round and receiving rank."""
    return _per_step(schedule, values, schedule.dst_key)


def _per_step(schedule: Schedule, values: np.ndarray, key: np.ndarray) -> np.ndarray:
    n = schedule.ranks
    return np.bincount(key, weights=values, minlength=schedule.steps * n).reshape(schedule.steps, n)


def crosses_nodes(schedule: Schedule, gpus_per_node: int) -> np.ndarray:
    """Whether each transfer goes between two nodes of ``gpus_per_node`` ranks."""
    return (schedule.src // gpus_per_node) != (schedule.dst // gpus_per_node)


def per_rank_by_link(
    schedule: Schedule, sizes: np.ndarray, gpus_per_node: int
) -> tuple[np.ndarray, np.ndarray]:
    """Bytes sent by every rank inside its node and to other nodes."""
    inter = crosses_nodes(schedule, gpus_per_node)
    n = schedule.ranks
    intra_sent = np.bincount(schedule.src[~inter], weights=sizes[~inter], minlength=n)
    inter_sent = np.bincount(schedule.src[inter], weights=sizes[inter], minlength=n)
    return np.rint(intra_sent).astype(np.int64), np.rint(inter_sent).astype(np.int64)
