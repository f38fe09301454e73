"""Second methods for the parallelism cards (``witness.par_*``): layouts walked rank by rank,
traffic stepped collective by collective on rings, batches consumed micro-batch by
micro-batch, pipelines run on a clock, checkpoints enumerated slice by slice
(:mod:`quizcoll.witnesses`, the ``par_*`` modules). Model shapes, dtype widths and rates come
in as arguments from the cards' cited constants."""

from __future__ import annotations

from typing import Any

from deck.cards.registry import Derivation, Field, Param, ParamKind, Registry
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.executables.common import B, C, R, S
from quizcoll.witnesses import (
    par_accum,
    par_batch,
    par_checkpoint,
    par_context,
    par_layout,
    par_pipeline,
)

# Bytes per value of a dtype named in a card, from its bit width (the cards' dtype names).
_BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8}


def _bytes_of(dtype: str, given: float) -> float:
    if not dtype:
        if given <= 0:
            raise ValueError("give a dtype or a width in bytes")
        return given
    return _BITS[dtype] / 8


def _guard(fn: Any) -> Any:
    return refusals_as_argument_errors(fn, lambda: ValueError)


def _int(name: str, help: str, maximum: float, minimum: float = 1, **kw: Any) -> Param:
    return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum, **kw)


def _float(name: str, help: str, maximum: float, minimum: float = 0, **kw: Any) -> Param:
    return Param(name, ParamKind.FLOAT, help, minimum=minimum, maximum=maximum, **kw)


def _dtype(name: str, help: str, default: str = "bf16") -> Param:
    return Param(name, ParamKind.STR, f"dtype of the {help}", choices=tuple(_BITS), default=default)


def layout_dp(world: int, tp: int, pp: int, cp: int = 1) -> dict[str, Any]:
    return {"data_parallel": par_layout.data_parallel_group(world, tp, pp, cp)}


def tp_traffic(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    layers: int,
    micro_batches: int,
    tp: int,
    dtype: str = "bf16",
    pp: int = 1,
    stage: int = 0,
) -> dict[str, Any]:
    t = par_layout.tensor_parallel_traffic(
        seq_len, micro_batch, hidden, layers, micro_batches, tp, _bytes_of(dtype, 0), pp, stage
    )
    return {"tp_bytes": t.bytes_sent, "all_reduces": t.all_reduces}


def pp_traffic(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    micro_batches: int,
    tp: int,
    pp: int,
    stage: int,
    dtype: str = "bf16",
) -> dict[str, Any]:
    t = par_layout.pipeline_traffic(
        seq_len, micro_batch, hidden, micro_batches, tp, pp, stage, _bytes_of(dtype, 0)
    )
    return {"pp_bytes": t.per_gpu_bytes, "pp_group_bytes": t.group_bytes, "sends": t.sends}


def dp_traffic(params: float, tp: int, pp: int, dp: int, dtype: str = "fp32") -> dict[str, Any]:
    width = _bytes_of(dtype, 0)
    return {"dp_bytes": par_layout.data_parallel_traffic(round(params), tp, pp, dp, width)}


def batch(global_batch: int, micro_batch: int, data_parallel: int, seq_len: int) -> dict[str, Any]:
    c = par_batch.consume(global_batch, micro_batch, data_parallel, seq_len)
    return {
        "accumulation_steps": c.micro_batches_per_replica,
        "tokens_per_step": c.tokens,
        "sequences_per_replica": c.sequences_per_replica,
    }


def context(
    seq_len: int, cp: int, heads: int, kv_heads: int, head_dim: int, dtype: str = "bf16"
) -> dict[str, Any]:
    value_bytes = _bytes_of(dtype, 0)
    ring, hops = par_context.ring_forward_sent(seq_len, cp, kv_heads, head_dim, value_bytes)
    out: dict[str, Any] = {"ring_forward_bytes": ring, "ring_hops": hops}
    out["ulysses_forward_bytes"] = par_context.ulysses_forward_sent(
        seq_len, cp, heads, kv_heads, head_dim, value_bytes
    )
    return out


def ring_attention(
    seq_len: int, cp: int, kv_heads: int, head_dim: int, dtype: str = "bf16"
) -> dict[str, Any]:
    """Ring attention alone: it splits the sequence, never the heads, so any head count runs
    (Ulysses needs the heads to divide over the GPUs)."""
    ring, hops = par_context.ring_forward_sent(seq_len, cp, kv_heads, head_dim, _bytes_of(dtype, 0))
    return {"ring_forward_bytes": ring, "ring_hops": hops}


