"""PyTorch's CUDA caching allocator: how a request becomes a block and a cudaMalloc'd segment.

The rules and constants of ``c10/cuda/CUDACachingAllocator.cpp`` with the default
configuration (no ``roundup_power2_divisions``, no ``max_split_size_mb``, no
``expandable_segments``):

- ``round_size``: every request is rounded up to a multiple of 512 bytes (kMinBlockSize),
  and at least 512.
- Pools: rounded sizes up to 1 MiB (kSmallSize) come from the small pool, larger ones from
  the large pool.
- ``get_allocation_size``: a new segment for a small block is 2 MiB (kSmallBuffer); for a
  block below 10 MiB (kMinLargeAlloc) 20 MiB (kLargeBuffer); otherwise the block rounded up
  to a multiple of 2 MiB (kRoundLarge).
- ``should_split``: the rest of a segment becomes a free block if it is at least 512 bytes
  (small pool) or more than 1 MiB (large pool); otherwise the whole segment is handed out.

``torch.cuda.memory_reserved`` counts segments, ``memory_allocated`` the rounded blocks: the
gap is the caching allocator's slack (free blocks cached for reuse, and rounding).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.memory.figures import whole
from quizcoll.systems.errors import SystemsInputError, at_least

# PyTorch's constants, read from quizcoll/data/training.yaml (each with the source line as
# its quote, which `check` holds the figure to), so that they live once.
MIN_BLOCK = whole("training", "alloc_min_block")  # kMinBlockSize, 512 B
SMALL_SIZE = whole("training", "alloc_small_size")  # kSmallSize: largest "small" allocation
SMALL_BUFFER = whole("training", "alloc_small_buffer")  # kSmallBuffer: small-pool segments
LARGE_BUFFER = whole("training", "alloc_large_buffer")  # kLargeBuffer: for 1-10 MiB blocks
MIN_LARGE_ALLOC = whole("training", "alloc_min_large_alloc")  # kMinLargeAlloc
ROUND_LARGE = whole("training", "alloc_round_large")  # kRoundLarge: large sizes round to this


@dataclass(frozen=True)
class Block:
    """What the allocator does with one request when no cached block fits."""

    requested_bytes: int
    block_bytes: int  # after round_size
    pool: str  # "small" or "large"
    segment_bytes: int  # the cudaMalloc for a fresh segment
    remainder_bytes: int  # segment − block
    split: bool  # the remainder stays cached as a free block
    handed_out_bytes: int  # block, or the whole segment when it is not split
    rounding_waste_bytes: int  # block − request
    blocks_per_segment: int  # identical requests one fresh segment serves


def round_size(size: int) -> int:
    return MIN_BLOCK if size < MIN_BLOCK else MIN_BLOCK * math.ceil(size / MIN_BLOCK)


def allocation_size(block: int) -> int:
    if block <= SMALL_SIZE:
        return SMALL_BUFFER
    if block < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return ROUND_LARGE * math.ceil(block / ROUND_LARGE)


def _splits(remainder: int, small: bool) -> bool:
    """``should_split``: keep the rest of a block as a free block, or hand out all of it."""
    return remainder >= MIN_BLOCK if small else remainder > SMALL_SIZE


def allocate(requested: int) -> Block:
    """Round a request, pick its pool and the segment a cache miss allocates."""
    at_least("bytes", requested, 1)
    block = round_size(requested)
    small = block <= SMALL_SIZE
    segment = allocation_size(block)
    remainder = segment - block
    split = _splits(remainder, small)
    handed_out = block if split else segment
    per_segment, free = 0, segment
    while free >= block:  # serve identical requests from the segment until it runs out
        per_segment += 1
        free = free - block if _splits(free - block, small) else 0
    return Block(
        requested_bytes=requested,
        block_bytes=block,
        pool="small" if small else "large",
        segment_bytes=segment,
        remainder_bytes=remainder,
        split=split,
        handed_out_bytes=handed_out,
        rounding_waste_bytes=block - requested,
        blocks_per_segment=per_segment,
    )


MAX_REQUESTS = 1_000_000  # identical requests allocate_many simulates


@dataclass(frozen=True)
class Requests:
    """``count`` identical live requests, served by fresh segments (an empty cache)."""

    count: int
    block: Block
    segments: int  # cudaMalloc'd segments
    allocated_bytes: int  # torch.cuda.memory_allocated: the blocks handed out
    reserved_bytes: int  # torch.cuda.memory_reserved: the segments

    @property
    def cached_free_bytes(self) -> int:
        """Reserved but not allocated: free blocks the cache keeps (split remainders)."""
        return self.reserved_bytes - self.allocated_bytes


def allocate_many(requested: int, count: int) -> Requests:
    """What ``count`` requests of ``requested`` bytes each, all alive at once, cost: each
    segment serves ``blocks_per_segment`` of them (the last may take a remainder too small
    to split), and ``memory_allocated`` counts what was handed out, not what was asked."""
    at_least("count", count, 1)
    if count > MAX_REQUESTS:
        raise SystemsInputError(f"count {count:,} is more than {MAX_REQUESTS:,} requests")
    b = allocate(requested)
    full, rest = divmod(count, b.blocks_per_segment)
    per_full_segment = _handed_out(b, b.blocks_per_segment)
    allocated = full * per_full_segment + (_handed_out(b, rest) if rest else 0)
    segments = full + (1 if rest else 0)
    return Requests(count, b, segments, allocated, segments * b.segment_bytes)


def _handed_out(b: Block, n: int) -> int:
    """Bytes handed out by one fresh segment to ``n`` ≤ blocks_per_segment identical requests."""
    small = b.pool == "small"
    total, free = 0, b.segment_bytes
    for _ in range(n):
        if _splits(free - b.block_bytes, small):
            total, free = total + b.block_bytes, free - b.block_bytes
        else:  # the remainder is too small to keep: this request gets all of it
            total, free = total + free, 0
    return total
