"""Serving-speed executables (``serving.roofline``, ``serving.decode``, ``serving.request``):
the roofline, decode steps and whole requests against a GPU's bandwidth and peak. The KV-cache
and decoding-strategy ones are in :mod:`quizcoll.executables.serving_kv`.

Decode reads every weight once per step (for a mixture of experts at small batch fewer
experts are read: the figure is then an upper bound on bytes) plus each sequence's KV cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from deck.units import format_count, format_rate, format_seconds
from quizcoll.executables.common import B, C, R, S, T, count_param, guard, num, sci, sizes
from quizcoll.memory import inference
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.formats import KV_DTYPES, parse_kv_dtype
from quizcoll.memory.gpus import COMPUTE_DTYPES, compute_specs, find_gpu, gpu_names, peak_flops
from quizcoll.memory.params import count_parameters, tensors
from quizcoll.systems import serving as sv

COMPUTE_BYTES = {"fp16": 2, "bf16": 2, "fp8": 1, "tf32": 4, "fp4": 0.5}
MAX_OUTPUT = 32_768
MAX_CONTEXT = 10_000_000


def _weights(model: str, dtype: str) -> tuple[Any, int]:
    from quizcoll.executables.memory import FORMATS  # the weight formats memory.* accepts
    from quizcoll.memory.formats import parse_format, weight_bytes

    if dtype not in FORMATS:
        raise ArgumentError(f"dtype: {dtype!r} is not one of {', '.join(FORMATS)}")
    cfg = load_model(model)
    return cfg, weight_bytes(tensors(cfg), parse_format(dtype)).total_bytes


def _check_positions(cfg: Any, tokens: int) -> None:
    """Learned position embeddings (GPT-2) end at max_position_embeddings; RoPE models may go on."""
    if (
        cfg.learned_positions
        and cfg.max_position_embeddings
        and tokens > cfg.max_position_embeddings
    ):
        raise ArgumentError(
            f"{cfg.name} has learned position embeddings for {cfg.max_position_embeddings} "
            f"tokens; {tokens} is longer"
        )


def kv_value_bytes(kv_dtype: str) -> int:
    return parse_kv_dtype(kv_dtype).bits // 8


def roofline(
    gpu: str,
    dtype: str = "bf16",
    m: int = 0,
    n: int = 0,
    k: int = 0,
    flops: float = 0.0,
    bytes: float = 0.0,
) -> dict[str, Any]:
    """A kernel on a GPU's roofline: a matmul shape (m, n, k) or raw FLOPs and bytes."""
    shape = (m, n, k)
    if any(shape) and (flops or bytes):
        raise ArgumentError("give either m, n, k or flops and bytes, not both")
    if any(shape):
        flops, bytes = sv.matmul_cost(m, n, k, COMPUTE_BYTES[dtype])
    elif not (flops and bytes):
        raise ArgumentError("give m, n and k (a matmul) or flops and bytes")
    device = find_gpu(gpu)
    r = sv.roofline(flops, bytes, peak_flops(device, dtype), compute_specs(device).hbm_bandwidth)
    return {
        "flops": r.flops,
        "bytes": r.bytes,
        "arithmetic_intensity": r.arithmetic_intensity,
        "ridge_point": r.ridge_point,
        "attainable_flops": r.attainable_flops,
        "time_s": r.time_s,
        "bound": r.bound,
    }


def _explain_roofline(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{sci(r['flops'])} FLOPs over {sizes(r['bytes'])} = intensity "
        f"{num(r['arithmetic_intensity'])} FLOPs/B against the `{args['gpu']}`'s ridge "
        f"{num(r['ridge_point'])}: **{r['bound']}-bound**, at most {sci(r['attainable_flops'])} "
        f"FLOP/s, {format_seconds(r['time_s'])}."
    )


