"""PyTorch's CUDA caching allocator replayed request by request, block by block.

Provides :func:`replay`: a sequence of allocations (kept, never freed) served the way
``c10/cuda/CUDACachingAllocator.cpp`` serves them — each size rounded to the minimum block
granule, a pool chosen (small up to the small-size limit), the smallest free block of that
pool that fits taken, or a new segment ``cudaMalloc``-ed (a small buffer, a large buffer
below the large-allocation threshold, else the block rounded to the large granule), and
the block split when what remains is worth keeping (small pool: at least a granule; large
pool: more than the small-size limit). It returns the segments and blocks it built, from
which ``memory_reserved`` (segments) and ``memory_allocated`` (blocks handed out) are read.

The allocator's constants come in as arguments (a card gives the figures the source file
prints), never from the calculator's module.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AllocatorConstants:
    """The allocator's figures, in bytes (kMinBlockSize, kSmallSize, kSmallBuffer,
    kLargeBuffer, kMinLargeAlloc, kRoundLarge)."""

    min_block: int
    small_size: int
    small_buffer: int
    large_buffer: int
    min_large_alloc: int
    round_large: int

    def __post_init__(self) -> None:
        for name in (
            "min_block",
            "small_size",
            "small_buffer",
            "large_buffer",
            "min_large_alloc",
            "round_large",
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: expected a positive whole number of bytes, got {v!r}")


@dataclass
class _Block:
    segment: int
    offset: int
    size: int
    allocated: bool = False


@dataclass
class Replay:
    """What the replay built: segments (sizes, in cudaMalloc order) and every block."""

    segments: list[int] = field(default_factory=list)
    pools: list[str] = field(default_factory=list)
    blocks: list[_Block] = field(default_factory=list)
    served_by: list[int] = field(default_factory=list)  # the segment of each request
    handed_out: list[int] = field(default_factory=list)  # the block size of each request
    free: list[_Block] = field(default_factory=list)  # the cached free blocks

    @property
    def reserved_bytes(self) -> int:
        return sum(self.segments)

    @property
    def allocated_bytes(self) -> int:
        return sum(b.size for b in self.blocks if b.allocated)


def _granules(size: int, granule: int) -> int:
    """Granules needed to cover ``size``, counted by whole and partial granules."""
    whole, part = divmod(size, granule)
    return whole + (1 if part else 0)


def serve(state: Replay, size: int, c: AllocatorConstants) -> None:
    """One more request of ``size`` bytes served from ``state`` (changed in place)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"requests: expected positive whole numbers of bytes, got {size!r}")
    need = max(1, _granules(size, c.min_block)) * c.min_block
    pool = "small" if need <= c.small_size else "large"
    fits = [b for b in state.free if state.pools[b.segment] == pool and b.size >= need]
    if fits:
        block = min(fits, key=lambda b: (b.size, b.segment, b.offset))  # best fit
        state.free.remove(block)
    else:
        if pool == "small":
            seg = c.small_buffer
        elif need < c.min_large_alloc:
            seg = c.large_buffer
        else:
            seg = _granules(need, c.round_large) * c.round_large
        state.segments.append(seg)
        state.pools.append(pool)
        block = _Block(len(state.segments) - 1, 0, seg)
        state.blocks.append(block)
    rest = block.size - need
    split = rest >= c.min_block if pool == "small" else rest > c.small_size
    if split:
        remainder = _Block(block.segment, block.offset + need, rest)
        state.blocks.append(remainder)
        state.free.append(remainder)
        block.size = need
    block.allocated = True
    state.served_by.append(block.segment)
    state.handed_out.append(block.size)


MAX_REQUESTS = 1 << 16


def replay(requests: list[int], c: AllocatorConstants) -> Replay:
    """Serve ``requests`` (bytes each, in order, none freed) from an empty cache."""
    if len(requests) > MAX_REQUESTS:
        raise ValueError(f"requests: at most {MAX_REQUESTS:,} are replayed")
    state = Replay()
    for size in requests:
        serve(state, size, c)
    return state


def served_by_first_segment(size: int, c: AllocatorConstants) -> int:
    """Requests of ``size`` the first segment serves before a second one is allocated."""
    state = Replay()
    while len(state.served_by) < MAX_REQUESTS:
        serve(state, size, c)
        if len(state.segments) > 1:
            return state.served_by.count(0)
    raise ValueError(f"size: the first segment serves more than {MAX_REQUESTS:,} requests")
