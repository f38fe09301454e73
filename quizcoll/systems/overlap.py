"""Compute/communication overlap on two CUDA streams: how much communication stays exposed.

A training step runs its compute kernels on one stream and its communication (NCCL) kernels
on another; they run at once unless one waits for the other's result. This module times n
equal chunks on the two streams, exactly (in rationals), for the three patterns training uses,
and returns the timeline as data:

- ``drain`` (compute feeds communication): DDP's gradient buckets, or a GEMM whose output is
  reduce-scattered chunk by chunk. Chunk i's communication starts once its compute has
  produced it and the previous chunk's communication is done (one communication stream runs
  its collectives in order, as NCCL does on one communicator).
- ``prefetch`` (communication feeds compute): FSDP's all-gather of the next unit while the
  current unit computes. Chunk i's compute needs chunk i's communication; communication runs
  at most ``depth`` chunks ahead of compute (the unsharded units memory can hold: FSDP holds
  1 + prefetch units), and ``depth`` 0 is no overlap at all.
- ``local-first`` (collective matmul, async tensor parallelism, Wang et al., ASPLOS 2023): an
  all-gather over t GPUs feeding a GEMM is split into t GEMM chunks; the first runs on the
  shard the GPU already holds while the next shard arrives, so t chunks need t − 1 transfers.

Closed forms, with g the compute and c the communication time of one chunk (what cards check
the timeline against): ``drain`` and ``prefetch`` (depth ≥ 1) take n·g + c + (n − 1)·max(0,
c − g), so c + (n − 1)·max(0, c − g) of communication is exposed; ``local-first`` takes
g + (n − 1)·max(g, c), exposing (n − 1)·max(0, c − g). Without overlap it is n·(g + c)
(local-first: n·g + (n − 1)·c). A single transfer overlapped with independent compute exposes
max(0, comm − compute).

This is the scheduling idealisation: overlapped kernels are taken to run at full speed. On a
real GPU NCCL's kernels occupy SMs (one thread block per channel) and memory bandwidth, so
overlapped compute slows down somewhat; the model gives the lower bound.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from quizcoll.systems.errors import SystemsInputError, at_least

MAX_CHUNKS = 4096
MAX_DEPTH = 64


class Pattern(enum.Enum):
    DRAIN = "drain"
    PREFETCH = "prefetch"
    LOCAL_FIRST = "local-first"


PATTERNS: tuple[str, ...] = tuple(p.value for p in Pattern)


@dataclass(frozen=True)
class Interval:
    """One kernel on one stream: ``compute`` or ``comm`` of chunk ``chunk``, in seconds."""

    stream: str
    chunk: int
    start: float
    end: float


@dataclass(frozen=True)
class Overlap:
    """Two streams' timeline of n chunks and what it costs."""

    pattern: Pattern
    chunks: int
    makespan: float  # first kernel start to last kernel end
    compute: float  # total compute time: n·g
    comm: float  # total communication time (n or n − 1 transfers)
    serial: float  # the same kernels one after the other
    timeline: tuple[Interval, ...]

    @property
    def exposed(self) -> float:
        """Communication time compute does not hide: makespan − compute."""
        return self.makespan - self.compute

    @property
    def hidden_fraction(self) -> float:
        """Share of the communication that overlaps compute (1 when none is exposed)."""
        return 1 - self.exposed / self.comm if self.comm else 1.0

    @property
    def speedup(self) -> float:
        """Serial time over overlapped time."""
        return self.serial / self.makespan


def _time(name: str, value: float) -> Fraction:
    at_least(name, value, 0)
    return Fraction(value)


def simulate(pattern: Pattern, chunks: int, compute: float, comm: float, depth: int = 1) -> Overlap:
    """Time ``chunks`` chunks of ``compute`` and ``comm`` seconds each on two streams."""
    at_least("chunks", chunks, 1)
    if chunks > MAX_CHUNKS:
        raise SystemsInputError(f"at most {MAX_CHUNKS:,} chunks, got {chunks:,}")
    at_least("depth", depth, 0)
    if depth > MAX_DEPTH:
        raise SystemsInputError(f"depth must be at most {MAX_DEPTH}, got {depth}")
    g, c = _time("compute", compute), _time("comm", comm)
    if g == 0 and c == 0:
        raise SystemsInputError("compute and comm cannot both be zero")
    if pattern is Pattern.LOCAL_FIRST:
        depth = chunks  # the next shard's buffer is separate: transfers never wait for compute
    comm_ends: list[Fraction] = []
    compute_ends: list[Fraction] = []
    timeline: list[Interval] = []

    def record(stream: str, i: int, start: Fraction, end: Fraction) -> None:
        timeline.append(Interval(stream, i, float(start), float(end)))

    for i in range(chunks):
        last_comm = comm_ends[-1] if comm_ends else Fraction(0)
        last_compute = compute_ends[-1] if compute_ends else Fraction(0)
        if pattern is Pattern.DRAIN:
            start = last_compute
            compute_ends.append(start + g)
            record("compute", i, start, compute_ends[-1])
            comm_start = max(compute_ends[-1], last_comm)
            comm_ends.append(comm_start + c)
            record("comm", i, comm_start, comm_ends[-1])
            continue
        transfer = Fraction(0) if pattern is Pattern.LOCAL_FIRST and i == 0 else c
        # Chunk i's buffer is free once compute has finished chunk i − 1 − depth.
        freed = compute_ends[i - 1 - depth] if i - 1 - depth >= 0 else Fraction(0)
        if depth == 0:
            freed = last_compute
        comm_start = max(last_comm, freed)
        comm_ends.append(comm_start + transfer)
        if transfer:
            record("comm", i, comm_start, comm_ends[-1])
        start = max(last_compute, comm_ends[-1])
        compute_ends.append(start + g)
        record("compute", i, start, compute_ends[-1])
    makespan = max(comm_ends[-1], compute_ends[-1])
    transfers = chunks - 1 if pattern is Pattern.LOCAL_FIRST else chunks
    total_compute, total_comm = chunks * g, transfers * c
    return Overlap(
        pattern=pattern,
        chunks=chunks,
        makespan=float(makespan),
        compute=float(total_compute),
        comm=float(total_comm),
        serial=float(total_compute + total_comm),
        timeline=tuple(timeline),
    )


def exposed(compute: float, comm: float) -> float:
    """One transfer overlapped with ``compute`` seconds of independent work: what is left."""
    at_least("compute", compute, 0)
    at_least("comm", comm, 0)
    return float(max(Fraction(0), Fraction(comm) - Fraction(compute)))
