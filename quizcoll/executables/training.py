"""Training-state and data-parallel executables (``training.*``): bytes per parameter by
mixed-precision recipe, ZeRO traffic (ZeRO-3 is 1.5× the all-reduce), ZeRO++, FSDP/HSDP
memory and traffic, and gradient accumulation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Field, Param, ParamKind, Registry
from quizcoll.executables.common import (
    B,
    C,
    R,
    T,
    count_param,
    dtype_param,
    guard,
    num,
    params_param,
    sci,
    sizes,
    value_bytes,
    yes,
)
from quizcoll.memory import training as states
from quizcoll.systems import precision, sharding

MAX_GPUS = 1_000_000


def bytes_per_param(
    recipe: str, data_parallel: int = 1, distributed_optimizer: bool = False, params: int = 1
) -> dict[str, Any]:
    """Model-state bytes per parameter of a mixed-precision recipe (18 for bf16 Megatron-Core)."""
    r = states.recipe_states(states.Recipe(recipe), data_parallel, distributed_optimizer)
    return {
        "bytes_per_parameter": r.bytes_per_parameter,
        "replicated_bytes_per_parameter": r.replicated_bytes,
        "shardable_bytes_per_parameter": r.shardable_bytes,
        "model_state_bytes": r.bytes_per_parameter * params,
    }


def _explain_bytes_per_param(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    rep, shard = r["replicated_bytes_per_parameter"], r["shardable_bytes_per_parameter"]
    if args["distributed_optimizer"]:
        form = f"{rep} + {shard}/d with d = {args['data_parallel']}"
    else:
        form = f"{rep} + {shard}"
    return (
        f"{args['recipe']}: {rep} B of parameters and gradients on every rank + {shard} B of "
        f"fp32 main state and Adam moments = {form} = **{num(r['bytes_per_parameter'])} B per "
        f"parameter**; × {sci(args['params'])} = {sizes(r['model_state_bytes'])}."
    )


def zero_traffic(params: int, gpus: int, zero_stage: int, dtype: str = "bf16") -> dict[str, Any]:
    """Bytes one GPU sends per step at a ZeRO stage (ring collectives): 2Ψ, or 3Ψ for ZeRO-3."""
    t = sharding.zero_traffic(params, gpus, zero_stage, value_bytes(dtype))
    return {
        "sent_bytes": t.sent_bytes,
        "paper_elements": t.paper_elements,
        "ratio_to_all_reduce": t.ratio_to_all_reduce,
        "collectives": t.collectives,
    }


def _explain_zero_traffic(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    n = args["gpus"]
    passes = round(2 * r["ratio_to_all_reduce"])
    return (
        f"ZeRO-{args['zero_stage']}: {r['collectives']}: {passes}Ψ in the ZeRO paper's count, "
        f"{passes}(N − 1)/N · Ψ · {num(value_bytes(args['dtype']))} B per GPU with rings, "
        f"N = {n}: **{sizes(r['sent_bytes'])}**, {num(r['ratio_to_all_reduce'])}× one "
        "all-reduce."
    )


def zeropp(params: int) -> dict[str, Any]:
    """ZeRO++'s cross-node volume against ZeRO-3's: 0.75M against 3M."""
    z = sharding.zero_plus_plus(params)
    return {
        "model_bytes": z.model_bytes,
        "zero3_bytes": z.zero3_bytes,
        "forward_gather_bytes": z.forward_gather_bytes,
        "backward_gather_bytes": z.backward_gather_bytes,
        "gradient_bytes": z.gradient_bytes,
        "zeropp_bytes": z.zeropp_bytes,
        "reduction": z.reduction,
    }


def _explain_zeropp(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"M = 2Ψ = {sizes(r['model_bytes'])}. ZeRO-3 crosses nodes with three times M: "
        f"{sizes(r['zero3_bytes'])}; ZeRO++: int8 forward all-gather, half of M: "
        f"{sizes(r['forward_gather_bytes'])} + backward all-gather inside the node (hpZ) "
        f"{sizes(r['backward_gather_bytes'])} + int4 gradients, a quarter of M: "
        f"{sizes(r['gradient_bytes'])} = "
        f"**{sizes(r['zeropp_bytes'])}**, {num(r['reduction'])}× less."
    )


def fsdp(
    params: int,
    gpus: int,
    units: int,
    shard_size: int = 0,
    param_dtype: str = "bf16",
    reduce_dtype: str = "fp32",
    prefetch: int = 1,
    reshard_after_forward: bool = True,
) -> dict[str, Any]:
    """FSDP (shard_size 0 = all GPUs) or HSDP memory and traffic per GPU; activations apart."""
    plan = sharding.fsdp_plan(
        params,
        gpus,
        units,
        shard_size=shard_size or None,
        param_bytes=precision.dtype_bytes(param_dtype),
        reduce_bytes=precision.dtype_bytes(reduce_dtype),
        prefetch=prefetch,
        reshard_after_forward=reshard_after_forward,
    )
    return {
        "sharded_state_bytes": plan.sharded_state_bytes,
        "unsharded_unit_bytes": plan.unsharded_unit_bytes,
        "forward_peak_bytes": plan.forward_peak_bytes,
        "backward_peak_bytes": plan.backward_peak_bytes,
        "peak_bytes": plan.peak_bytes,
        "shard_sent_bytes": plan.shard_sent_bytes,
        "replicate_sent_bytes": plan.replicate_sent_bytes,
        "sent_bytes": plan.sent_bytes,
        "shard_size": plan.shard_size,
        "replicas": plan.replicas,
        "all_gathers_per_unit": plan.all_gathers_per_unit,
        "hybrid": yes(plan.replicas > 1),
    }


def _explain_fsdp(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    s, rep = r["shard_size"], r["replicas"]
    layout = f"HSDP: shard over {s}, replicate {rep}×" if rep > 1 else f"FSDP over {s} GPUs"
    return (
        f"{layout}. Shard of fp32 params + grads + Adam (16 B/param) / {s} = "
        f"{sizes(r['sharded_state_bytes'])}; one unit all-gathered in {args['param_dtype']} = "
        f"{sizes(r['unsharded_unit_bytes'])}, {1 + args['prefetch']} live with prefetch "
        f"{args['prefetch']}; peak **{sizes(r['peak_bytes'])}**. Per step: "
        f"{r['all_gathers_per_unit']} all-gather(s) + a reduce-scatter over the shard group = "
        f"{sizes(r['shard_sent_bytes'])}, replica all-reduce {sizes(r['replicate_sent_bytes'])}."
    )


def batch(global_batch: int, micro_batch: int, data_parallel: int, seq_len: int) -> dict[str, Any]:
    """Gradient-accumulation steps: global batch = micro-batch × accumulation × DP."""
    plan = precision.batch_plan(global_batch, micro_batch, data_parallel, seq_len)
    return {
        "accumulation_steps": plan.accumulation_steps,
        "tokens_per_step": plan.tokens_per_step,
        "sequences_per_gpu_per_step": plan.micro_batch * plan.accumulation_steps,
    }


def _explain_batch(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{args['global_batch']} = {args['micro_batch']} × accumulation × "
        f"{args['data_parallel']} ⇒ **{r['accumulation_steps']} accumulation steps** (DDP "
        f"skips the all-reduce with no_sync() on all but the last); "
        f"{r['tokens_per_step']:,} tokens per optimizer step."
    )


def register(registry: Registry) -> None:
    gpus = count_param("gpus", "data-parallel GPUs", MAX_GPUS)
    registry.add_function(
        "training.bytes_per_param",
        guard(bytes_per_param),
        params=[
            Param("recipe", ParamKind.STR, "mixed-precision recipe", choices=states.RECIPES),
            count_param("data_parallel", "data-parallel size d", MAX_GPUS, default=1),
            Param(
                "distributed_optimizer",
                ParamKind.BOOL,
                "shard the fp32 state over d (ZeRO-1)",
                default=False,
            ),
            params_param(default=1),
        ],
        fields=[
            Field("bytes_per_parameter", R, "model-state bytes per parameter"),
            Field("replicated_bytes_per_parameter", R, "bytes every rank keeps"),
            Field("shardable_bytes_per_parameter", R, "bytes the distributed optimizer shards"),
            Field("model_state_bytes", B, "bytes per GPU for params parameters"),
        ],
        explain=_explain_bytes_per_param,
    )
    registry.add_function(
        "training.zero_traffic",
        guard(zero_traffic),
        params=[
            params_param(),
            gpus,
            Param("zero_stage", ParamKind.INT, "ZeRO stage", minimum=0, maximum=3),
            dtype_param("dtype", "dtype of the communicated values", "bf16"),
        ],
        fields=[
            Field("sent_bytes", B, "bytes one GPU sends per step"),
            Field("paper_elements", C, "the ZeRO paper's volume: 2Ψ or 3Ψ"),
            Field("ratio_to_all_reduce", R, "traffic over one gradient all-reduce's"),
            Field("collectives", T, "the collectives of one step"),
        ],
        explain=_explain_zero_traffic,
    )
    registry.add_function(
        "training.zeropp",
        guard(zeropp),
        params=[params_param()],
        fields=[
            Field("model_bytes", B, "M: the fp16 model"),
            Field("zero3_bytes", B, "ZeRO-3 cross-node volume (3M)"),
            Field("forward_gather_bytes", B, "qwZ int8 forward all-gather (0.5M)"),
            Field("backward_gather_bytes", B, "hpZ cross-node backward all-gather (0)"),
            Field("gradient_bytes", B, "qgZ int4 gradient exchange (0.25M)"),
            Field("zeropp_bytes", B, "ZeRO++ cross-node volume (0.75M)"),
            Field("reduction", R, "ZeRO-3 over ZeRO++ (4)"),
        ],
        explain=_explain_zeropp,
    )
    policy = ("fp32", "bf16", "fp16")
    registry.add_function(
        "training.fsdp",
        guard(fsdp),
        params=[
            params_param(),
            gpus,
            count_param("units", "FSDP wrapping units (equal sizes)", 1e6),
            count_param(
                "shard_size",
                "GPUs per shard group; 0 = all (FULL_SHARD)",
                MAX_GPUS,
                minimum=0,
                default=0,
            ),
            dtype_param("param_dtype", "mixed-precision param_dtype", "bf16", policy),
            dtype_param("reduce_dtype", "mixed-precision reduce_dtype", "fp32", policy),
            Param(
                "prefetch", ParamKind.INT, "units gathered ahead", minimum=0, maximum=2, default=1
            ),
            Param(
                "reshard_after_forward",
                ParamKind.BOOL,
                "free gathered params after the forward",
                default=True,
            ),
        ],
        fields=[
            Field("sharded_state_bytes", B, "fp32 params, grads and Adam states, sharded"),
            Field("unsharded_unit_bytes", B, "one all-gathered unit in param_dtype"),
            Field("forward_peak_bytes", B, "peak in the forward pass"),
            Field("backward_peak_bytes", B, "peak in the backward pass"),
            Field("peak_bytes", B, "peak parameter and gradient memory per GPU"),
            Field(
                "shard_sent_bytes", B, "per step: all-gathers + reduce-scatter in the shard group"
            ),
            Field("replicate_sent_bytes", B, "per step: gradient all-reduce across replicas"),
            Field("sent_bytes", B, "per step, both dimensions"),
            Field("shard_size", C, "GPUs a parameter is sharded over"),
            Field("replicas", C, "replica groups (1 for FSDP)"),
            Field("all_gathers_per_unit", C, "2 with reshard_after_forward, else 1"),
            Field("hybrid", T, "yes for HSDP"),
        ],
        explain=_explain_fsdp,
    )
    registry.add_function(
        "training.batch",
        guard(batch),
        params=[
            count_param("global_batch", "sequences per optimizer step", 1e8),
            count_param("micro_batch", "sequences per GPU per forward", 1e5),
            count_param("data_parallel", "data-parallel size", MAX_GPUS),
            count_param("seq_len", "tokens per sequence", 1e7),
        ],
        fields=[
            Field("accumulation_steps", C, "micro-batches accumulated per step"),
            Field("tokens_per_step", C, "tokens per optimizer step"),
            Field("sequences_per_gpu_per_step", C, "micro-batch × accumulation"),
        ],
        explain=_explain_batch,
    )