def decode(
    model: str,
    gpu: str = "h100-80gb",
    dtype: str = "fp16",
    kv_dtype: str = "fp16",
    context: int = 4096,
    batch: int = 1,
    compute_dtype: str = "fp16",
) -> dict[str, Any]:
    """One decode step: bytes read (weights + KV caches), FLOPs, memory vs compute time."""
    cfg, weights = _weights(model, dtype)
    _check_positions(cfg, context + 1)
    kv = kv_value_bytes(kv_dtype)
    device = find_gpu(gpu)
    bandwidth = compute_specs(device).hbm_bandwidth
    kv_read = inference.kv_cache_bytes(cfg, context, batch, kv)
    active = count_parameters(cfg).active
    step = sv.decode_step(
        weights_bytes=weights,
        kv_read_bytes=kv_read,
        batch=batch,
        flops_per_token=2 * active + 4 * cfg.num_layers * cfg.num_heads * cfg.head_dim * context,
        bandwidth=bandwidth,
        peak_flops=peak_flops(device, compute_dtype),
    )
    return {
        "weights_bytes": weights,
        "kv_read_bytes": kv_read,
        "bytes_per_step": step.bytes_read,
        "flops_per_step": step.flops,
        "memory_time_s": step.memory_time_s,
        "compute_time_s": step.compute_time_s,
        "step_time_s": step.time_s,
        "tokens_per_s": batch / step.time_s,
        "tokens_per_s_per_sequence": 1 / step.time_s,
        "bound": step.bound,
        "bandwidth": bandwidth,
    }


def _explain_decode(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"Each step reads the weights ({sizes(r['weights_bytes'])}) and "
        f"{format_count(args['batch'], 'KV caches')} of {args['context']:,} tokens ({sizes(r['kv_read_bytes'])}) at "
        f"{format_rate(r['bandwidth'])}: {format_seconds(r['memory_time_s'])}; the FLOPs take "
        f"{format_seconds(r['compute_time_s'])}. {r['bound'].capitalize()}-bound: "
        f"**{num(r['tokens_per_s_per_sequence'])} tokens/s per sequence**, "
        f"{num(r['tokens_per_s'])} in all."
    )


def request(
    model: str,
    prompt: int,
    output: int,
    gpu: str = "h100-80gb",
    dtype: str = "fp16",
    kv_dtype: str = "fp16",
    batch: int = 1,
    compute_dtype: str = "fp16",
) -> dict[str, Any]:
    """Prefill (time to first token) and decode time of ``batch`` requests, step by step."""
    if output > MAX_OUTPUT:
        raise ArgumentError(f"output: at most {MAX_OUTPUT:,} tokens, got {output:,}")
    cfg, weights = _weights(model, dtype)
    _check_positions(cfg, prompt + output)
    kv = kv_value_bytes(kv_dtype)
    device = find_gpu(gpu)
    bandwidth = compute_specs(device).hbm_bandwidth
    peak = peak_flops(device, compute_dtype)
    active = count_parameters(cfg).active
    lhq = cfg.num_layers * cfg.num_heads * cfg.head_dim
    # Causal prefill: token t attends to t tokens.
    prefill_flops = batch * (2 * active * prompt + 4 * lhq * prompt * (prompt + 1) / 2)
    prefill_bytes = weights + inference.kv_cache_bytes(cfg, prompt, batch, kv)
    prefill_s = max(prefill_flops / peak, prefill_bytes / bandwidth)
    decode_s = 0.0
    memory_bound_steps = 0
    for i in range(output):
        context = prompt + i
        step = sv.decode_step(
            weights_bytes=weights,
            kv_read_bytes=inference.kv_cache_bytes(cfg, context, batch, kv),
            batch=batch,
            flops_per_token=2 * active + 4 * lhq * context,
            bandwidth=bandwidth,
            peak_flops=peak,
        )
        decode_s += step.time_s
        memory_bound_steps += step.bound == "memory"
    return {
        "prefill_s": prefill_s,
        "decode_s": decode_s,
        "total_s": prefill_s + decode_s,
        "prefill_flops": prefill_flops,
        "tokens_per_s_per_sequence": output / decode_s if decode_s else 0.0,
        "memory_bound_steps": memory_bound_steps,
        "prefill_bound": "compute"
        if prefill_flops / peak >= prefill_bytes / bandwidth
        else "memory",
    }


def _explain_request(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"Prefill of {args['prompt']:,} tokens × {args['batch']}: {sci(r['prefill_flops'])} "
        f"FLOPs, {r['prefill_bound']}-bound: **{format_seconds(r['prefill_s'])} to the first "
        f"token**. Then {args['output']:,} decode step{'' if args['output'] == 1 else 's'}, "
        f"{r['memory_bound_steps']:,} of them "
        f"memory-bound, reading the weights and a growing KV cache: "
        f"{format_seconds(r['decode_s'])} ({num(r['tokens_per_s_per_sequence'])} tokens/s)."
    )


