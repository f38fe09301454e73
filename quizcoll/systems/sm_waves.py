"""A GEMM's output tiles on the SMs a concurrent NCCL kernel leaves it: wave quantisation.

A tiled GEMM launches one CTA per output tile; each SM runs one tile at a time (the large
tiles of a Hopper GEMM fill an SM's shared memory), so tiles run in waves. An NCCL
collective running beside it holds one CTA, and so one SM, per channel. :func:`schedule`
replays the launch as a list scheduler (every tile goes to the SM that frees first, tiles
take equal time), so the makespan comes from the event order, not from ⌈tiles / SMs⌉.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least

MAX_TILES = 1 << 16
MAX_SMS = 1024


@dataclass(frozen=True)
class Gemm:
    tiles: int
    sms: int
    waves: int  # makespan in tile times
    last_wave_tiles: int  # tiles running in the final wave

    @property
    def utilisation(self) -> float:
        return self.tiles / (self.waves * self.sms)


def tiles(m: int, n: int, tile_m: int, tile_n: int) -> int:
    """Output tiles of an m × n result in tile_m × tile_n tiles (partial tiles count)."""
    for name, v in (("m", m), ("n", n), ("tile_m", tile_m), ("tile_n", tile_n)):
        at_least(name, v, 1)
    return len(range(0, m, tile_m)) * len(range(0, n, tile_n))


def schedule(tile_count: int, sms: int) -> Gemm:
    """Run ``tile_count`` equal tiles on ``sms`` SMs, each tile to the first SM that frees."""
    at_least("tiles", tile_count, 1)
    at_least("sms", sms, 1)
    if tile_count > MAX_TILES or sms > MAX_SMS:
        raise SystemsInputError(f"at most {MAX_TILES} tiles on {MAX_SMS} SMs")
    free = [(0, sm) for sm in range(sms)]
    heapq.heapify(free)
    ends: list[int] = []
    for _ in range(tile_count):
        t, sm = heapq.heappop(free)
        ends.append(t + 1)
        heapq.heappush(free, (t + 1, sm))
    makespan = max(ends)
    return Gemm(tile_count, sms, makespan, sum(1 for e in ends if e == makespan))


def with_channels(tile_count: int, sms: int, channels: int) -> tuple[Gemm, Gemm]:
    """The GEMM alone, and beside an NCCL kernel holding ``channels`` SMs."""
    at_least("channels", channels, 0)
    if channels >= sms:
        raise SystemsInputError(f"{channels} channels leave no SM of {sms} to the GEMM")
    return schedule(tile_count, sms), schedule(tile_count, sms - channels)


def ideal_slowdown(sms: int, channels: int) -> float:
    """What the SM count alone predicts, without waves: sms / (sms − channels)."""
    return sms / (sms - channels) if channels < sms else math.inf
