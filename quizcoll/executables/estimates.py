"""Estimates the training cards need beyond the other executables: the forward and backward
FLOPs of a catalog model per token (``training.pass_flops``), the MFU a finished run's GPU-hours
imply (``training.run_mfu``), a float format from any bit layout (``precision.layout``) and
what many identical live tensors cost PyTorch's caching allocator (``allocator.requests``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Field, Param, ParamKind, Registry
from quizcoll.executables.common import (
    MAX_TOKENS,
    B,
    C,
    R,
    count_param,
    guard,
    num,
    sci,
    sizes,
)
from quizcoll.executables.numerics import FORMAT_FIELDS, format_fields
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.gpus import COMPUTE_DTYPES, find_gpu, gpu_names, peak_flops
from quizcoll.memory.params import count_parameters
from quizcoll.systems import allocator as al
from quizcoll.systems import flops as fl
from quizcoll.systems import precision as pr

SECONDS_PER_HOUR = 3600


def _shape(
    params: int, model: str | None, layers: int, heads: int, head_dim: int
) -> tuple[int, fl.Attention]:
    """The parameters a token uses and the attention shape: from a catalog model (its active
    parameters, for a mixture of experts) or given explicitly."""
    if model is None:
        if not params:
            raise ArgumentError("give params, or a model to count them")
        return params, fl.Attention(layers, heads, head_dim)
    if layers or heads or head_dim:
        raise ArgumentError("give either model or layers/heads/head_dim, not both")
    cfg = load_model(model)
    active = params or count_parameters(cfg).active
    return active, fl.Attention(cfg.num_layers, cfg.num_heads, cfg.head_dim)


def pass_flops(
    params: int = 0,
    model: str | None = None,
    context: int = 0,
    layers: int = 0,
    heads: int = 0,
    head_dim: int = 0,
    tokens: float = 1,
) -> dict[str, Any]:
    """Forward (2N + 4LHQT), backward (twice that) and training FLOPs per token at context T."""
    n, attention = _shape(params, model, layers, heads, head_dim)
    forward = fl.inference_flops_per_token(n, context, attention)
    training = fl.training_flops(n, 1, context, attention).model_flops_per_token
    return {
        "parameters": n,
        "forward_flops_per_token": forward,
        "backward_flops_per_token": training - forward,
        "training_flops_per_token": training,
        "attention_share": (forward - 2 * n) / forward,
        "flops": forward * tokens,
    }


def _explain_pass(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"N = {sci(r['parameters'])}: forward 2N + 4·L·H·Q·T = "
        f"**{sci(r['forward_flops_per_token'])} FLOPs per token** at T = {args['context']:,}, "
        f"backward twice that ({sci(r['backward_flops_per_token'])}), a training step three "
        f"times ({sci(r['training_flops_per_token'])}); attention is "
        f"{num(100 * r['attention_share'])} % of it."
    )


def run_mfu(
    tokens: float,
    gpu_hours: float,
    params: int = 0,
    model: str | None = None,
    seq_len: int = 0,
    gpu: str = "h100-80gb",
    dtype: str = "bf16",
) -> dict[str, Any]:
    """The MFU a finished run implies: model FLOPs over GPU-hours × 3,600 × peak."""
    n, attention = _shape(params, model, 0, 0, 0)
    flops = fl.training_flops(n, tokens, seq_len, attention).model_flops
    if not gpu_hours > 0:
        raise ArgumentError(f"gpu_hours must be positive, got {gpu_hours:g}")
    per_gpu = flops / (gpu_hours * SECONDS_PER_HOUR)
    return {
        "parameters": n,
        "model_flops": flops,
        "achieved_flops_per_gpu": per_gpu,
        "mfu": per_gpu / peak_flops(find_gpu(gpu), dtype),
    }


def _explain_run_mfu(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{sci(r['model_flops'])} model FLOPs over {num(args['gpu_hours'])} GPU-hours × 3,600 s = "
        f"{sci(r['achieved_flops_per_gpu'])} FLOP/s per GPU; over the `{args['gpu']}`'s "
        f"{args['dtype']} peak: **MFU {num(100 * r['mfu'])} %**."
    )


def layout(exponent_bits: int, mantissa_bits: int, specials: str = "ieee") -> dict[str, Any]:
    """A float format's range and precision from any bit layout (1 sign bit, e, m)."""
    return format_fields(
        pr.FloatFormat(
            f"e{exponent_bits}m{mantissa_bits}", exponent_bits, mantissa_bits, pr.Specials(specials)
        )
    )


def _explain_layout(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"E{args['exponent_bits']}M{args['mantissa_bits']} ({args['specials']}): bias "
        f"{r['bias']}, largest **{r['max_finite']:.6g}**, smallest normal {r['min_normal']:.4g}, "
        f"epsilon {r['epsilon']:.4g}."
    )


