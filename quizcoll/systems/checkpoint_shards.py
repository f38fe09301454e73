"""A distributed checkpoint of mixed-precision Adam, shard by shard: what each rank writes and
how long the write takes.

The model is split over tensor × pipeline ranks; each data-parallel replica holds the same
bf16 weights, and with a distributed optimizer (ZeRO-1, Megatron's ``--use-distributed-
optimizer``) the fp32 master weights and Adam moments are further split over the data-
parallel ranks. A sharded save (PyTorch DCP, Megatron ``torch_dist``) writes each tensor
once: the weights by the first data-parallel replica, the optimizer shards by their owners.
:func:`shards` lists every rank's bytes by walking the ranks of the layout, so the totals
come from the enumeration, not from a formula.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, positive

MAX_WORLD = 1 << 16
WEIGHT_BYTES = 2  # bf16 weights
STATE_BYTES = 12  # fp32 master weights, Adam's m and v


@dataclass(frozen=True)
class Checkpoint:
    per_rank: tuple[float, ...]
    gpus_per_node: int
    storage_bandwidth: float  # aggregate filesystem write bandwidth
    node_bandwidth: float  # what one node can push to storage

    @property
    def total_bytes(self) -> float:
        return sum(self.per_rank)

    @property
    def max_rank_bytes(self) -> float:
        return max(self.per_rank)

    @property
    def max_node_bytes(self) -> float:
        g = self.gpus_per_node
        return max(sum(self.per_rank[i : i + g]) for i in range(0, len(self.per_rank), g))

    @property
    def write_s(self) -> float:
        """The slower of the filesystem's aggregate limit and the busiest node's own link."""
        return max(
            self.total_bytes / self.storage_bandwidth, self.max_node_bytes / self.node_bandwidth
        )


def shards(
    params: float,
    tp: int,
    pp: int,
    dp: int,
    *,
    distributed_optimizer: bool = True,
    gpus_per_node: int = 8,
    storage_bandwidth: float = 1e11,
    node_bandwidth: float = 2.5e10,
) -> Checkpoint:
    """Every rank's share of a full checkpoint (ranks ordered tp fastest, then dp, then pp)."""
    positive("params", params)
    for name, v in (("tp", tp), ("pp", pp), ("dp", dp), ("gpus_per_node", gpus_per_node)):
        at_least(name, v, 1)
    positive("storage_bandwidth", storage_bandwidth)
    positive("node_bandwidth", node_bandwidth)
    world = tp * pp * dp
    if world > MAX_WORLD:
        raise SystemsInputError(f"world must be at most {MAX_WORLD}, got {world}")
    model_shard = params / (tp * pp)  # parameters one tensor-and-pipeline rank holds
    per_rank: list[float] = []
    for rank in range(world):
        d = (rank // tp) % dp
        written = model_shard * WEIGHT_BYTES if d == 0 else 0.0
        if distributed_optimizer:
            written += model_shard / dp * STATE_BYTES
        elif d == 0:
            written += model_shard * STATE_BYTES
        per_rank.append(written)
    return Checkpoint(tuple(per_rank), gpus_per_node, storage_bandwidth, node_bandwidth)
