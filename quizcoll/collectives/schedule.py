"""A schedule: the rounds of a collective algorithm as flat integer arrays (one row per
block transfer), for the executor and the trace.

Each transfer row says: in round ``step``, rank ``src`` sends its block ``src_block`` to
rank ``dst``, which stores it in ``dst_block`` (``reduce`` false) or combines it into that
block with the op (``reduce`` true). Transfers of one round are simultaneous: every
payload is taken before any block of that round is written. A schedule knows blocks, not
bytes; a :class:`~quizcoll.collectives.layout.Layout` gives each block its element count.
Schedules are laid out from an algorithm's phases by
:func:`quizcoll.collectives.structure.expand`; a ring over N ranks has 2(N − 1)·N rows,
so rows exist only at bounded sizes (counting at any size reads the phases).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

INDEX = np.int32  # ranks and block slots: N ≤ 131,072, at most 2N slots


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
    # to keep them small when steps · ranks fits (always, for the row counts we lay out).

    @property
    def _key_type(self) -> type:
        return INDEX if self.steps * self.ranks < 2**31 else np.int64

    @cached_property
    def src_key(self) -> np.ndarray:
        """``step · ranks + src`` of every row: a key for per-round, per-rank sums."""
        return frozen((self.step_of_row() * self.ranks + self.src).astype(self._key_type))

    @cached_property
    def dst_key(self) -> np.ndarray:
        """``step · ranks + dst`` of every row."""
        return frozen((self.step_of_row() * self.ranks + self.dst).astype(self._key_type))

    @cached_property
    def message_starts(self) -> np.ndarray:
        """The first row of every message: a run of adjacent rows of one round with the
        same source and destination (what one ``send`` laid out)."""
        starts = np.ones(self.rows, dtype=bool)
        starts[1:] = (self.src_key[1:] != self.src_key[:-1]) | (self.dst[1:] != self.dst[:-1])
        return frozen(np.flatnonzero(starts).astype(INDEX))

    @cached_property
    def messages_per_step(self) -> np.ndarray:
        """``(steps, ranks)``: messages each rank sends or receives (the larger) per round."""
        size = self.steps * self.ranks
        first = self.message_starts
        sent = np.bincount(self.src_key[first], minlength=size)
        received = np.bincount(self.dst_key[first], minlength=size)
        return frozen(np.maximum(sent, received).astype(INDEX).reshape(self.steps, self.ranks))


def frozen(array: np.ndarray) -> np.ndarray:
    """Mark an array read-only: schedules are cached and shared between callers."""
    array.setflags(write=False)
    return array
