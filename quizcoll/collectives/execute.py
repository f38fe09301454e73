"""Run any schedule on real data: the general executor.

Each rank's buffer is a row of ``nblocks`` slots padded to the widest block; a round
gathers every payload first (transfers of a round are simultaneous) and then stores or
combines them with fancy indexing, so a round costs a handful of numpy calls however
many ranks take part. Padding lanes never mix with real elements (the ops are
elementwise) and are dropped when outputs are assembled.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quizcoll.collectives.layout import Layout
from quizcoll.collectives.ops import Op
from quizcoll.collectives.schedule import Schedule


def pack(layout: Layout, inputs: Sequence[np.ndarray], dtype: np.dtype) -> np.ndarray:
    """The padded ``(ranks, nblocks, width)`` buffer holding every rank's input blocks."""
    width = layout.block_max
    buffer = np.zeros((layout.ranks, layout.nblocks, width), dtype=dtype)
    for r, blocks in enumerate(layout.inputs):
        if len(blocks) == 0:
            continue
        sizes = layout.elems[r, blocks]
        data = inputs[r]
        if (sizes == width).all() and _consecutive(blocks):
            buffer[r, blocks[0] : blocks[-1] + 1] = data.reshape(len(blocks), width)
        else:
            buffer[r].reshape(-1)[_positions(blocks, sizes, width)] = data
    return buffer


def unpack(layout: Layout, buffer: np.ndarray, rank: int) -> np.ndarray | None:
    """Rank ``rank``'s result: its output blocks concatenated without padding."""
    blocks = layout.outputs[rank]
    if blocks is None:
        return None
    sizes = layout.elems[rank, blocks]
    width = buffer.shape[2]
    if (sizes == width).all() and _consecutive(blocks):
        return buffer[rank, blocks[0] : blocks[-1] + 1].reshape(-1).copy()
    return buffer[rank].reshape(-1)[_positions(blocks, sizes, width)]


def _consecutive(blocks: np.ndarray) -> bool:
    return bool(len(blocks) == 0 or (np.diff(blocks) == 1).all())


def _positions(blocks: np.ndarray, sizes: np.ndarray, width: int) -> np.ndarray:
    starts = np.repeat(np.asarray(blocks, dtype=np.int64) * width, sizes)
    within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return starts + within


def run_schedule(schedule: Schedule, buffer: np.ndarray, op: Op) -> None:
    """Apply every round of ``schedule`` to ``buffer`` in place."""
    combine = op.ufunc
    with np.errstate(all="ignore"):
        for step in range(schedule.steps):
            rows = schedule.step_rows(step)
            payload = buffer[schedule.src[rows], schedule.src_block[rows]]
            dst, slot = schedule.dst[rows], schedule.dst_block[rows]
            reduce = schedule.reduce[rows]
            if not reduce.any():
                buffer[dst, slot] = payload
                continue
            if not reduce.all():  # a round that stores some blocks and combines others
                buffer[dst[~reduce], slot[~reduce]] = payload[~reduce]
                dst, slot, payload = dst[reduce], slot[reduce], payload[reduce]
            batches = _distinct_batches(dst, slot, buffer.shape[1])
            if len(batches) == 1:  # the usual case: no slot receives twice
                buffer[dst, slot] = combine(buffer[dst, slot], payload, out=payload)
                continue
            for batch in batches:
                d, s = dst[batch], slot[batch]
                buffer[d, s] = combine(buffer[d, s], payload[batch])


def _distinct_batches(dst: np.ndarray, slot: np.ndarray, nblocks: int) -> list[np.ndarray]:
    """Split rows so no batch writes the same slot twice (a root combining N − 1 arrivals
    at once would otherwise keep only one of them)."""
    key = dst * nblocks + slot
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_key)) + 1]
    if len(starts) == len(key):
        return [np.arange(len(key))]
    group_start = np.repeat(starts, np.diff(np.r_[starts, len(key)]))
    occurrence = np.empty(len(key), dtype=np.int64)
    occurrence[order] = np.arange(len(key)) - group_start
    return [np.flatnonzero(occurrence == k) for k in range(int(occurrence.max()) + 1)]
