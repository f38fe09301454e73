"""Executable of distributed checkpointing: ``training.checkpoint`` (size, shard, write time)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Field, Param, ParamKind, Registry
from quizcoll.executables.common import B, R, S, T, count_param, guard, sizes
from quizcoll.systems import checkpoint as ck


def checkpoint(
    params: int,
    ranks: int = 1,
    weight_dtype: str = "bf16",
    optimizer: str = "adam",
    rank_bandwidth: float = 0.0,
    storage_bandwidth: float = 0.0,
) -> dict[str, Any]:
    """Size, per-rank shard and write time of a resumable training checkpoint."""
    c = ck.checkpoint(params, ranks, weight_dtype, optimizer, rank_bandwidth, storage_bandwidth)
    return {
        "bytes_per_parameter": c.bytes_per_parameter,
        "total_bytes": c.total_bytes,
        "shard_bytes": c.shard_bytes,
        "write_time_s": c.write_time_s,
        "tensors": ", ".join(name for name, _ in ck.saved_tensors(weight_dtype, optimizer)),
    }


def _explain(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"Saved per parameter: {r['tensors']} = {r['bytes_per_parameter']:g} B; "
        f"**{sizes(r['total_bytes'])}** in all, {sizes(r['shard_bytes'])} per rank."
    )


def register(registry: Registry) -> None:
    registry.add_function(
        "training.checkpoint",
        guard(checkpoint),
        params=[
            count_param("params", "parameters", 1e13),
            count_param("ranks", "ranks writing shards in parallel", 1e6, default=1),
            Param(
                "weight_dtype",
                ParamKind.STR,
                "the model's weights",
                choices=tuple(ck.DTYPE_BYTES),
                default="bf16",
            ),
            Param(
                "optimizer",
                ParamKind.STR,
                "optimizer state saved",
                choices=ck.OPTIMIZERS,
                default="adam",
            ),
            Param(
                "rank_bandwidth",
                ParamKind.RATE,
                "one rank's write bandwidth",
                minimum=0,
                maximum=1e13,
                default=0.0,
            ),
            Param(
                "storage_bandwidth",
                ParamKind.RATE,
                "the storage's aggregate bandwidth",
                minimum=0,
                maximum=1e15,
                default=0.0,
            ),
        ],
        fields=[
            Field("bytes_per_parameter", R, "bytes saved per parameter"),
            Field("total_bytes", B, "the whole checkpoint"),
            Field("shard_bytes", B, "one rank's shard"),
            Field("write_time_s", S, "the slower of shard / rank bandwidth and total / storage"),
            Field("tensors", T, "what is saved per parameter"),
        ],
        explain=_explain,
    )
