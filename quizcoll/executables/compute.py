"""Compute executables: GPU peaks and bandwidth (``gpu.specs``), training FLOPs, MFU/HFU,
training time and Chinchilla's token budget (``training.flops``, ``training.mfu``,
``training.time``, ``training.chinchilla``). FLOP counts and FLOP/s are COUNT fields (the
registry has no FLOP dimension); cards label them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from deck.units import format_rate, format_seconds
from quizcoll.executables.common import (
    MAX_TOKENS,
    B,
    C,
    R,
    T,
    count_param,
    guard,
    num,
    params_param,
    sci,
)
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.gpus import COMPUTE_DTYPES, compute_specs, find_gpu, gpu_names, peak_flops
from quizcoll.systems import flops as fl


def gpu_specs(gpu: str, dtype: str = "bf16") -> dict[str, Any]:
    """A GPU's dense tensor-core peak in a dtype, its memory bandwidth and the ridge point."""
    device = find_gpu(gpu)
    specs = compute_specs(device)
    peak = peak_flops(device, dtype)
    return {
        "peak_flops": peak,
        "peak_tflops": peak / 1e12,
        "hbm_bandwidth": specs.hbm_bandwidth,
        "memory_bytes": device.memory_bytes,
        "ridge_point": peak / specs.hbm_bandwidth,
        "gpu_name": device.name,
        "source": specs.source,
    }


def _explain_specs(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{r['gpu_name']}: {num(r['peak_tflops'])} dense {args['dtype']} TFLOP/s, "
        f"{format_rate(r['hbm_bandwidth'])} memory bandwidth; ridge point = peak / bandwidth = "
        f"**{num(r['ridge_point'])} FLOPs per byte** ({r['source']})."
    )


def _flops(
    params: int,
    tokens: float,
    seq_len: int,
    model: str | None,
    layers: int,
    heads: int,
    head_dim: int,
    recompute: str,
) -> fl.TrainingFlops:
    """Training FLOPs with the attention shape from a catalog model or given explicitly."""
    if model is not None:
        if layers or heads or head_dim:
            raise ArgumentError("give either model or layers/heads/head_dim, not both")
        cfg = load_model(model)
        layers, heads, head_dim = cfg.num_layers, cfg.num_heads, cfg.head_dim
    attention = fl.Attention(layers, heads, head_dim)
    return fl.training_flops(params, tokens, seq_len, attention, fl.check_recompute(recompute))


def training_flops(
    params: int,
    tokens: float,
    seq_len: int = 0,
    model: str | None = None,
    layers: int = 0,
    heads: int = 0,
    head_dim: int = 0,
    recompute: str = "none",
) -> dict[str, Any]:
    """Training FLOPs: 6N per token plus 12·L·H·Q·T attention (PaLM), and recomputation's extra."""
    f = _flops(params, tokens, seq_len, model, layers, heads, head_dim, recompute)
    return {
        "model_flops": f.model_flops,
        "hardware_flops": f.hardware_flops,
        "model_flops_per_token": f.model_flops_per_token,
        "hardware_flops_per_token": f.hardware_flops_per_token,
        "attention_flops_per_token": f.attention_flops_per_token,
        "attention_share": f.attention_flops_per_token / f.model_flops_per_token,
    }