def micro_batches(stages: int, target: float, virtual_stages: int = 1) -> dict[str, Any]:
    m = par_pipeline.fewest_micro_batches(stages, target, virtual_stages)
    it = par_pipeline.simulate(stages, m, virtual_stages)
    return {"micro_batches": m, "bubble_over_total": it.bubble_over_total}


def accum(
    mode: str,
    params: float,
    ranks: int,
    micro_batches: int,
    grad_dtype: str,
    param_dtype: str = "bf16",
    sync_every_micro_batch: bool = False,
    units: int = 4,
) -> dict[str, Any]:
    grad_bytes, param_bytes = _bytes_of(grad_dtype, 0), _bytes_of(param_dtype, 0)
    t = par_accum.accumulate(
        mode,
        round(params),
        ranks,
        micro_batches,
        grad_bytes,
        param_bytes,
        sync_every_micro_batch,
        units,
    )
    return {
        "bytes_sent": t.bytes_sent,
        "gather_bytes": t.gather_bytes,
        "gradient_bytes": t.gradient_bytes,
        "unsharded_grad_bytes": t.unsharded_grad_bytes,
        "collectives": t.collectives,
    }


def _states(master_dtype: str, moment_dtype: str, moments: int) -> tuple[float, ...]:
    return (_bytes_of(master_dtype, 0), *([_bytes_of(moment_dtype, 0)] * moments))


def flat_checkpoint(
    params: float,
    ranks: int,
    weight_dtype: str = "bf16",
    master_dtype: str = "fp32",
    moment_dtype: str = "fp32",
    moments: int = 2,
    rank_bandwidth: float = 0.0,
    storage_bandwidth: float = 0.0,
) -> dict[str, Any]:
    weight_bytes = _bytes_of(weight_dtype, 0)
    states = (weight_bytes, *_states(master_dtype, moment_dtype, moments))
    s = par_checkpoint.flat_shards(round(params), ranks, states)
    out: dict[str, Any] = {"shard_bytes": s.max_rank_bytes, "total_bytes": s.total_bytes}
    if rank_bandwidth and storage_bandwidth:
        out["write_time_s"] = par_checkpoint.write_time(
            s.per_rank, rank_bandwidth, storage_bandwidth
        )
    else:
        out["write_time_s"] = None
    return out


def layout_checkpoint(
    params: float,
    tp: int,
    pp: int,
    dp: int,
    weight_dtype: str = "bf16",
    master_dtype: str = "fp32",
    moment_dtype: str = "fp32",
    moments: int = 2,
    distributed_optimizer: bool = True,
) -> dict[str, Any]:
    s = par_checkpoint.layout_shards(
        round(params),
        tp,
        pp,
        dp,
        distributed_optimizer,
        _bytes_of(weight_dtype, 0),
        _states(master_dtype, moment_dtype, moments),
    )
    return {"max_rank_bytes": s.max_rank_bytes, "total_bytes": s.total_bytes}


_STEPPED = "stepped on rings chunk by chunk (quizcoll.witnesses.par_rings)"


