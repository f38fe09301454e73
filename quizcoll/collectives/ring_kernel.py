"""The vectorised ring: the ring schedule run with two strided slices per round.

Rank r stores its blocks rotated by r: slot j holds block (r + j) mod N. In ring round
s every rank sends the block in the same slot and its successor receives into the same
(other) slot. The buffer is slot-major, ``buf[slot, rank, :]``, so a round over all N
ranks is ``buf[d, 1:] op= buf[s, :-1]`` (one contiguous run) plus the wrap-around
``buf[d, 0] op= buf[s, N−1]``: O(1) numpy calls per round and O(N) per all-reduce, moving exactly the bytes the schedule in :mod:`.schedules.ring` moves, in
the same order (the tests hold both executors to the same results).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from quizcoll.collectives.layout import Layout
from quizcoll.collectives.ops import Op, finish
from quizcoll.collectives.semantics import Collective


def ring_buffer_bytes(collective: Collective, layout: Layout, itemsize: int) -> int:
    """Bytes of the rotated working buffer this kernel allocates."""
    return layout.ranks * layout.nblocks * layout.block_max * itemsize


# Pieces smaller than this are moved between rank-major and slot-major order through
# a cache-sized tiled transpose (scattered 256-byte writes cost per piece, not per byte).
SMALL_PIECE_BYTES = 4096
TILE_BYTES = 1 << 18


def run_ring(
    collective: Collective,
    inputs: Sequence[np.ndarray],
    layout: Layout,
    op: Op,
    dtype: np.dtype,
) -> list[np.ndarray | None]:
    """Outputs of the ring ``all_reduce``, ``reduce_scatter`` or ``all_gather``."""
    n = len(inputs)
    width = layout.block_max
    sizes = layout.elems[0]
    even = bool((sizes == width).all())
    tiled = even and n > 1 and width * dtype.itemsize < SMALL_PIECE_BYTES
    buf = np.empty((n, n, width), dtype=dtype)
    # rank-major staging that becomes the outputs (all_reduce and all_gather)
    out = None if collective is Collective.REDUCE_SCATTER or not even else np.empty_like(buf)
    if collective is Collective.ALL_GATHER:
        np.stack(inputs, out=buf[0])
    elif tiled and out is not None:
        for r in range(n):
            blocks = inputs[r].reshape(n, width)
            out[r, : n - r] = blocks[r:]
            out[r, n - r :] = blocks[:r]
        _transpose(out, buf)
    else:
        for r in range(n):
            blocks = _padded_blocks(inputs[r], sizes, width)
            buf[: n - r, r] = blocks[r:]
            buf[n - r :, r] = blocks[:r]
    with np.errstate(all="ignore"):
        if collective is not Collective.ALL_GATHER:
            combine = op.ufunc
            for s in range(n - 1):
                src, dst = (-1 - s) % n, (-2 - s) % n
                combine(buf[dst, 1:], buf[src, :-1], out=buf[dst, 1:])
                combine(buf[dst, 0], buf[src, n - 1], out=buf[dst, 0])
            buf[0] = finish(op, buf[0], n)
        if collective is Collective.REDUCE_SCATTER:
            return [buf[0, r].copy() for r in range(n)]
        for s in range(n - 1):
            src, dst = (-s) % n, (-1 - s) % n
            buf[dst, 1:] = buf[src, :-1]
            buf[dst, 0] = buf[src, n - 1]
    if out is None:
        return _unrotate(buf, sizes)
    if tiled:
        _transpose(buf, out)  # out[r, j] = block (r + j) mod N of rank r
        row = np.empty((n, width), dtype=dtype)
        for r in range(n):
            row[...] = out[r]
            out[r, r:] = row[: n - r]
            out[r, :r] = row[n - r :]
    else:
        for r in range(n):
            out[r, r:] = buf[: n - r, r]
            out[r, :r] = buf[n - r :, r]
    return list(out.reshape(n, n * width))


def _transpose(src: np.ndarray, dst: np.ndarray) -> None:
    """``dst[j, r] = src[r, j]`` tile by tile, each tile small enough to stay in cache."""
    n = src.shape[0]
    piece = src.shape[2] * src.itemsize
    # at least √N pieces a side, so the loop stays within N tile copies
    tile = min(n, max(1, math.isqrt(TILE_BYTES // max(piece, 1)), math.isqrt(n - 1) + 1))
    for a in range(0, n, tile):
        for b in range(0, n, tile):
            dst[b : b + tile, a : a + tile] = src[a : a + tile, b : b + tile].transpose(1, 0, 2)


def _padded_blocks(data: np.ndarray, sizes: np.ndarray, width: int) -> np.ndarray:
    n = len(sizes)
    if (sizes == width).all():
        return data.reshape(n, width)
    blocks = np.zeros((n, width), dtype=data.dtype)
    wide = int((sizes == width).sum())  # balanced: the wider blocks come first
    blocks[:wide] = data[: wide * width].reshape(wide, width)
    blocks[wide:, : width - 1] = data[wide * width :].reshape(n - wide, width - 1)
    return blocks


def _unrotate(buf: np.ndarray, sizes: np.ndarray) -> list[np.ndarray | None]:
    """Rank-major outputs without padding (blocks of uneven sizes)."""
    n, _, width = buf.shape
    total = int(sizes.sum())
    out = np.empty((n, total), dtype=buf.dtype)
    wide = int((sizes == width).sum())
    ordered = np.empty((n, width), dtype=buf.dtype)
    for r in range(n):
        ordered[r:] = buf[: n - r, r]
        ordered[:r] = buf[n - r :, r]
        out[r, : wide * width] = ordered[:wide].reshape(-1)
        out[r, wide * width :] = ordered[wide:, : width - 1].reshape(-1)
    return list(out)
