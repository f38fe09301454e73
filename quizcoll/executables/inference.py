"""Inference executables for the inference cards.

``serving.decode_crossover``: the smallest batch at which a decode step stops being
memory-bound. Each step reads the weights once (shared by the batch) and every sequence's
KV cache, and computes 2N + 4·L·H·Q·T FLOPs per sequence (Pope et al. 2022; the same step
as ``serving.decode``). Batching amortises only the weight read: each added sequence brings
its own KV read, so when T·(KV bytes per token)/bandwidth exceeds a sequence's FLOPs/peak,
no batch turns the step compute-bound. The batch is found by searching the steps themselves
(``quizcoll.systems.serving.decode_step``), not by the closed form the cards check it with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Field, Param, ParamKind, Registry
from deck.units import format_seconds
from quizcoll.executables.common import B, C, S, T, count_param, guard, sizes
from quizcoll.executables.serving import (
    MAX_CONTEXT,
    _check_positions,
    _weights,
    kv_value_bytes,
)
from quizcoll.memory import inference
from quizcoll.memory.catalog import model_names
from quizcoll.memory.formats import KV_DTYPES
from quizcoll.memory.gpus import COMPUTE_DTYPES, compute_specs, find_gpu, gpu_names, peak_flops
from quizcoll.memory.params import count_parameters
from quizcoll.systems import serving as sv

MAX_BATCH = 4096  # serving.decode's largest batch


def decode_crossover(
    model: str,
    gpu: str = "h100-80gb",
    dtype: str = "bf16",
    kv_dtype: str = "bf16",
    context: int = 0,
    compute_dtype: str = "bf16",
) -> dict[str, Any]:
    """The smallest batch (≤ 4,096) whose decode step is compute-bound; 0 if none is."""
    cfg, weights = _weights(model, dtype)
    _check_positions(cfg, context + 1)
    device = find_gpu(gpu)
    bandwidth = compute_specs(device).hbm_bandwidth
    peak = peak_flops(device, compute_dtype)
    kv_token = inference.kv_cache_bytes(cfg, 1, 1, kv_value_bytes(kv_dtype))
    flops = (
        2 * count_parameters(cfg).active
        + 4 * cfg.num_layers * cfg.num_heads * cfg.head_dim * context
    )

    def step(batch: int) -> sv.DecodeStep:
        return sv.decode_step(
            weights_bytes=weights,
            kv_read_bytes=kv_token * context * batch,
            batch=batch,
            flops_per_token=flops,
            bandwidth=bandwidth,
            peak_flops=peak,
        )

    # compute − memory time grows linearly in the batch: bisect for the first compute-bound one.
    found = 0
    if step(MAX_BATCH).bound == "compute":
        low, high = 0, MAX_BATCH  # step(low) memory-bound (or low = 0), step(high) compute-bound
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (low, mid) if step(mid).bound == "compute" else (mid, high)
        found = high
    return {
        "batch": int(found),
        "compute_bound": "yes" if found else "no",
        "weights_time_s": weights / bandwidth,
        "kv_time_per_sequence_s": kv_token * context / bandwidth,
        "flops_time_per_sequence_s": flops / peak,
        "weights_bytes": weights,
        "kv_bytes_per_token": kv_token,
    }


def _explain_crossover(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    head = (
        f"The weights ({sizes(r['weights_bytes'])}) take {format_seconds(r['weights_time_s'])} "
        f"to read, once per step; each sequence adds "
        f"{format_seconds(r['kv_time_per_sequence_s'])} of KV read and "
        f"{format_seconds(r['flops_time_per_sequence_s'])} of FLOPs at {args['context']:,} tokens."
    )
    if r["batch"]:
        return f"{head} From **batch {r['batch']:,}** the FLOPs take longer: compute-bound."
    return f"{head} **No batch up to {MAX_BATCH:,} is compute-bound**: the KV read grows as fast."


def register(registry: Registry) -> None:
    from quizcoll.executables.memory import FORMATS

    registry.add_function(
        "serving.decode_crossover",
        guard(decode_crossover),
        params=[
            Param("model", ParamKind.STR, "a built-in model", choices=model_names()),
            Param("gpu", ParamKind.STR, "GPU", choices=gpu_names(), default="h100-80gb"),
            Param(
                "dtype", ParamKind.STR, "weight dtype or format", choices=FORMATS, default="bf16"
            ),
            Param("kv_dtype", ParamKind.STR, "KV-cache dtype", choices=KV_DTYPES, default="bf16"),
            count_param(
                "context", "tokens already in each sequence", MAX_CONTEXT, minimum=0, default=0
            ),
            Param(
                "compute_dtype",
                ParamKind.STR,
                "dtype the matmuls run in (its peak)",
                choices=COMPUTE_DTYPES,
                default="bf16",
            ),
        ],
        fields=[
            Field("batch", C, "smallest compute-bound batch ≤ 4,096; 0 if none"),
            Field("compute_bound", T, "yes if some batch ≤ 4,096 is compute-bound"),
            Field("weights_time_s", S, "weights / bandwidth: once per step"),
            Field("kv_time_per_sequence_s", S, "one sequence's KV read / bandwidth"),
            Field("flops_time_per_sequence_s", S, "one sequence's FLOPs / peak"),
            Field("weights_bytes", B, "weights read per step"),
            Field("kv_bytes_per_token", B, "KV bytes per token"),
        ],
        explain=_explain_crossover,
    )