def register(registry: Registry) -> None:
    from quizcoll.executables.memory import FORMATS

    gpu = Param("gpu", ParamKind.STR, "GPU", choices=gpu_names(), default="h100-80gb")
    model = Param("model", ParamKind.STR, "a built-in model", choices=model_names())
    weights_dtype = Param(
        "dtype", ParamKind.STR, "weight dtype or format", choices=FORMATS, default="fp16"
    )
    kv_dtype = Param("kv_dtype", ParamKind.STR, "KV-cache dtype", choices=KV_DTYPES, default="fp16")
    compute_dtype = Param(
        "compute_dtype",
        ParamKind.STR,
        "dtype the matmuls run in (its peak)",
        choices=COMPUTE_DTYPES,
        default="fp16",
    )
    batch = count_param("batch", "sequences decoded together", 4096, default=1)
    registry.add_function(
        "serving.roofline",
        guard(roofline),
        params=[
            Param("gpu", ParamKind.STR, "GPU", choices=gpu_names()),
            Param("dtype", ParamKind.STR, "matmul dtype", choices=COMPUTE_DTYPES, default="bf16"),
            count_param("m", "rows of A (tokens)", 1e9, minimum=0, default=0),
            count_param("n", "columns of B", 1e9, minimum=0, default=0),
            count_param("k", "inner dimension", 1e9, minimum=0, default=0),
            Param(
                "flops",
                ParamKind.FLOAT,
                "FLOPs (instead of a shape)",
                minimum=0,
                maximum=1e30,
                default=0.0,
            ),
            Param("bytes", ParamKind.BYTES, "bytes moved", minimum=0, maximum=2**60, default=0),
        ],
        fields=[
            Field("flops", C, "FLOPs"),
            Field("bytes", B, "bytes moved"),
            Field("arithmetic_intensity", R, "FLOPs per byte"),
            Field("ridge_point", R, "peak / bandwidth, FLOPs per byte"),
            Field("attainable_flops", C, "min(peak, intensity × bandwidth), FLOP/s"),
            Field("time_s", S, "lower bound on the kernel time"),
            Field("bound", T, "memory or compute"),
        ],
        explain=_explain_roofline,
    )
    registry.add_function(
        "serving.decode",
        guard(decode),
        params=[
            model,
            gpu,
            weights_dtype,
            kv_dtype,
            count_param(
                "context", "tokens already in each sequence", MAX_CONTEXT, minimum=0, default=4096
            ),
            batch,
            compute_dtype,
        ],
        fields=[
            Field("weights_bytes", B, "weights read per step"),
            Field("kv_read_bytes", B, "KV caches read per step"),
            Field("bytes_per_step", B, "all bytes read per step"),
            Field("flops_per_step", C, "FLOPs per step"),
            Field("memory_time_s", S, "bytes / bandwidth"),
            Field("compute_time_s", S, "FLOPs / peak"),
            Field("step_time_s", S, "the larger of the two"),
            Field("tokens_per_s", R, "tokens per second, all sequences"),
            Field("tokens_per_s_per_sequence", R, "tokens per second, one sequence"),
            Field("bound", T, "memory or compute"),
            Field("bandwidth", Dimension.RATE, "the GPU's memory bandwidth"),
        ],
        explain=_explain_decode,
    )
    registry.add_function(
        "serving.request",
        guard(request),
        params=[
            model,
            count_param("prompt", "prompt tokens", MAX_CONTEXT),
            count_param("output", "generated tokens", MAX_OUTPUT),
            gpu,
            weights_dtype,
            kv_dtype,
            batch,
            compute_dtype,
        ],
        fields=[
            Field("prefill_s", S, "time to first token"),
            Field("decode_s", S, "time of all decode steps"),
            Field("total_s", S, "prefill + decode"),
            Field("prefill_flops", C, "FLOPs of the prefill"),
            Field("tokens_per_s_per_sequence", R, "decode speed of one sequence"),
            Field("memory_bound_steps", C, "decode steps limited by bandwidth"),
            Field("prefill_bound", T, "memory or compute"),
        ],
        explain=_explain_request,
    )
