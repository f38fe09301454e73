"""Training-systems executables: logits memory (``logits.memory``), the DeepSeek-V3 bubble
table (``bubbles.table``), gradient-accumulation and FSDP traffic per optimizer step
(``accum.traffic``) and sharded checkpoints (``checkpoint.shards``).

``accum.traffic`` sums the bytes of every collective of a step as the collective simulator's
ring moves them, micro-batch by micro-batch; ``checkpoint.shards`` walks the ranks of the
layout; the cards hold both to closed forms.
"""

from __future__ import annotations

from typing import Any

from deck.cards.registry import Field, Param, ParamKind, Registry
from quizcoll.executables.common import B, C, R, S, count_param, guard
from quizcoll.systems import checkpoint_shards as ckpt
from quizcoll.systems import pipeline_table as pt

VALUE_BYTES = {"fp32": 4, "bf16": 2, "fp8": 1}


def logits_memory(model: str, tokens: int, tp: int = 1) -> dict[str, Any]:
    """Logits of ``tokens`` positions over the model's vocabulary (vocab-parallel over tp)."""
    from quizcoll.memory.catalog import load_model
    from quizcoll.systems.errors import SystemsInputError

    vocab = load_model(model).vocab_size
    if vocab % tp:
        raise SystemsInputError(f"vocab {vocab} is not divisible by tp {tp}")
    elements = tokens * (vocab // tp)
    return {
        "vocab": vocab,
        "bf16_bytes": elements * 2,
        "fp32_bytes": elements * 4,
        "bf16_and_fp32_bytes": elements * 6,
    }


def table(method: str, pp: int, f: float, b: float, w: float, fb: float = 0.0) -> dict[str, Any]:
    """One row of DeepSeek-V3's Table 2 at the given chunk times."""
    r = pt.row(method, pp, f, b, w, fb)
    return {
        "bubble": r.bubble,
        "parameter_copies": r.parameter_copies,
        "activation_micro_batches": r.activation_micro_batches,
    }


def _ring(collective: str, ranks: int, size: float) -> float:
    from quizcoll.executables.collectives import cost

    return cost(
        collective=collective,
        algorithm="ring",
        ranks=ranks,
        size=round(size),
        dtype="int8",  # byte-sized elements: any byte count is a whole buffer
        root=0,
        link="nvlink",
        latency=None,
        bandwidth=None,
    )["max_bytes_sent"]


def traffic(
    mode: str,
    params: float,
    ranks: int,
    micro_batches: int,
    grad_dtype: str = "bf16",
    param_dtype: str = "bf16",
    sync_every_micro_batch: bool = False,
) -> dict[str, Any]:
    """Bytes one GPU sends per optimizer step, collective by collective, micro-batch by
    micro-batch: DDP all-reduces gradients (every micro-batch, or once with ``no_sync``);
    FSDP all-gathers parameters twice per micro-batch and reduce-scatters gradients (every
    micro-batch, or once when it keeps unsharded gradients)."""
    g, p = VALUE_BYTES[grad_dtype], VALUE_BYTES[param_dtype]
    gather = reduce = 0.0
    for m in range(micro_batches):
        syncs = sync_every_micro_batch or m == micro_batches - 1
        if mode == "ddp":
            if syncs:
                reduce += _ring("all_reduce", ranks, params * g)
        else:
            gather += 2 * _ring("all_gather", ranks, params * p / ranks)
            if syncs:
                reduce += _ring("reduce_scatter", ranks, params * g)
    return {
        "bytes_sent": gather + reduce,
        "gather_bytes": gather,
        "gradient_bytes": reduce,
        "unsharded_grad_bytes": 0.0 if mode == "ddp" or sync_every_micro_batch else params * g,
    }


def shards(
    params: float,
    tp: int,
    pp: int,
    dp: int,
    distributed_optimizer: bool = True,
    gpus_per_node: int = 8,
    storage_bandwidth: float = 1e11,
    node_bandwidth: float = 2.5e10,
) -> dict[str, Any]:
    """What each rank of a tp × pp × dp layout writes in a sharded checkpoint, and how long."""
    c = ckpt.shards(
        params,
        tp,
        pp,
        dp,
        distributed_optimizer=distributed_optimizer,
        gpus_per_node=gpus_per_node,
        storage_bandwidth=storage_bandwidth,
        node_bandwidth=node_bandwidth,
    )
    return {
        "total_bytes": c.total_bytes,
        "max_rank_bytes": c.max_rank_bytes,
        "max_node_bytes": c.max_node_bytes,
        "write_s": c.write_s,
    }


def _rate(name: str, help: str, default: float) -> Param:
    return Param(name, ParamKind.RATE, help, minimum=1e6, maximum=1e15, default=default)


def register(registry: Registry) -> None:
    from quizcoll.memory.catalog import model_names

    registry.add_function(
        "logits.memory",
        guard(logits_memory),
        params=[
            Param("model", ParamKind.STR, "catalog model", choices=model_names()),
            count_param("tokens", "positions: micro-batch × sequence", 1 << 26),
            count_param("tp", "vocab-parallel degree", 1024, default=1),
        ],
        fields=[
            Field("vocab", C, "vocabulary size"),
            Field("bf16_bytes", B, "bf16 logits per GPU"),
            Field("fp32_bytes", B, "fp32 logits per GPU (the loss's upcast)"),
            Field("bf16_and_fp32_bytes", B, "bf16 logits and their fp32 copy"),
        ],
    )
    t = Param("f", ParamKind.FLOAT, "forward chunk time F", minimum=0, maximum=1e6)
    registry.add_function(
        "bubbles.table",
        guard(table),
        params=[
            Param("method", ParamKind.STR, "1f1b, zb1p or dualpipe", choices=pt.ROWS),
            count_param("pp", "pipeline stages", 1024, minimum=2),
            t,
            Param("b", ParamKind.FLOAT, "full backward chunk time B", minimum=0, maximum=1e6),
            Param("w", ParamKind.FLOAT, "weight-gradient chunk time W", minimum=0, maximum=1e6),
            Param(
                "fb",
                ParamKind.FLOAT,
                "overlapped forward-and-backward time F&B",
                minimum=0,
                maximum=1e6,
                default=0.0,
            ),
        ],
        fields=[
            Field("bubble", R, "bubble time, in the chunk times' unit"),
            Field("parameter_copies", C, "copies of the stage's parameters"),
            Field("activation_micro_batches", C, "peak activations, in micro-batches"),
        ],
    )
    registry.add_function(
        "accum.traffic",
        guard(traffic),
        params=[
            Param("mode", ParamKind.STR, "ddp or fsdp", choices=("ddp", "fsdp")),
            Param("params", ParamKind.FLOAT, "parameters", minimum=1e3, maximum=1e13),
            count_param("ranks", "data-parallel GPUs", 1024, minimum=2),
            count_param("micro_batches", "micro-batches per optimizer step", 1024),
            Param(
                "grad_dtype",
                ParamKind.STR,
                "gradient dtype",
                choices=tuple(VALUE_BYTES),
                default="bf16",
            ),
            Param(
                "param_dtype",
                ParamKind.STR,
                "dtype FSDP gathers",
                choices=tuple(VALUE_BYTES),
                default="bf16",
            ),
            Param(
                "sync_every_micro_batch",
                ParamKind.BOOL,
                "reduce gradients every micro-batch",
                default=False,
            ),
        ],
        fields=[
            Field("bytes_sent", B, "bytes one GPU sends per optimizer step"),
            Field("gather_bytes", B, "of which parameter all-gathers"),
            Field("gradient_bytes", B, "of which gradient reductions"),
            Field("unsharded_grad_bytes", B, "gradient memory kept between micro-batches"),
        ],
    )
    registry.add_function(
        "checkpoint.shards",
        guard(shards),
        params=[
            Param("params", ParamKind.FLOAT, "parameters", minimum=1e3, maximum=1e13),
            count_param("tp", "tensor-parallel degree", 1024),
            count_param("pp", "pipeline-parallel degree", 1024),
            count_param("dp", "data-parallel degree", 1 << 16),
            Param(
                "distributed_optimizer", ParamKind.BOOL, "optimizer sharded over DP", default=True
            ),
            count_param("gpus_per_node", "GPUs per node", 72, default=8),
            _rate("storage_bandwidth", "aggregate filesystem write bandwidth", 1e11),
            _rate("node_bandwidth", "one node's bandwidth to storage", 2.5e10),
        ],
        fields=[
            Field("total_bytes", B, "bytes of the whole checkpoint"),
            Field("max_rank_bytes", B, "bytes the busiest rank writes"),
            Field("max_node_bytes", B, "bytes the busiest node writes"),
            Field("write_s", S, "write time: the slower of storage and the busiest node"),
        ],
    )
