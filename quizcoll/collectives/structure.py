"""A schedule's structure: its rounds as a few phases, small enough for any rank count.

Algorithms are laid out as phases, not as transfer rows, so a 131,072-rank ring
all-reduce (2(N − 1)·N = 34 billion block transfers) is two arrays of N numbers:

- :class:`MessageRounds` — explicit point-to-point messages, each carrying up to two
  spans of the sender's block slots (trees, direct, recursive doubling and halving,
  double binary tree): at most O(N log N) messages.
- :class:`RingRounds` — the L − 1 rounds of one or more rings side by side
  (reduce-scatter or all-gather): the ring members and each member's block group.
- :class:`PairwiseRounds` — the N − 1 rounds of the pairwise all-to-all.

:func:`expand` turns a structure into the :class:`~.schedule.Schedule` rows that the
executor runs and the trace shows (bounded sizes); :mod:`.counting` counts traffic and
prices rounds from the phases directly. Both read the same phases, so the rows and the
counts describe one algorithm (the tests hold them to the same numbers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from quizcoll.collectives.schedule import INDEX, Schedule, frozen, spans


class Spans(NamedTuple):
    """The blocks of several messages: message ``k`` carries slots ``lo[k] … hi[k] − 1``
    and then ``lo2[k] … hi2[k] − 1`` (the second span is empty where ``lo2 ≥ hi2``)."""

    lo: np.ndarray
    hi: np.ndarray
    lo2: np.ndarray
    hi2: np.ndarray

    @classmethod
    def one(cls, lo: np.ndarray, hi: np.ndarray) -> Spans:
        """One span per message."""
        lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=np.int64), np.asarray(hi, np.int64))
        empty = np.zeros(len(lo), dtype=np.int64)
        return cls(lo, hi, empty, empty)

    @classmethod
    def whole(cls, messages: int, nblocks: int) -> Spans:
        """Every message carries every slot ``0 … nblocks − 1``."""
        return cls.one(np.zeros(messages, dtype=np.int64), np.full(messages, nblocks))

    @classmethod
    def single(cls, blocks: np.ndarray) -> Spans:
        """Message ``k`` carries the one slot ``blocks[k]``."""
        blocks = np.asarray(blocks, dtype=np.int64)
        return cls.one(blocks, blocks + 1)

    @classmethod
    def all_but(cls, blocks: np.ndarray, nblocks: int) -> Spans:
        """Message ``k`` carries every slot but ``blocks[k]``, in ascending order."""
        blocks = np.asarray(blocks, dtype=np.int64)
        return cls(np.zeros_like(blocks), blocks, blocks + 1, np.full_like(blocks, nblocks))

    @classmethod
    def rotated(cls, lo: np.ndarray, hi: np.ndarray, shift: int, nblocks: int) -> Spans:
        """Message ``k`` carries ``(x + shift) mod nblocks`` for ``x = lo[k] … hi[k] − 1``,
        in that order (``0 ≤ lo ≤ hi ≤ nblocks``): one span, or two where it wraps."""
        a = np.asarray(lo, dtype=np.int64) + shift
        b = np.asarray(hi, dtype=np.int64) + shift
        wrapped = a >= nblocks  # the whole span lies past the end
        first_lo = np.where(wrapped, a - nblocks, a)
        first_hi = np.where(wrapped, b - nblocks, np.minimum(b, nblocks))
        second_hi = np.where(wrapped, 0, np.maximum(b - nblocks, 0))
        return cls(first_lo, first_hi, np.zeros_like(a), second_hi)

    @property
    def counts(self) -> np.ndarray:
        """Blocks per message."""
        return np.maximum(self.hi - self.lo, 0) + np.maximum(self.hi2 - self.lo2, 0)

    def take(self, keep: np.ndarray) -> Spans:
        return Spans(*(a[keep] for a in self))

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """``(counts, blocks)``: the slots of all messages, message after message."""
        starts = np.stack([self.lo, self.lo2], axis=1).ravel()
        stops = np.stack([self.hi, np.maximum(self.hi2, self.lo2)], axis=1).ravel()
        _, blocks = spans(starts, stops)
        return self.counts, blocks


@dataclass(frozen=True, eq=False)
class MessageRounds:
    """Rounds of messages: round ``i`` is messages ``offsets[i] … offsets[i + 1] − 1``.
    Every message carries at least one block; every round has at least one message."""

    offsets: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    blocks: Spans
    reduce: np.ndarray  # bool per message: combined into the receiver's blocks, or stored

    @property
    def rounds(self) -> int:
        return len(self.offsets) - 1

    @property
    def messages(self) -> int:
        return len(self.src)

    def round_of_message(self) -> np.ndarray:
        return np.repeat(np.arange(self.rounds, dtype=np.int64), np.diff(self.offsets))

    def rows_per_round(self) -> np.ndarray:
        counts = self.blocks.counts
        return np.add.reduceat(counts, self.offsets[:-1]) if self.rounds else counts[:0]


@dataclass(frozen=True, eq=False)
class RingRounds:
    """``L − 1`` rounds of ``rings.shape[0]`` rings of ``L`` members side by side.

    Member ``p`` of ring ``i`` is rank ``rings[i, p]`` and owns block group
    ``groups[i, p]`` (``groups`` may have one row for all rings). Reduce-scatter
    (``reduce``): in round ``s`` member ``p`` sends group ``(p − 1 − s) mod L`` to member
    ``p + 1``, which combines it, so member ``p`` ends with group ``p`` fully reduced.
    All-gather: member ``p`` forwards group ``(p − s) mod L``. A rank is a member of at
    most one ring of a phase."""

    rings: np.ndarray  # (count, L)
    groups: np.ndarray  # (count or 1, L, width)
    reduce: bool

    @property
    def length(self) -> int:
        return int(self.rings.shape[1])

    @property
    def lag(self) -> int:
        """Member ``p`` sends group ``(p − lag − s) mod L`` in round ``s``."""
        return 1 if self.reduce else 0

    @property
    def rounds(self) -> int:
        return max(self.length - 1, 0)

    @property
    def rows_per_round(self) -> int:
        return int(self.rings.size * self.groups.shape[-1])


@dataclass(frozen=True, eq=False)
class PairwiseRounds:
    """The pairwise all-to-all over ``ranks`` ranks: in round ``s = 1 … N − 1`` rank ``r``
    sends its slot ``(r + s) mod N`` to rank ``(r + s) mod N``, landing in slot ``N + r``."""

    ranks: int

    @property
    def rounds(self) -> int:
        return max(self.ranks - 1, 0)


Phase = MessageRounds | RingRounds | PairwiseRounds


@dataclass(frozen=True, eq=False)
class Structure:
    """An algorithm for ``ranks`` ranks with ``nblocks`` block slots each, as phases."""

    ranks: int
    nblocks: int
    phases: tuple[Phase, ...]

    @cached_property
    def steps(self) -> int:
        """Communication rounds."""
        return sum(phase.rounds for phase in self.phases)

    @cached_property
    def rows_per_round(self) -> np.ndarray:
        """Block transfers of every round, without laying the rows out."""
        parts = []
        for phase in self.phases:
            if isinstance(phase, MessageRounds):
                parts.append(phase.rows_per_round())
            elif isinstance(phase, RingRounds):
                parts.append(np.full(phase.rounds, phase.rows_per_round, dtype=np.int64))
            else:
                parts.append(np.full(phase.rounds, phase.ranks, dtype=np.int64))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    @property
    def rows(self) -> int:
        """Block transfers over all rounds (what :func:`expand` would lay out)."""
        return int(self.rows_per_round.sum())


@dataclass
class StructureBuilder:
    """Collects the phases of an algorithm while it is laid out."""

    ranks: int
    nblocks: int
    _phases: list[Phase] = field(default_factory=list)
    _pending: list[tuple[np.ndarray, ...]] = field(default_factory=list)

    def add_messages(
        self, src: np.ndarray, dst: np.ndarray, blocks: Spans, *, reduce: bool
    ) -> None:
        """Append one round: ``src[k]`` sends the blocks of message ``k`` to ``dst[k]``."""
        src = np.asarray(src, dtype=np.int64)
        self.add_message_rounds(np.zeros(len(src), dtype=np.int64), src, dst, blocks, reduce)

    def add_message_rounds(
        self,
        rounds: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        blocks: Spans,
        reduce: np.ndarray | bool,
    ) -> None:
        """Append rounds of messages: message ``k`` belongs to new round ``rounds[k]``
        (non-decreasing, from 0). Messages without blocks, and rounds left empty, are
        dropped."""
        rounds = np.asarray(rounds, dtype=np.int64)
        src = np.asarray(src, dtype=np.int64)
        keep = blocks.counts > 0
        first = 0
        if self._pending:
            first = int(self._pending[-1][0].max(initial=-1)) + 1
        reduce = np.broadcast_to(np.asarray(reduce, dtype=bool), src.shape)
        self._pending.append(
            (
                rounds[keep] + first,
                src[keep].astype(INDEX),
                np.asarray(dst)[keep].astype(INDEX),
                *(a.astype(INDEX) for a in blocks.take(keep)),
                reduce[keep],
            )
        )

    def add_ring(self, rings: np.ndarray, groups: np.ndarray, *, reduce: bool) -> None:
        """Append the rounds of rings side by side (see :class:`RingRounds`)."""
        rings = np.asarray(rings, dtype=np.int64)
        if rings.ndim != 2 or rings.shape[1] < 2 or rings.shape[0] == 0:
            return
        groups = np.asarray(groups, dtype=np.int64)
        self._flush()
        self._phases.append(RingRounds(frozen(rings), frozen(groups), reduce))

    def add_pairwise(self) -> None:
        """Append the pairwise all-to-all rounds."""
        if self.ranks < 2:
            return
        self._flush()
        self._phases.append(PairwiseRounds(self.ranks))

    def _flush(self) -> None:
        """Close the pending message rounds into one phase (rounds renumbered densely)."""
        if not self._pending:
            return
        columns = [np.concatenate(parts) for parts in zip(*self._pending, strict=True)]
        self._pending = []
        rounds, src, dst, lo, hi, lo2, hi2, reduce = columns
        if not len(rounds):
            return
        # rounds never decrease: a round starts where the number changes (empty ones vanish)
        starts = np.flatnonzero(np.diff(rounds)) + 1
        offsets = np.concatenate([[0], starts, [len(rounds)]]).astype(np.int64)
        self._phases.append(
            MessageRounds(
                frozen(offsets),
                frozen(src),
                frozen(dst),
                Spans(*(frozen(a) for a in (lo, hi, lo2, hi2))),
                frozen(reduce),
            )
        )

    def build(self) -> Structure:
        self._flush()
        return Structure(self.ranks, self.nblocks, tuple(self._phases))


# --- rows -----------------------------------------------------------------------------


def expand(structure: Structure) -> Schedule:
    """The transfer rows of ``structure``, round by round, as the executor runs them."""
    segments = [_expand(phase, structure.ranks) for phase in structure.phases]

    def column(i: int, dtype: type) -> np.ndarray:
        if not segments:
            return np.zeros(0, dtype=dtype)
        return np.concatenate([seg[i] for seg in segments]).astype(dtype, copy=False)

    sizes = column(0, np.int64)
    return Schedule(
        ranks=structure.ranks,
        nblocks=structure.nblocks,
        offsets=frozen(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)),
        src=frozen(column(1, INDEX)),
        dst=frozen(column(2, INDEX)),
        src_block=frozen(column(3, INDEX)),
        dst_block=frozen(column(4, INDEX)),
        reduce=frozen(column(5, bool)),
    )


def _expand(phase: Phase, ranks: int) -> tuple[np.ndarray, ...]:
    """``(rows per round, src, dst, src_block, dst_block, reduce)`` of one phase."""
    if isinstance(phase, MessageRounds):
        counts, blocks = phase.blocks.flat()
        return (
            phase.rows_per_round(),
            np.repeat(phase.src, counts),
            np.repeat(phase.dst, counts),
            blocks,
            blocks,
            np.repeat(phase.reduce, counts),
        )
    if isinstance(phase, RingRounds):
        return _expand_ring(phase)
    n = phase.ranks
    rank = np.arange(n, dtype=np.int64)[None, :]
    peer = (rank + np.arange(1, n)[:, None]) % n  # (round, rank)
    src = np.broadcast_to(rank, peer.shape)
    return (
        np.full(n - 1, n, dtype=np.int64),
        src.ravel(),
        peer.ravel(),
        peer.ravel(),
        np.broadcast_to(n + rank, peer.shape).ravel(),
        np.zeros(peer.size, dtype=bool),
    )


def _expand_ring(phase: RingRounds) -> tuple[np.ndarray, ...]:
    rings = phase.rings
    count, length = rings.shape
    width = phase.groups.shape[-1]
    groups = np.broadcast_to(phase.groups, (count, length, width))
    rounds = np.arange(length - 1)[:, None]
    sent_group = (np.arange(length)[None, :] - phase.lag - rounds) % length  # (round, member)
    # blocks[s, i, p, w]: block w of the group member p of ring i sends in round s
    blocks = groups[np.arange(count)[None, :, None], sent_group[:, None, :], :]
    src = np.repeat(rings, width, axis=1).reshape(1, -1)
    dst = np.repeat(np.roll(rings, -1, axis=1), width, axis=1).reshape(1, -1)
    shape = (length - 1, src.shape[1])
    return (
        np.full(length - 1, shape[1], dtype=np.int64),
        np.broadcast_to(src, shape).ravel(),
        np.broadcast_to(dst, shape).ravel(),
        blocks.reshape(-1),
        blocks.reshape(-1),
        np.full(shape[0] * shape[1], phase.reduce, dtype=bool),
    )