def requests(bytes: int, count: int) -> dict[str, Any]:
    """``count`` identical live requests: segments, memory_allocated and memory_reserved."""
    r = al.allocate_many(bytes, count)
    return {
        "block_bytes": r.block.block_bytes,
        "segment_bytes": r.block.segment_bytes,
        "blocks_per_segment": r.block.blocks_per_segment,
        "segments": r.segments,
        "allocated_bytes": r.allocated_bytes,
        "reserved_bytes": r.reserved_bytes,
        "cached_free_bytes": r.cached_free_bytes,
        "requested_bytes": bytes * count,
    }


def _explain_requests(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{args['count']:,} × {args['bytes']:,} B: blocks of {r['block_bytes']:,} B, "
        f"{r['blocks_per_segment']} per {sizes(r['segment_bytes'])} segment → {r['segments']:,} "
        f"segments: memory_allocated **{sizes(r['allocated_bytes'])}**, memory_reserved "
        f"{sizes(r['reserved_bytes'])}."
    )


def register(registry: Registry) -> None:
    model = Param("model", ParamKind.STR, "catalog model", choices=model_names(), default=None)
    params = count_param(
        "params", "parameters a token uses (0: the model's)", 1e13, minimum=0, default=0
    )
    shape = [
        count_param("layers", "layers L", 1000, minimum=0, default=0),
        count_param("heads", "attention heads H", 4096, minimum=0, default=0),
        count_param("head_dim", "head size Q", 4096, minimum=0, default=0),
    ]
    registry.add_function(
        "training.pass_flops",
        guard(pass_flops),
        params=[
            params,
            model,
            count_param("context", "tokens attended to (T)", 1e7, minimum=0, default=0),
            *shape,
            Param("tokens", ParamKind.FLOAT, "tokens", minimum=1, maximum=MAX_TOKENS, default=1.0),
        ],
        fields=[
            Field("parameters", C, "N: parameters a token uses"),
            Field("forward_flops_per_token", C, "2N + 4LHQT"),
            Field("backward_flops_per_token", C, "4N + 8LHQT"),
            Field("training_flops_per_token", C, "6N + 12LHQT"),
            Field("attention_share", R, "4LHQT of the forward"),
            Field("flops", C, "forward FLOPs × tokens"),
        ],
        explain=_explain_pass,
    )
    registry.add_function(
        "training.run_mfu",
        guard(run_mfu),
        params=[
            Param("tokens", ParamKind.FLOAT, "training tokens", minimum=1, maximum=MAX_TOKENS),
            Param(
                "gpu_hours", ParamKind.FLOAT, "GPU-hours the run took", minimum=1e-3, maximum=1e12
            ),
            params,
            model,
            count_param("seq_len", "sequence length (attention FLOPs)", 1e7, minimum=0, default=0),
            Param("gpu", ParamKind.STR, "GPU", choices=gpu_names(), default="h100-80gb"),
            Param(
                "dtype", ParamKind.STR, "tensor-core dtype", choices=COMPUTE_DTYPES, default="bf16"
            ),
        ],
        fields=[
            Field("parameters", C, "N"),
            Field("model_flops", C, "6ND (+ attention with seq_len)"),
            Field("achieved_flops_per_gpu", C, "model FLOP/s per GPU"),
            Field("mfu", R, "model FLOPs utilisation"),
        ],
        explain=_explain_run_mfu,
    )
    registry.add_function(
        "precision.layout",
        guard(layout),
        params=[
            Param("exponent_bits", ParamKind.INT, "exponent bits e", minimum=2, maximum=11),
            Param("mantissa_bits", ParamKind.INT, "mantissa bits m", minimum=1, maximum=52),
            Param(
                "specials",
                ParamKind.STR,
                "what the all-ones exponent holds",
                choices=tuple(s.value for s in pr.Specials),
                default="ieee",
            ),
        ],
        fields=list(FORMAT_FIELDS),
        explain=_explain_layout,
    )
    registry.add_function(
        "allocator.requests",
        guard(requests),
        params=[
            Param("bytes", ParamKind.BYTES, "bytes per request", minimum=1, maximum=2**40),
            count_param("count", "identical requests alive at once", al.MAX_REQUESTS),
        ],
        fields=[
            Field("block_bytes", B, "one rounded block"),
            Field("segment_bytes", B, "one cudaMalloc'd segment"),
            Field("blocks_per_segment", C, "requests one segment serves"),
            Field("segments", C, "segments allocated"),
            Field("allocated_bytes", B, "torch.cuda.memory_allocated"),
            Field("reserved_bytes", B, "torch.cuda.memory_reserved"),
            Field("cached_free_bytes", B, "reserved − allocated"),
            Field("requested_bytes", B, "bytes asked for"),
        ],
        explain=_explain_requests,
    )
