"""A sharded checkpoint enumerated tensor slice by tensor slice, and its write run on a clock.

- :func:`flat_shards`: every saved state (the weights and each fp32 optimizer tensor) is a
  flat buffer of ``params`` values cut into one contiguous slice per rank (as FSDP's flat
  parameters and DCP's sharded tensors are); a rank writes the bytes of its slices.
- :func:`layout_shards`: a TP × PP × DP layout. Each (pipeline stage, tensor rank) position
  owns a slice of the parameters; every data-parallel replica holds a copy of it. The
  checkpoint lists each distinct chunk with the ranks that hold it and its replica number,
  and the holder with replica 0 writes it (Megatron-Core's ``replica_id`` rule: replicated
  tensors are saved once). With a distributed optimizer the fp32 states of a position are
  further cut over its data-parallel ranks, each the only holder of its piece.
- :func:`write_time`: every rank streams its bytes at up to its own rate while the file
  system's aggregate rate is shared among the ranks still writing; the clock advances from
  one rank's finish to the next.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_RANKS = 1 << 16


@dataclass(frozen=True)
class Shards:
    per_rank: tuple[float, ...]  # bytes each rank writes

    @property
    def max_rank_bytes(self) -> float:
        return max(self.per_rank)

    @property
    def total_bytes(self) -> float:
        return sum(self.per_rank)


def _slices(total: int, parts: int) -> list[tuple[int, int]]:
    """Contiguous [start, stop) slices, sizes differing by at most one."""
    base, extra = divmod(total, parts)
    out, start = [], 0
    for i in range(parts):
        stop = start + base + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


def _counts(**values: int) -> None:
    for name, v in values.items():
        if v < 1:
            raise ValueError(f"{name} must be at least 1, got {v}")


def flat_shards(params: int, ranks: int, state_bytes: tuple[float, ...]) -> Shards:
    """Each state (bytes per value in ``state_bytes``) sliced evenly over ``ranks``."""
    _counts(params=params, ranks=ranks)
    if ranks > MAX_RANKS:
        raise ValueError(f"ranks must be at most {MAX_RANKS}, got {ranks}")
    per_rank = [0.0] * ranks
    for width in state_bytes:
        for rank, (start, stop) in enumerate(_slices(params, ranks)):
            per_rank[rank] += (stop - start) * width
    return Shards(tuple(per_rank))


def layout_shards(
    params: int,
    tp: int,
    pp: int,
    dp: int,
    distributed_optimizer: bool,
    weight_bytes: float,
    state_bytes: tuple[float, ...],
) -> Shards:
    """What each rank of the layout writes, chunk by chunk, each chunk written once."""
    _counts(params=params, tp=tp, pp=pp, dp=dp)
    world = tp * pp * dp
    if world > MAX_RANKS:
        raise ValueError(f"world must be at most {MAX_RANKS}, got {world}")
    stages = _slices(params, pp)
    positions = {}
    pieces = {}  # the data-parallel ranks' pieces of a position's optimizer states
    for s, (lo, hi) in enumerate(stages):
        for t, (a, b) in enumerate(_slices(hi - lo, tp)):
            positions[(s, t)] = (lo + a, lo + b)
            pieces[(s, t)] = _slices(b - a, dp)
    # chunk -> [(rank, replica)]; a chunk is (tensor, start, stop)
    holders: dict[tuple[str, int, int], list[tuple[int, int]]] = {}
    for rank in range(world):  # tensor ranks adjacent, then data, then pipeline
        t, d, s = rank % tp, (rank // tp) % dp, rank // (tp * dp)
        start, stop = positions[(s, t)]
        holders.setdefault(("weights", start, stop), []).append((rank, d))
        for i in range(len(state_bytes)):
            name = f"state{i}"
            if distributed_optimizer:
                a, b = pieces[(s, t)][d]
                holders.setdefault((name, start + a, start + b), []).append((rank, 0))
            else:
                holders.setdefault((name, start, stop), []).append((rank, d))
    per_rank = [0.0] * world
    for (tensor, start, stop), owners in holders.items():
        writers = [rank for rank, replica in owners if replica == 0]
        if len(writers) != 1:
            raise AssertionError(f"{tensor}[{start}:{stop}] has {len(writers)} writers")
        width = weight_bytes if tensor == "weights" else state_bytes[int(tensor[5:])]
        per_rank[writers[0]] += (stop - start) * width
    return Shards(tuple(per_rank))


def write_time(per_rank: tuple[float, ...], rank_rate: float, storage_rate: float) -> float:
    """Seconds until the last rank has written its bytes (rates in bytes per second)."""
    if rank_rate <= 0 or storage_rate <= 0:
        raise ValueError("rates must be positive")
    left = sorted(b for b in per_rank if b > 0)
    clock = 0.0
    while left:
        rate = min(rank_rate, storage_rate / len(left))  # each active rank's share
        first = left[0]
        dt = first / rate
        clock += dt
        left = [b - first for b in left[1:] if b - first > 1e-9 * first]
    return clock
