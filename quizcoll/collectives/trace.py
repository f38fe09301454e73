"""Traces: what a schedule does, round by round, as arrays for displays and JSON.

A :class:`Trace` wraps a schedule and its layout; nothing is expanded into Python
objects until asked (``transfers(i)`` for one round, ``to_json()`` for all).
:meth:`Trace.holdings` gives, per round, how many ranks' contributions every block slot
of every rank holds: N means fully reduced (or, for data-moving collectives, that the
rank has the piece).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.layout import Layout
from quizcoll.collectives.schedule import Schedule
from quizcoll.collectives.traffic import per_step_received, per_step_sent, row_bytes


@dataclass(frozen=True)
class TraceStep:
    """One round: parallel arrays, one entry per block transfer."""

    index: int
    src: np.ndarray
    dst: np.ndarray
    chunk: np.ndarray  # the sender's block slot
    dst_chunk: np.ndarray  # where it lands on the receiver (differs only for all_to_all)
    bytes: np.ndarray
    reduce: np.ndarray  # True: combined into the receiver's block; False: stored

    def __len__(self) -> int:
        return len(self.src)


@dataclass(frozen=True, eq=False)
class Trace:
    """The rounds of a simulated collective, built from its schedule on request."""

    schedule: Schedule
    layout: Layout
    itemsize: int

    @cached_property
    def row_bytes(self) -> np.ndarray:
        return row_bytes(self.schedule, self.layout, self.itemsize)

    @property
    def ranks(self) -> int:
        return self.schedule.ranks

    @property
    def chunks(self) -> int:
        """Block slots per rank (chunk indices in transfers run over ``0..chunks−1``)."""
        return self.schedule.nblocks

    def __len__(self) -> int:
        return self.schedule.steps

    def __iter__(self) -> Iterator[TraceStep]:
        return (self.step(i) for i in range(len(self)))

    def step(self, index: int) -> TraceStep:
        s = self.schedule
        if not 0 <= index < s.steps:
            raise CollectiveError(f"step {index} out of range 0..{s.steps - 1}")
        rows = s.step_rows(index)
        return TraceStep(
            index=index,
            src=s.src[rows],
            dst=s.dst[rows],
            chunk=s.src_block[rows],
            dst_chunk=s.dst_block[rows],
            bytes=self.row_bytes[rows],
            reduce=s.reduce[rows],
        )

    def transfers(self, index: int) -> list[dict[str, int]]:
        """Round ``index`` as ``{src, dst, chunk, bytes}`` dicts (the JSON form)."""
        st = self.step(index)
        return [
            {"src": int(a), "dst": int(b), "chunk": int(c), "bytes": int(n)}
            for a, b, c, n in zip(st.src, st.dst, st.chunk, st.bytes, strict=True)
        ]

    def to_json(self) -> list[list[dict[str, int]]]:
        return [self.transfers(i) for i in range(len(self))]

    def sent_per_step(self) -> np.ndarray:
        """``(steps, ranks)`` bytes each rank sends in each round."""
        return np.rint(per_step_sent(self.schedule, self.row_bytes)).astype(np.int64)

    def received_per_step(self) -> np.ndarray:
        """``(steps, ranks)`` bytes each rank receives in each round."""
        return np.rint(per_step_received(self.schedule, self.row_bytes)).astype(np.int64)

    def per_link(self) -> np.ndarray:
        """``(ranks, ranks)`` bytes sent over each directed link ``src → dst`` in total."""
        n = self.schedule.ranks
        key = self.schedule.src.astype(np.int64) * n + self.schedule.dst
        return (
            np.rint(np.bincount(key, weights=self.row_bytes, minlength=n * n))
            .astype(np.int64)
            .reshape(n, n)
        )

    def holdings(self, budget_bytes: int = 1 << 30) -> np.ndarray:
        """``(steps + 1, ranks, chunks)`` int32: contributions held before round 0 and
        after every round. Refused when it would exceed ``budget_bytes``."""
        s = self.schedule
        need = (s.steps + 1) * s.ranks * s.nblocks * 4
        if need > budget_bytes:
            raise CollectiveError(
                f"the holdings table needs {need:,} bytes, over the budget of "
                f"{budget_bytes:,} bytes; ask for single steps or fewer ranks"
            )
        states = np.empty((s.steps + 1, s.ranks, s.nblocks), dtype=np.int32)
        held = self.layout.holds_initially()
        states[0] = held
        for i in range(s.steps):
            rows = s.step_rows(i)
            payload = held[s.src[rows], s.src_block[rows]]
            dst, slot, reduce = s.dst[rows], s.dst_block[rows], s.reduce[rows]
            held[dst[~reduce], slot[~reduce]] = payload[~reduce]
            np.add.at(held, (dst[reduce], slot[reduce]), payload[reduce])
            states[i + 1] = held
        return states
