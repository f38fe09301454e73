"""A message moved over parallel serial lanes on a clock: the time a transfer takes, reached
by dealing the message out piece by piece instead of dividing its size by a bandwidth.

A link is ``lanes`` lanes side by side (a PCIe x16 link's 16 lanes, a GPU's NVLink links,
a node's NICs, the GPUs whose memories hold a tensor's shards). Each lane signals
``lane_bits_per_s`` bits per second and frames its payload into blocks of ``block_bits``
symbols that carry ``payload_bits`` bits each (PCIe 3-5: 128 of 130, the line code; 1 of 1
for a rate already quoted as data). The message is cut into pieces; each piece goes to the
lane that falls idle first (a heap of lane clocks), which frames it into its block stream;
a lane's last block is sent whole. The transfer ends when the last lane sends its last
block. Every figure comes in as an argument (cited constants in the card), never from the
link tables the calculators read.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from quizcoll.witnesses.net_errors import need

PIECES_PER_LANE = 8  # default pieces a lane receives: enough for the heap to balance them
MAX_PIECES = 1 << 16


@dataclass(frozen=True)
class LinkRun:
    """One clocked transfer: when it ends and what the lanes carried."""

    time_s: float
    pieces: int
    blocks: int  # framed blocks sent over all lanes, each lane's last one whole

    def bandwidth(self, size: int) -> float:
        return size / self.time_s


def clocked_transfer(
    size: int,
    lanes: int,
    lane_bits_per_s: float,
    payload_bits: int = 1,
    block_bits: int = 1,
    pieces: int = 0,
) -> LinkRun:
    """Move ``size`` bytes over ``lanes`` lanes in ``pieces`` pieces (0: 8 per lane)."""
    need(size >= 1, f"size: {size} bytes, at least one needed")
    need(lanes >= 1, f"lanes: {lanes}, at least one needed")
    need(lane_bits_per_s > 0, f"lane_bits_per_s: {lane_bits_per_s} is not positive")
    need(1 <= payload_bits <= block_bits, "payload_bits: between 1 and block_bits")
    count = pieces or PIECES_PER_LANE * lanes
    need(1 <= count <= MAX_PIECES, f"pieces: between 1 and {MAX_PIECES}")
    count = min(count, size)
    base, extra = divmod(size, count)
    block_time = block_bits / lane_bits_per_s
    # each lane's clock in blocks sent so far (fractional: a piece may end mid-block and the
    # next one continues the same block), and the bits its current stream holds
    clocks = [(0.0, lane) for lane in range(lanes)]
    framed = [0] * lanes
    for piece in range(count):
        nbytes = base + (1 if piece < extra else 0)
        _, lane = heapq.heappop(clocks)  # the lane that falls idle first
        framed[lane] += 8 * nbytes
        heapq.heappush(clocks, (framed[lane] / payload_bits, lane))
    blocks = [math.ceil(bits / payload_bits) for bits in framed]
    return LinkRun(time_s=max(blocks) * block_time, pieces=count, blocks=sum(blocks))