def _explain_flops(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    # The attention term needs the model's shape (layers L, heads H, head size Q, context
    # T); without it the estimate is 6N alone, and "attention … = 0" would read as a claim.
    attention = r["attention_flops_per_token"]
    text = f"6N = 6 × {sci(args['params'])} = {sci(6 * args['params'])} FLOPs per token"
    if attention:
        text += f" + attention 12·L·H·Q·T = {sci(attention)}"
    text += f" → × {sci(args['tokens'])} tokens = **{sci(r['model_flops'])} model FLOPs**"
    if not attention:
        text += " (attention not counted: no layer shape given)"
    if args["recompute"] != "none":
        text += f"; with {args['recompute']} recomputation the GPUs do {sci(r['hardware_flops'])}"
    return text + "."


def training_time(
    params: int,
    tokens: float,
    gpus: int,
    gpu: str = "h100-80gb",
    dtype: str = "bf16",
    mfu: float = 0.4,
) -> dict[str, Any]:
    """How long 6·N·D FLOPs take on ``gpus`` GPUs at a model-FLOPs utilisation."""
    flops = fl.training_flops(params, tokens).model_flops
    peak = peak_flops(find_gpu(gpu), dtype)
    t = fl.training_time(flops, gpus, peak, mfu)
    return {
        "time_s": t.seconds,
        "days": t.days,
        "gpu_hours": t.gpu_hours,
        "model_flops": flops,
        "peak_flops_per_gpu": peak,
        "cluster_flops": t.cluster_flops,
    }


def _explain_time(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"6 × {sci(args['params'])} × {sci(args['tokens'])} = {sci(r['model_flops'])} FLOPs over "
        f"{args['gpus']:,} × {sci(r['peak_flops_per_gpu'])} FLOP/s × MFU {num(args['mfu'])} = "
        f"{sci(r['cluster_flops'])} FLOP/s → {format_seconds(r['time_s'])} = "
        f"**{num(r['days'])} days** ({num(r['gpu_hours'])} GPU-hours)."
    )


def mfu(
    params: int,
    tokens_per_second: float,
    gpus: int,
    gpu: str = "h100-80gb",
    dtype: str = "bf16",
    seq_len: int = 0,
    model: str | None = None,
    layers: int = 0,
    heads: int = 0,
    head_dim: int = 0,
    recompute: str = "none",
) -> dict[str, Any]:
    """MFU and HFU (PaLM App. B) of a measured training throughput."""
    f = _flops(params, 1, seq_len, model, layers, heads, head_dim, recompute)
    u = fl.utilization(tokens_per_second, gpus, peak_flops(find_gpu(gpu), dtype), f)
    return {
        "mfu": u.mfu,
        "hfu": u.hfu,
        "achieved_flops_per_gpu": u.achieved_model_flops,
        "model_flops_per_token": f.model_flops_per_token,
    }


def _explain_mfu(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{num(args['tokens_per_second'])} tokens/s over {args['gpus']} GPUs × "
        f"{sci(r['model_flops_per_token'])} FLOPs per token = "
        f"{sci(r['achieved_flops_per_gpu'])} FLOP/s per GPU; over the `{args['gpu']}`'s "
        f"{args['dtype']} peak: **MFU {num(r['mfu'])}**, HFU {num(r['hfu'])}."
    )


def chinchilla(
    params: int | None = None, compute: float | None = None, tokens_per_param: float = 20
) -> dict[str, Any]:
    """Compute-optimal tokens for a model size, or size and tokens for a FLOP budget."""
    if (params is None) == (compute is None):
        raise ArgumentError("give either params or compute")
    if params is not None:
        plan = fl.chinchilla_for_parameters(params, tokens_per_param)
    else:
        assert compute is not None
        plan = fl.chinchilla_for_compute(compute, tokens_per_param)
    return {
        "parameters": plan.parameters,
        "tokens": plan.tokens,
        "compute_flops": plan.compute_flops,
    }


def _explain_chinchilla(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    k = num(args["tokens_per_param"])
    if args["params"] is not None:
        return (
            f"D ≈ {k} × N = {k} × {sci(r['parameters'])} = **{sci(r['tokens'])} tokens**; "
            f"C = 6ND = {sci(r['compute_flops'])} FLOPs."
        )
    return (
        f"C = 6·N·D with D = {k}·N ⇒ N = √(C / {num(6 * args['tokens_per_param'])}) = "
        f"**{sci(r['parameters'])} parameters**, D = {sci(r['tokens'])} tokens."
    )


def register(registry: Registry) -> None:
    gpu = Param("gpu", ParamKind.STR, "GPU", choices=gpu_names(), default="h100-80gb")
    dtype = Param(
        "dtype", ParamKind.STR, "tensor-core dtype", choices=COMPUTE_DTYPES, default="bf16"
    )
    tokens = Param("tokens", ParamKind.FLOAT, "training tokens", minimum=1, maximum=MAX_TOKENS)
    gpus = count_param("gpus", "GPUs", 1e6)
    attention = [
        count_param("seq_len", "sequence length T (attention FLOPs)", 1e7, minimum=0, default=0),
        Param(
            "model", ParamKind.STR, "catalog model for L, H, Q", choices=model_names(), default=None
        ),
        count_param("layers", "layers L", 1000, minimum=0, default=0),
        count_param("heads", "attention heads H", 4096, minimum=0, default=0),
        count_param("head_dim", "head size Q", 4096, minimum=0, default=0),
        Param(
            "recompute",
            ParamKind.STR,
            "activation recomputation",
            choices=tuple(r.value for r in fl.Recompute),
            default="none",
        ),
    ]
    registry.add_function(
        "gpu.specs",
        guard(gpu_specs),
        params=[Param("gpu", ParamKind.STR, "GPU", choices=gpu_names()), dtype],
        fields=[
            Field("peak_flops", C, "dense tensor-core FLOP/s"),
            Field("peak_tflops", R, "the same in TFLOP/s"),
            Field("hbm_bandwidth", Dimension.RATE, "memory bandwidth"),
            Field("memory_bytes", B, "memory the GPU reports"),
            Field("ridge_point", R, "FLOPs per byte where compute-bound starts"),
            Field("source", T, "the datasheet the figures come from"),
        ],
        explain=_explain_specs,
    )
    registry.add_function(
        "training.flops",
        guard(training_flops),
        params=[params_param(), tokens, *attention],
        fields=[
            Field("model_flops", C, "6N·D + attention: the FLOPs the model needs"),
            Field("hardware_flops", C, "including recomputation"),
            Field("model_flops_per_token", C, "6N + 12LHQT"),
            Field("hardware_flops_per_token", C, "with recomputation"),
            Field("attention_flops_per_token", C, "12LHQT"),
            Field("attention_share", R, "attention's share of the model FLOPs"),
        ],
        explain=_explain_flops,
    )
    registry.add_function(
        "training.time",
        guard(training_time),
        params=[
            params_param(),
            tokens,
            gpus,
            gpu,
            dtype,
            Param(
                "mfu",
                ParamKind.FLOAT,
                "model FLOPs utilisation",
                minimum=0.01,
                maximum=1,
                default=0.4,
            ),
        ],
        fields=[
            Field("time_s", Dimension.SECONDS, "wall time"),
            Field("days", R, "wall time in days"),
            Field("gpu_hours", R, "GPU-hours"),
            Field("model_flops", C, "6·N·D"),
            Field("peak_flops_per_gpu", C, "dense peak FLOP/s of one GPU"),
            Field("cluster_flops", C, "achieved model FLOP/s of all GPUs"),
        ],
        explain=_explain_time,
    )
    registry.add_function(
        "training.mfu",
        guard(mfu),
        params=[
            params_param(),
            Param(
                "tokens_per_second",
                ParamKind.FLOAT,
                "training throughput of all GPUs",
                minimum=1e-3,
                maximum=1e12,
            ),
            gpus,
            gpu,
            dtype,
            *attention,
        ],
        fields=[
            Field("mfu", R, "model FLOPs utilisation"),
            Field("hfu", R, "hardware FLOPs utilisation (counts recomputation)"),
            Field("achieved_flops_per_gpu", C, "model FLOP/s per GPU"),
            Field("model_flops_per_token", C, "6N + 12LHQT"),
        ],
        explain=_explain_mfu,
    )
    registry.add_function(
        "training.chinchilla",
        guard(chinchilla),
        params=[
            params_param(default=None),
            Param(
                "compute", ParamKind.FLOAT, "FLOP budget", minimum=1e6, maximum=1e32, default=None
            ),
            Param(
                "tokens_per_param",
                ParamKind.FLOAT,
                "tokens per parameter",
                minimum=0.1,
                maximum=1e4,
                default=20.0,
            ),
        ],
        fields=[
            Field("parameters", C, "model size"),
            Field("tokens", C, "training tokens"),
            Field("compute_flops", C, "6·N·D"),
        ],
        explain=_explain_chinchilla,
    )
