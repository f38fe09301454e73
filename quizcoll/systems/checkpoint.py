"""Distributed checkpoints: what a training checkpoint holds, how it shards, how long it takes.

A checkpoint that can resume training saves, per parameter, the weights in the model's dtype
and the optimizer's state: for Adam the two moments, and with mixed precision the fp32
master copy the optimizer updates. Gradients are not saved (they are recomputed). Each saved
tensor is listed with its dtype; the bytes per parameter are their sum.

A sharded save (PyTorch DCP, Megatron's ``torch_dist``) has every rank write its own shard
in parallel, so the time is the largest shard over one rank's write bandwidth, or the whole
checkpoint over the storage's aggregate bandwidth, whichever is slower.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, exact, positive

DTYPE_BYTES: dict[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
OPTIMIZERS: tuple[str, ...] = ("adam", "sgd-momentum", "none")


def saved_tensors(weight_dtype: str, optimizer: str) -> tuple[tuple[str, int], ...]:
    """(name, bytes per parameter) of every tensor a resumable checkpoint saves."""
    if weight_dtype not in DTYPE_BYTES:
        raise SystemsInputError(f"weight_dtype must be one of {', '.join(DTYPE_BYTES)}")
    if optimizer not in OPTIMIZERS:
        raise SystemsInputError(f"optimizer must be one of {', '.join(OPTIMIZERS)}")
    out: list[tuple[str, int]] = [("weights", DTYPE_BYTES[weight_dtype])]
    if optimizer == "none":
        return tuple(out)
    if weight_dtype != "fp32":
        out.append(("fp32 master weights", DTYPE_BYTES["fp32"]))
    out.append(("exp_avg" if optimizer == "adam" else "momentum", DTYPE_BYTES["fp32"]))
    if optimizer == "adam":
        out.append(("exp_avg_sq", DTYPE_BYTES["fp32"]))
    return tuple(out)


@dataclass(frozen=True)
class Checkpoint:
    bytes_per_parameter: float
    total_bytes: float
    shard_bytes: float  # one rank's share
    write_time_s: float


def checkpoint(
    parameters: int,
    ranks: int = 1,
    weight_dtype: str = "bf16",
    optimizer: str = "adam",
    rank_bandwidth: float = 0.0,
    storage_bandwidth: float = 0.0,
) -> Checkpoint:
    """Size, shard and write time of a resumable checkpoint of ``parameters`` parameters."""
    at_least("parameters", parameters, 1)
    at_least("ranks", ranks, 1)
    for name, value in (
        ("rank_bandwidth", rank_bandwidth),
        ("storage_bandwidth", storage_bandwidth),
    ):
        if value:
            positive(name, value)
    per = sum(b for _, b in saved_tensors(weight_dtype, optimizer))
    total = per * parameters
    shard = total / ranks
    times = []
    if rank_bandwidth:
        times.append(shard / rank_bandwidth)
    if storage_bandwidth:
        times.append(total / storage_bandwidth)
    return Checkpoint(float(per), float(total), exact(shard), max(times) if times else 0.0)
