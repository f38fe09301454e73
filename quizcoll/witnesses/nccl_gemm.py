"""A GEMM's tiles dispatched onto SMs on a clock: waves, idle SMs and free channels.

A tiled GEMM launches one CTA per output tile; the GPU's block scheduler hands each waiting
tile to the first SM that is free. This module enumerates the tiles (their origins on the
``m × n`` output, a partial tile at each ragged edge), dispatches them one by one to the
earliest-free SM (a heap of SM clocks, every tile taking one unit of time), and reads off
the makespan, the busy share of the SMs' time and the size of the last wave. The channels
an overlapped NCCL kernel holds are SMs taken away (one CTA, so one SM, per channel).

``free_channels`` searches (bisection) the most SMs that can be taken before the makespan
grows: the makespan never shrinks as SMs are removed, so the predicate is monotone.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

MAX_TILES = 1 << 20


@dataclass(frozen=True)
class Dispatch:
    tiles: int
    makespan: int  # in tile times: the number of waves
    utilisation: float  # busy SM-time ÷ (SMs × makespan)
    last_wave_tiles: int  # tiles that start in the last time slot


def tile_origins(m: int, n: int, tile_m: int, tile_n: int) -> list[tuple[int, int]]:
    """Every tile's top-left corner on the output (edge tiles may be partial)."""
    if min(m, n, tile_m, tile_n) < 1:
        raise ValueError("matrix and tile sides must be at least 1")
    origins = [(r, c) for r in range(0, m, tile_m) for c in range(0, n, tile_n)]
    if len(origins) > MAX_TILES:
        raise ValueError(f"at most {MAX_TILES:,} tiles")
    return origins


def dispatch(m: int, n: int, tile_m: int, tile_n: int, sms: int) -> Dispatch:
    """Hand each tile to the earliest-free of ``sms`` SMs and time the whole grid."""
    if sms < 1:
        raise ValueError("at least one SM must run the GEMM")
    tiles = tile_origins(m, n, tile_m, tile_n)
    clocks = [0] * sms  # when each SM is next free
    heapq.heapify(clocks)
    starts: list[int] = []
    for _ in tiles:
        start = heapq.heappop(clocks)
        starts.append(start)
        heapq.heappush(clocks, start + 1)
    makespan = max(starts) + 1
    return Dispatch(
        tiles=len(tiles),
        makespan=makespan,
        utilisation=len(tiles) / (sms * makespan),
        last_wave_tiles=sum(1 for s in starts if s == makespan - 1),
    )


def free_channels(m: int, n: int, tile_m: int, tile_n: int, sms: int) -> int:
    """The most SMs NCCL can take (one per channel) before the GEMM's makespan grows."""
    alone = dispatch(m, n, tile_m, tile_n, sms).makespan
    lo, hi = 0, sms - 1  # lo keeps the makespan; is hi's taking still free?
    if dispatch(m, n, tile_m, tile_n, sms - hi).makespan == alone:
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if dispatch(m, n, tile_m, tile_n, sms - mid).makespan == alone:
            lo = mid
        else:
            hi = mid
    return lo
