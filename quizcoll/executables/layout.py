"""TP × PP × DP × CP × EP layout executables (``layout.*``): validity against Megatron-Core's
rules, per-dimension traffic of a training step, and the smallest valid tensor-parallel
degree that serves a model on a GPU (review row M3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Field, Param, ParamKind, Registry
from deck.units import format_count
from quizcoll.executables.common import (
    MAX_PARAMS,
    B,
    C,
    T,
    count_param,
    dtype_param,
    guard,
    overhead_param,
    sizes,
    utilization_param,
    value_bytes,
    yes,
)
from quizcoll.memory import inference
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.gpus import DEFAULT_UTILIZATION, find_gpu, gpu_names
from quizcoll.memory.params import count_parameters
from quizcoll.systems import layout as lo
from quizcoll.systems import moe

MAX_GPUS = 1_000_000


def check(
    world: int,
    tp: int,
    pp: int,
    model: str | None = None,
    heads: int = 0,
    kv_heads: int = 0,
    layers: int = 0,
    cp: int = 1,
    ep: int = 1,
    experts: int = 0,
    seq_len: int = 0,
    virtual_stages: int = 1,
    gpus_per_node: int = 8,
) -> dict[str, Any]:
    """Is world = TP × PP × DP × CP (with EP) a valid Megatron-Core layout for the model?"""
    if model is not None:
        if heads or kv_heads or layers or experts:
            raise ArgumentError("give either model or heads/kv_heads/layers/experts, not both")
        cfg = load_model(model)
        heads, kv_heads, layers, experts = (
            cfg.num_heads,
            cfg.num_kv_heads,
            cfg.num_layers,
            cfg.num_experts,
        )
    elif not (heads and layers):
        raise ArgumentError("give a model, or heads and layers (kv_heads defaults to heads)")
    lay = lo.check_layout(
        world=world,
        tp=tp,
        pp=pp,
        cp=cp,
        ep=ep,
        heads=heads,
        kv_heads=kv_heads or heads,
        layers=layers,
        experts=experts,
        seq_len=seq_len,
        virtual_stages=virtual_stages,
        gpus_per_node=gpus_per_node,
    )
    return {
        "data_parallel": lay.dp,
        "valid": yes(lay.valid),
        "problem": lay.problem,
        "tp_within_node": yes(lay.tp_within_node),
        "model_parallel": tp * pp * cp,
    }


def _explain_check(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    verdict = "valid" if r["valid"] == "yes" else f"invalid: {r['problem']}"
    return (
        f"world {args['world']} = TP {args['tp']} × PP {args['pp']} × CP {args['cp']} × DP "
        f"{r['data_parallel']}; **{verdict}**; TP inside one {args['gpus_per_node']}-GPU node: "
        f"{r['tp_within_node']}."
    )


def traffic(
    seq_len: int,
    micro_batch: int,
    micro_batches: int,
    tp: int,
    pp: int,
    dp: int,
    model: str | None = None,
    params: int = 0,
    hidden: int = 0,
    layers: int = 0,
    activation_dtype: str = "bf16",
    grad_dtype: str = "fp32",
) -> dict[str, Any]:
    """Per-GPU bytes of one training step by dimension: TP all-reduces, PP sends, DP all-reduce."""
    if model is not None:
        if params or hidden or layers:
            raise ArgumentError("give either model or params/hidden/layers, not both")
        cfg = load_model(model)
        params, hidden, layers = count_parameters(cfg).total, cfg.hidden_size, cfg.num_layers
    elif not (params and hidden and layers):
        raise ArgumentError("give a model, or params, hidden and layers")
    t = lo.layout_traffic(
        parameters=params,
        hidden=hidden,
        layers=layers,
        seq_len=seq_len,
        micro_batch=micro_batch,
        micro_batches=micro_batches,
        tp=tp,
        pp=pp,
        dp=dp,
        activation_bytes=value_bytes(activation_dtype),
        grad_bytes=value_bytes(grad_dtype),
    )
    return {
        "tp_bytes": t.tp_bytes,
        "pp_bytes": t.pp_bytes,
        "pp_group_bytes": t.pp_group_bytes,
        "dp_bytes": t.dp_bytes,
        "total_bytes": t.total_bytes,
        "parameters": params,
    }


def _explain_traffic(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"Per GPU per step: TP 8·s·b·h·(t − 1)/t per layer per micro-batch = "
        f"**{sizes(r['tp_bytes'])}**; PP 2·s·b·h/t per micro-batch (Megatron's scatter/gather) = {sizes(r['pp_bytes'])}; DP "
        f"2(d − 1)/d of Ψ/(TP·PP) gradients = {sizes(r['dp_bytes'])}; total "
        f"{sizes(r['total_bytes'])}."
    )


def tp_degree(
    model: str,
    gpu: str = "a100-80gb",
    dtype: str = "fp16",
    kv_dtype: str = "auto",
    context: int = 4096,
    batch: int = 1,
    utilization: float = DEFAULT_UTILIZATION,
    overhead: int = inference.DEFAULT_OVERHEAD_BYTES,
    gpus_per_node: int = 8,
) -> dict[str, Any]:
    """Smallest tensor-parallel degree (heads rule, ≤ GPUs per node) whose share fits a GPU."""
    from quizcoll.memory.formats import parse_format, parse_kv_dtype

    cfg = load_model(model)
    choice = lo.tp_degree(
        cfg,
        parse_format(dtype),
        find_gpu(gpu),
        kv_format=None if kv_dtype == "auto" else parse_kv_dtype(kv_dtype),
        context=context,
        batch=batch,
        utilization=utilization,
        overhead_bytes=overhead,
        gpus_per_node=gpus_per_node,
    )
    return {
        "tp_degree": choice.tp,
        "fits": yes(choice.tp > 0),
        "valid_degrees": ", ".join(map(str, choice.valid_degrees)),
        "per_gpu_bytes": choice.per_gpu_bytes,
        "usable_bytes_per_gpu": choice.usable_bytes,
        "memory_gpus": choice.memory_gpus,
        "max_position_embeddings": cfg.max_position_embeddings or 0,
    }


def _explain_tp(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    head = (
        f"Valid TP degrees for {args['model']} (heads and KV heads split, ≤ "
        f"{args['gpus_per_node']} per node): {r['valid_degrees']}. Memory alone asks for "
        f"{format_count(r['memory_gpus'], 'GPUs')}"
    )
    if r["fits"] == "yes":
        return (
            f"{head}; the smallest valid degree that fits is **TP = {r['tp_degree']}**, "
            f"{sizes(r['per_gpu_bytes'])} per GPU of {sizes(r['usable_bytes_per_gpu'])} usable."
        )
    return (
        f"{head}; **no valid degree within one node fits** ({sizes(r['per_gpu_bytes'])} per GPU)."
    )


def register(registry: Registry) -> None:
    from quizcoll.executables.memory import FORMATS
    from quizcoll.memory.formats import KV_DTYPES

    optional_model = Param(
        "model", ParamKind.STR, "a built-in model", choices=model_names(), default=None
    )
    zero_count = {"minimum": 0, "default": 0}
    registry.add_function(
        "layout.check",
        guard(check),
        params=[
            count_param("world", "GPUs", MAX_GPUS),
            count_param("tp", "tensor-parallel size", 4096),
            count_param("pp", "pipeline-parallel size", 4096),
            optional_model,
            count_param("heads", "attention heads", 4096, **zero_count),
            count_param("kv_heads", "KV heads (default: heads)", 4096, **zero_count),
            count_param("layers", "layers", 10_000, **zero_count),
            count_param("cp", "context-parallel size", 4096, default=1),
            count_param("ep", "expert-parallel size", 4096, default=1),
            count_param("experts", "experts (MoE)", moe.MAX_EXPERTS, **zero_count),
            count_param("seq_len", "sequence length (CP rule)", 1e8, **zero_count),
            count_param("virtual_stages", "virtual pipeline stages", 64, default=1),
            count_param("gpus_per_node", "GPUs per node", 1024, default=8),
        ],
        fields=[
            Field("data_parallel", C, "DP = world / (TP·PP·CP); 0 if it does not split"),
            Field("valid", T, "yes if every divisibility rule holds"),
            Field("problem", T, "the first rule broken, or none"),
            Field("tp_within_node", T, "yes if TP ≤ GPUs per node"),
            Field("model_parallel", C, "TP × PP × CP"),
        ],
        explain=_explain_check,
    )
    registry.add_function(
        "layout.traffic",
        guard(traffic),
        params=[
            count_param("seq_len", "sequence length s", 1e8),
            count_param("micro_batch", "micro-batch b", 1e5),
            count_param("micro_batches", "micro-batches per step m", 1e5),
            count_param("tp", "tensor-parallel size", 4096),
            count_param("pp", "pipeline-parallel size", 4096),
            count_param("dp", "data-parallel size", MAX_GPUS),
            optional_model,
            count_param("params", "parameters Ψ", MAX_PARAMS, **zero_count),
            count_param("hidden", "hidden size h", 1e6, **zero_count),
            count_param("layers", "layers", 10_000, **zero_count),
            dtype_param("activation_dtype", "activation dtype", "bf16"),
            dtype_param("grad_dtype", "all-reduced gradient dtype", "fp32"),
        ],
        fields=[
            Field("tp_bytes", B, "tensor-parallel all-reduces"),
            Field("pp_bytes", B, "one GPU's pipeline sends (middle stage, scatter/gather: 1/TP)"),
            Field("pp_group_bytes", B, "the whole boundary tensor its TP group passes on"),
            Field("dp_bytes", B, "data-parallel gradient all-reduce"),
            Field("total_bytes", B, "all three"),
            Field("parameters", C, "Ψ"),
        ],
        explain=_explain_traffic,
    )
    registry.add_function(
        "layout.tp_degree",
        guard(tp_degree),
        params=[
            Param("model", ParamKind.STR, "a built-in model", choices=model_names()),
            Param("gpu", ParamKind.STR, "GPU", choices=gpu_names(), default="a100-80gb"),
            Param(
                "dtype", ParamKind.STR, "weight dtype or format", choices=FORMATS, default="fp16"
            ),
            Param(
                "kv_dtype",
                ParamKind.STR,
                "KV-cache dtype",
                choices=("auto", *KV_DTYPES),
                default="auto",
            ),
            count_param("context", "tokens per sequence", 1e7, default=4096),
            count_param("batch", "sequences", 4096, default=1),
            utilization_param(),
            overhead_param(),
            count_param("gpus_per_node", "GPUs per node", 64, default=8),
        ],
        fields=[
            Field("tp_degree", C, "smallest valid TP degree that fits; 0 if none in a node"),
            Field("fits", T, "yes if a valid degree within a node fits"),
            Field("valid_degrees", T, "TP degrees the heads allow, up to a node"),
            Field("per_gpu_bytes", B, "memory per GPU at that degree"),
            Field("usable_bytes_per_gpu", B, "usable memory of one GPU"),
            Field("memory_gpus", C, "GPUs by memory alone, ignoring the heads rule"),
            Field("max_position_embeddings", C, "the model's trained context"),
        ],
        explain=_explain_tp,
    )
