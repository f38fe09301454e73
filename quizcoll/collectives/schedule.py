"""A schedule: the rounds of a collective algorithm as flat integer arrays.

Each transfer row says: in round ``step``, rank ``src`` sends its block ``src_block`` to
rank ``dst``, which stores it in ``dst_block`` (``reduce`` false) or combines it into that
block with the op (``reduce`` true). Transfers of one round are simultaneous: every
payload is taken before any block of that round is written. A schedule knows blocks, not
bytes; a :class:`~quizcoll.collectives.layout.Layout` gives each block its element count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

INDEX = np.int32  # ranks and block slots: N ≤ 1024, at most 2N slots


class BlockLists(NamedTuple):
    """The block lists of several messages, flat: message ``k`` carries the next
    ``counts[k]`` entries of ``flat`` (so ragged lists need no Python lists)."""

    counts: np.ndarray
    flat: np.ndarray


def spans(start: np.ndarray, stop: np.ndarray) -> BlockLists:
    """Message ``k`` carries blocks ``start[k] … stop[k] − 1``."""
    start = np.asarray(start, dtype=np.int64)
    counts = np.maximum(np.asarray(stop, dtype=np.int64) - start, 0)
    ends = np.cumsum(counts)
    # position within the flat array, shifted so each message starts at its own start
    flat = np.arange(int(ends[-1]) if len(ends) else 0) + np.repeat(start - (ends - counts), counts)
    return BlockLists(counts, flat)


def same_blocks(messages: int, blocks: np.ndarray) -> BlockLists:
    """Every one of ``messages`` messages carries ``blocks``."""
    blocks = np.asarray(blocks, dtype=np.int64)
    return BlockLists(np.full(messages, len(blocks), dtype=np.int64), np.tile(blocks, messages))


def rows_of(blocks: np.ndarray) -> BlockLists:
    """Message ``k`` carries the blocks in row ``k`` of a 2-D array."""
    blocks = np.asarray(blocks, dtype=np.int64)
    return BlockLists(np.full(blocks.shape[0], blocks.shape[1], dtype=np.int64), blocks.ravel())


@dataclass(frozen=True, eq=False)
class Schedule:
    """Rounds of transfers over ``ranks`` ranks, each holding ``nblocks`` block slots."""

    ranks: int
    nblocks: int
    offsets: np.ndarray  # (steps + 1,): rows of round i are offsets[i]:offsets[i + 1]
    src: np.ndarray
    dst: np.ndarray
    src_block: np.ndarray
    dst_block: np.ndarray
    reduce: np.ndarray  # bool

    @property
    def steps(self) -> int:
        """The number of communication rounds."""
        return len(self.offsets) - 1

    @property
    def rows(self) -> int:
        """The number of block transfers over all rounds."""
        return int(self.offsets[-1])

    def step_rows(self, step: int) -> slice:
        """The row range of round ``step``."""
        return slice(int(self.offsets[step]), int(self.offsets[step + 1]))

    def step_of_row(self) -> np.ndarray:
        """The round of every row."""
        return np.repeat(np.arange(self.steps, dtype=np.int64), np.diff(self.offsets))

    # Derived per-row keys are cached on the schedule (itself cached and shared), as int32
    # to keep them small: steps · ranks ≤ 2N · N stays far below 2^31 for N ≤ 1024.

    @cached_property
    def src_key(self) -> np.ndarray:
        """``step · ranks + src`` of every row: a key for per-round, per-rank sums."""
        return _frozen((self.step_of_row() * self.ranks + self.src).astype(INDEX))

    @cached_property
    def dst_key(self) -> np.ndarray:
        """``step · ranks + dst`` of every row."""
        return _frozen((self.step_of_row() * self.ranks + self.dst).astype(INDEX))

    @cached_property
    def message_starts(self) -> np.ndarray:
        """The first row of every message: a run of adjacent rows of one round with the
        same source and destination (what one ``send`` laid out)."""
        starts = np.ones(self.rows, dtype=bool)
        starts[1:] = (self.src_key[1:] != self.src_key[:-1]) | (self.dst[1:] != self.dst[:-1])
        return _frozen(np.flatnonzero(starts).astype(INDEX))

    @cached_property
    def messages_per_step(self) -> np.ndarray:
        """``(steps, ranks)``: messages each rank sends or receives (the larger) per round."""
        size = self.steps * self.ranks
        first = self.message_starts
        sent = np.bincount(self.src_key[first], minlength=size)
        received = np.bincount(self.dst_key[first], minlength=size)
        return _frozen(np.maximum(sent, received).astype(INDEX).reshape(self.steps, self.ranks))


def _frozen(array: np.ndarray) -> np.ndarray:
    """Mark an array read-only: schedules are cached and shared between callers."""
    array.setflags(write=False)
    return array


@dataclass
class ScheduleBuilder:
    """Collects rounds while an algorithm is laid out, then freezes them into a Schedule.

    Rounds come one at a time (:meth:`begin` then :meth:`send`) or, for large regular
    algorithms, many at once as 2-D arrays (:meth:`add_rounds`)."""

    ranks: int
    nblocks: int
    _segments: list[tuple[np.ndarray, ...]] = field(default_factory=list)
    _open: list[tuple[int, int, int, int, bool]] | None = None

    def begin(self) -> ScheduleBuilder:
        """Start a new round (closing the previous one)."""
        self._close()
        self._open = []
        return self

    def send(
        self,
        src: int,
        dst: int,
        blocks: Iterable[int],
        *,
        reduce: bool,
        dst_blocks: Iterable[int] | None = None,
    ) -> None:
        """In the open round, ``src`` sends ``blocks`` to ``dst`` (one message)."""
        assert self._open is not None, "begin() a round first"
        blocks = list(blocks)
        targets = blocks if dst_blocks is None else list(dst_blocks)
        for b, t in zip(blocks, targets, strict=True):
            self._open.append((src, dst, b, t, reduce))

    def add_rounds(
        self,
        src: np.ndarray,
        dst: np.ndarray,
        src_block: np.ndarray,
        dst_block: np.ndarray | None = None,
        *,
        reduce: bool,
    ) -> None:
        """Append rounds given as ``(rounds, rows)`` arrays (broadcastable to one shape):
        row ``i`` of each array is round ``i``."""
        self._close()
        dst_block = src_block if dst_block is None else dst_block
        src, dst, src_block, dst_block = np.broadcast_arrays(
            *(np.asarray(a, dtype=INDEX) for a in (src, dst, src_block, dst_block))
        )
        if src.ndim != 2 or src.size == 0:
            return
        rounds, width = src.shape
        self._segments.append(
            (
                np.full(rounds, width, dtype=np.int64),
                src.ravel(),
                dst.ravel(),
                src_block.ravel(),
                dst_block.ravel(),
                np.full(src.size, reduce, dtype=bool),
            )
        )

    def add_messages(
        self, src: np.ndarray, dst: np.ndarray, blocks: BlockLists, *, reduce: bool
    ) -> None:
        """Append one round of messages: ``src[k]`` sends ``blocks`` of message ``k`` to
        ``dst[k]``; the rows of a message stay adjacent, in message order."""
        counts = blocks.counts
        self.add_round(
            np.repeat(np.asarray(src), counts),
            np.repeat(np.asarray(dst), counts),
            blocks.flat,
            reduce=reduce,
        )

    def add_ragged_rounds(
        self,
        sizes: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        src_block: np.ndarray,
        dst_block: np.ndarray | None = None,
        *,
        reduce: np.ndarray | bool,
    ) -> None:
        """Append rounds of different widths: the rows (1-D arrays) of round ``i`` follow
        those of round ``i − 1``, ``sizes[i]`` of them. Empty rounds are dropped, as an
        empty :meth:`begin` round is."""
        self._close()
        sizes = np.asarray(sizes, dtype=np.int64)
        dst_block = src_block if dst_block is None else dst_block
        total = int(sizes.sum())
        if total == 0:
            return
        self._segments.append(
            (
                sizes[sizes > 0],
                *(np.asarray(a, dtype=INDEX).reshape(total) for a in (src, dst, src_block)),
                np.asarray(dst_block, dtype=INDEX).reshape(total),
                np.broadcast_to(np.asarray(reduce, dtype=bool), (total,)),
            )
        )

    def add_round(
        self,
        src: np.ndarray,
        dst: np.ndarray,
        src_block: np.ndarray,
        dst_block: np.ndarray | None = None,
        *,
        reduce: bool,
    ) -> None:
        """Append one round given as 1-D arrays."""
        dst_block = src_block if dst_block is None else dst_block
        self.add_rounds(
            *(np.asarray(a)[None, :] for a in (src, dst, src_block, dst_block)), reduce=reduce
        )

    def _close(self) -> None:
        if self._open is None:
            return
        rows = self._open
        self._open = None
        if not rows:
            return
        cols = list(zip(*rows, strict=True))
        self._segments.append(
            (
                np.array([len(rows)], dtype=np.int64),
                *(np.array(cols[i], dtype=INDEX) for i in range(4)),
                np.array(cols[4], dtype=bool),
            )
        )

    def build(self) -> Schedule:
        self._close()
        segs = self._segments

        def column(i: int, dtype: type) -> np.ndarray:
            if not segs:
                return np.zeros(0, dtype=dtype)
            return np.concatenate([seg[i] for seg in segs]).astype(dtype, copy=False)

        sizes = column(0, np.int64)
        return Schedule(
            ranks=self.ranks,
            nblocks=self.nblocks,
            offsets=_frozen(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)),
            src=_frozen(column(1, INDEX)),
            dst=_frozen(column(2, INDEX)),
            src_block=_frozen(column(3, INDEX)),
            dst_block=_frozen(column(4, INDEX)),
            reduce=_frozen(column(5, bool)),
        )