def register(registry: Registry) -> None:
    add, declare = registry.add_function, registry.declare_derivation
    big = 1e13
    add(
        "witness.par_layout_dp",
        _guard(layout_dp),
        params=[
            _int("world", "GPUs", 1 << 17),
            _int("tp", "tensor-parallel size", 4096),
            _int("pp", "pipeline-parallel size", 4096),
            _int("cp", "context-parallel size", 4096, default=1),
        ],
        fields=[Field("data_parallel", C, "ranks in rank 0's data-parallel group")],
    )
    declare(
        "witness.par_layout_dp",
        Derivation.ENUMERATED,
        "enumerates every rank's TP/CP/PP coordinates and counts rank 0's DP group "
        "(quizcoll.witnesses.par_layout)",
    )
    add(
        "witness.par_tp_traffic",
        _guard(tp_traffic),
        params=[
            _int("seq_len", "sequence length s", 1e8),
            _int("micro_batch", "micro-batch b", 1e5),
            _int("hidden", "hidden size h", 1e6),
            _int("layers", "layers of the model", 10_000),
            _int("micro_batches", "micro-batches per step", 1e5),
            _int("tp", "tensor-parallel size", 1024),
            _dtype("dtype", "activations"),
            _int("pp", "pipeline stages", 4096, default=1),
            _int("stage", "which stage", 4095, minimum=0, default=0),
        ],
        fields=[
            Field("tp_bytes", B, "bytes one GPU sends in TP all-reduces per step"),
            Field("all_reduces", C, "all-reduces issued"),
        ],
    )
    declare(
        "witness.par_tp_traffic",
        Derivation.ENUMERATED,
        "walks each layer's f/g operators forward and backward per micro-batch; every "
        f"all-reduce {_STEPPED}",
    )
    add(
        "witness.par_pp_traffic",
        _guard(pp_traffic),
        params=[
            _int("seq_len", "sequence length s", 1e8),
            _int("micro_batch", "micro-batch b", 1e5),
            _int("hidden", "hidden size h", 1e6),
            _int("micro_batches", "micro-batches per step", 1e5),
            _int("tp", "tensor-parallel size", 1024),
            _int("pp", "pipeline stages", 4096),
            _int("stage", "which stage", 4095, minimum=0),
            _dtype("dtype", "activations"),
        ],
        fields=[
            Field("pp_bytes", B, "bytes the stage's busiest GPU sends to its neighbours"),
            Field("pp_group_bytes", B, "bytes all the stage's GPUs send"),
            Field("sends", C, "tensors the stage passed on"),
        ],
    )
    declare(
        "witness.par_pp_traffic",
        Derivation.SIMULATED,
        "steps the stage's 1F1B order, sending each activation and gradient split over the "
        "TP ranks (quizcoll.witnesses.par_layout)",
    )
    add(
        "witness.par_dp_traffic",
        _guard(dp_traffic),
        params=[
            _float("params", "parameters", big, minimum=1),
            _int("tp", "tensor-parallel size", 1024),
            _int("pp", "pipeline stages", 1024),
            _int("dp", "data-parallel size", 1024),
            _dtype("dtype", "all-reduced gradients", "fp32"),
        ],
        fields=[Field("dp_bytes", B, "bytes the busiest GPU sends in its DP all-reduce")],
    )
    declare(
        "witness.par_dp_traffic",
        Derivation.SIMULATED,
        f"slices the parameters over the enumerated grid; each DP group's all-reduce {_STEPPED}",
    )
    add(
        "witness.par_batch",
        _guard(batch),
        params=[
            _int("global_batch", "sequences per optimizer step", 1 << 22),
            _int("micro_batch", "sequences per forward", 1e5),
            _int("data_parallel", "replicas", 1 << 20),
            _int("seq_len", "tokens per sequence", 1e7),
        ],
        fields=[
            Field("accumulation_steps", C, "micro-batches each replica ran"),
            Field("tokens_per_step", C, "tokens consumed in the step"),
            Field("sequences_per_replica", C, "sequences dealt to one replica"),
        ],
    )
    declare(
        "witness.par_batch",
        Derivation.SIMULATED,
        "deals the sequences round-robin and consumes them micro-batch by micro-batch "
        "(quizcoll.witnesses.par_batch)",
    )
    add(
        "witness.par_context",
        _guard(context),
        params=[
            _int("seq_len", "tokens N", 1e8),
            _int("cp", "context-parallel GPUs P", 4096),
            _int("heads", "query heads", 1 << 16),
            _int("kv_heads", "KV heads", 1 << 16),
            _int("head_dim", "head size", 1 << 16),
            _dtype("dtype", "activations"),
        ],
        fields=[
            Field("ulysses_forward_bytes", B, "Ulysses, one layer's forward, GPU 0"),
            Field("ring_forward_bytes", B, "ring attention, one layer's forward, GPU 0"),
            Field("ring_hops", C, "hops until every GPU saw every block"),
        ],
    )
    declare(
        "witness.par_context",
        Derivation.SIMULATED,
        "enumerates head ownership for Ulysses' all-to-alls and steps ring attention's K/V "
        "hops until every GPU saw every block (quizcoll.witnesses.par_context)",
    )
    add(
        "witness.par_ring_attention",
        _guard(ring_attention),
        params=[
            _int("seq_len", "tokens N", 1e8),
            _int("cp", "context-parallel GPUs P", 4096),
            _int("kv_heads", "KV heads", 1 << 16),
            _int("head_dim", "head size", 1 << 16),
            _dtype("dtype", "activations"),
        ],
        fields=[
            Field("ring_forward_bytes", B, "ring attention, one layer's forward, GPU 0"),
            Field("ring_hops", C, "hops until every GPU saw every block"),
        ],
    )
    declare(
        "witness.par_ring_attention",
        Derivation.SIMULATED,
        "steps ring attention's K/V hops until every GPU saw every block "
        "(quizcoll.witnesses.par_context)",
    )
    add(
        "witness.par_micro_batches",
        _guard(micro_batches),
        params=[
            _int("stages", "pipeline stages p", 64),
            _float("target", "largest bubble share of the iteration", 1, minimum=1e-6),
            _int("virtual_stages", "model chunks per device v", 16, default=1),
        ],
        fields=[
            Field("micro_batches", C, "fewest micro-batches meeting the target"),
            Field("bubble_over_total", R, "simulated bubble there"),
        ],
    )
    declare(
        "witness.par_micro_batches",
        Derivation.SEARCHED,
        "bisects m over an op-by-op run of the 1F1B or interleaved schedule "
        "(quizcoll.witnesses.par_pipeline)",
    )
    add(
        "witness.par_accum",
        _guard(accum),
        params=[
            Param("mode", ParamKind.STR, "ddp or fsdp", choices=("ddp", "fsdp")),
            _float("params", "parameters", big, minimum=1),
            _int("ranks", "data-parallel GPUs", 1024),
            _int("micro_batches", "micro-batches per optimizer step", 1024),
            Param("grad_dtype", ParamKind.STR, "gradient dtype", choices=tuple(_BITS)),
            Param(
                "param_dtype", ParamKind.STR, "gathered dtype", choices=tuple(_BITS), default="bf16"
            ),
            Param(
                "sync_every_micro_batch", ParamKind.BOOL, "reduce every micro-batch", default=False
            ),
            _int("units", "wrapped units / buckets", 1024, default=4),
        ],
        fields=[
            Field("bytes_sent", B, "bytes GPU 0 sends per optimizer step"),
            Field("gather_bytes", B, "of which parameter all-gathers"),
            Field("gradient_bytes", B, "of which gradient reductions"),
            Field("unsharded_grad_bytes", B, "most unsharded gradient FSDP keeps between"),
            Field("collectives", C, "collectives issued"),
        ],
    )
    declare(
        "witness.par_accum",
        Derivation.SIMULATED,
        f"steps each micro-batch's forward and backward unit by unit; every collective {_STEPPED}",
    )
    widths = [
        _dtype("weight_dtype", "weights"),
        _dtype("master_dtype", "master copy", "fp32"),
        _dtype("moment_dtype", "optimizer moments", "fp32"),
        _int("moments", "optimizer moments", 4, minimum=0, default=2),
    ]
    add(
        "witness.par_flat_checkpoint",
        _guard(flat_checkpoint),
        params=[
            _float("params", "parameters", big, minimum=1),
            _int("ranks", "ranks", 1 << 16),
            *widths,
            _float("rank_bandwidth", "one rank's write rate", 1e13, default=0.0),
            _float("storage_bandwidth", "the storage's aggregate rate", 1e15, default=0.0),
        ],
        fields=[
            Field("shard_bytes", B, "bytes the busiest rank writes"),
            Field("total_bytes", B, "the whole checkpoint"),
            Field("write_time_s", S, "clocked write, the last rank's finish"),
        ],
    )
    declare(
        "witness.par_flat_checkpoint",
        Derivation.SIMULATED,
        "slices every saved tensor over the ranks and clocks the writes sharing the "
        "storage's rate (quizcoll.witnesses.par_checkpoint)",
    )
    add(
        "witness.par_layout_checkpoint",
        _guard(layout_checkpoint),
        params=[
            _float("params", "parameters", big, minimum=1),
            _int("tp", "tensor-parallel degree", 1024),
            _int("pp", "pipeline-parallel degree", 1024),
            _int("dp", "data-parallel degree", 1 << 16),
            *widths,
            Param("distributed_optimizer", ParamKind.BOOL, "states sharded over DP", default=True),
        ],
        fields=[
            Field("max_rank_bytes", B, "bytes the busiest rank writes"),
            Field("total_bytes", B, "the whole checkpoint"),
        ],
    )
    declare(
        "witness.par_layout_checkpoint",
        Derivation.ENUMERATED,
        "lists every chunk of every tensor with its holders and writes it from replica 0 "
        "(quizcoll.witnesses.par_checkpoint)",
    )
