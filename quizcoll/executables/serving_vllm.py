"""``memory.vllm_serving``: one GPU's memory as vLLM 0.33.0 splits it, with chunked prefill.

Adapts :mod:`quizcoll.memory.vllm`: the KV cache is what is left of ``gpu_memory_utilization``
after the weights, the profile pass of ``max_num_batched_tokens`` tokens, non-torch memory
and the CUDA-graph pool; a deployment fits when its sequences' blocks fit in that cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables.memory_calc import (
    MAX_BATCH,
    MAX_CONTEXT,
    both_units,
    guard,
    weight_format,
)
from quizcoll.memory import vllm
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.gpus import find_gpu, gpu_names
from quizcoll.memory.inference import GPUS_PER_NODE, valid_tp_degree


def vllm_serving(
    model: str,
    gpu: str,
    dtype: str = "bf16",
    context: int = 4096,
    batch: int = 1,
    tensor_parallel: int = 1,
    utilization: float = vllm.DEFAULT_UTILIZATION,
    max_num_batched_tokens: int | None = None,
    max_num_seqs: int | None = None,
    runtime_bytes: int | None = None,
) -> dict[str, Any]:
    """vLLM's per-GPU split, and the fewest GPUs (a valid TP degree) whose KV cache holds the
    batch's sequences of ``context`` tokens. ``runtime_bytes`` replaces both the non-torch and
    the CUDA-graph defaults by one figure; a model whose every layer has a sliding window keeps
    at most the window per sequence."""
    cfg, fmt, device = load_model(model), weight_format(dtype, 128), find_gpu(gpu)
    tokens_default, seqs_default = vllm.server_defaults(device)
    chunk = max_num_batched_tokens or tokens_default
    seqs = max_num_seqs or seqs_default

    runtime: dict[str, int] = (
        {} if runtime_bytes is None else {"non_torch_bytes": runtime_bytes, "cuda_graph_bytes": 0}
    )

    def budget(t: int) -> vllm.VllmBudget:
        return vllm.vllm_budget(
            cfg,
            fmt,
            device.memory_bytes,
            tensor_parallel=t,
            utilization=utilization,
            max_num_batched_tokens=chunk,
            max_num_seqs=seqs,
            **runtime,
        )

    windows = [w for w in cfg.sliding_windows if w is not None]
    # every layer slides: the blocks behind the window go back to the pool
    window = max(windows) if windows and len(windows) == len(cfg.sliding_windows) else None
    blocks_needed = batch * vllm.blocks_per_sequence(context, window)
    here = budget(tensor_parallel)
    needed = next(
        (
            t
            for t in range(1, GPUS_PER_NODE + 1)
            if valid_tp_degree(cfg, t) and budget(t).blocks >= blocks_needed
        ),
        0,
    )
    return {
        "requested_bytes": here.requested_bytes,
        "weights_bytes": here.weights_bytes,
        "activation_bytes": here.activation_bytes,
        "forward_bytes": here.forward_bytes,
        "sampler_bytes": here.sampler_bytes,
        "non_torch_bytes": here.non_torch_bytes,
        "cuda_graph_bytes": here.cuda_graph_bytes,
        "kv_cache_bytes": here.kv_cache_bytes,
        "kv_bytes_per_token": here.kv_bytes_per_token,
        "kv_tokens": here.kv_tokens,
        "max_context": here.max_context(batch),
        "fits": "yes" if here.blocks >= blocks_needed else "no",
        "gpus_needed": needed,
        "max_num_batched_tokens": chunk,
        "max_num_seqs": seqs,
        "utilization": utilization,
    }


def explain_vllm(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        # The version and the GPU's catalog key in code: "0.33" and "-80gb" are no figures.
        f"vLLM `{vllm.VLLM_VERSION}` on one `{args['gpu']}` at TP {args['tensor_parallel']}: "
        "requests "
        f"{both_units(r['requested_bytes'])} ({args['utilization']:g} of the GPU); weights "
        f"{both_units(r['weights_bytes'])}, profile pass of {r['max_num_batched_tokens']:,} tokens "
        f"{both_units(r['activation_bytes'])}, non-torch {both_units(r['non_torch_bytes'])}, CUDA "
        f"graphs {both_units(r['cuda_graph_bytes'])}; the rest, "
        f"{both_units(r['kv_cache_bytes'])}, holds **{r['kv_tokens']:,} tokens** of KV cache "
        f"({r['kv_bytes_per_token']:,.0f} B each, blocks of {vllm.BLOCK_SIZE}). "
        f"{args['batch']} × {args['context']:,} tokens fit: {r['fits']}; fewest GPUs: "
        f"{r['gpus_needed']}."
    )


def register(registry: Registry) -> None:
    B, C, R, T = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.TEXT
    registry.add_function(
        "memory.vllm_serving",
        guard(vllm_serving),
        params=[
            Param("model", ParamKind.STR, "a built-in model", choices=model_names()),
            Param("gpu", ParamKind.STR, "GPU", choices=gpu_names()),
            Param("dtype", ParamKind.STR, "weight dtype or format", default="bf16"),
            Param(
                "context",
                ParamKind.INT,
                "tokens per sequence",
                minimum=1,
                maximum=MAX_CONTEXT,
                default=4096,
            ),
            Param(
                "batch", ParamKind.INT, "sequences at once", minimum=1, maximum=MAX_BATCH, default=1
            ),
            Param(
                "tensor_parallel",
                ParamKind.INT,
                "tensor-parallel GPUs",
                minimum=1,
                maximum=GPUS_PER_NODE,
                default=1,
            ),
            Param(
                "utilization",
                ParamKind.FLOAT,
                "gpu_memory_utilization",
                minimum=0.05,
                maximum=1.0,
                default=vllm.DEFAULT_UTILIZATION,
            ),
            Param(
                "max_num_batched_tokens",
                ParamKind.INT,
                "tokens per forward pass (default: vllm serve's for the GPU)",
                minimum=16,
                maximum=MAX_CONTEXT,
                default=None,
            ),
            Param(
                "max_num_seqs",
                ParamKind.INT,
                "sequences per step",
                minimum=1,
                maximum=65536,
                default=None,
            ),
            Param(
                "runtime_bytes",
                ParamKind.INT,
                "non-torch and CUDA-graph memory together (default: the logs' figures)",
                minimum=0,
                maximum=2**40,
                default=None,
            ),
        ],
        fields=[
            Field("requested_bytes", B, "total × gpu_memory_utilization"),
            Field("weights_bytes", B, "this GPU's weights"),
            Field("activation_bytes", B, "peak of the profile pass: the larger stage"),
            Field("forward_bytes", B, "peak of the profile forward (one chunk)"),
            Field("sampler_bytes", B, "peak of the profile sampler (max_num_seqs rows)"),
            Field("non_torch_bytes", B, "non-torch memory (assumed, from a published log)"),
            Field("cuda_graph_bytes", B, "CUDA-graph pool (assumed, from a published log)"),
            Field("kv_cache_bytes", B, "left for the KV cache"),
            Field("kv_bytes_per_token", B, "this GPU's KV bytes per token"),
            Field("kv_tokens", C, "GPU KV cache size in tokens"),
            Field("max_context", C, "longest context for each of the batch's sequences"),
            Field("fits", T, "whether the batch's sequences fit"),
            Field(
                "gpus_needed",
                C,
                "fewest GPUs (valid TP degree) that hold the batch; 0: none in a node",
            ),
            Field("max_num_batched_tokens", C, "tokens per forward pass"),
            Field("max_num_seqs", C, "sequences per step"),
            Field("utilization", R, "gpu_memory_utilization"),
        ],
        explain=explain_vllm,
    )
