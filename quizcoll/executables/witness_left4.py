"""``witness.vllm_pool``: vLLM's KV pool built from enumerated pieces and filled block by block.

Wraps :mod:`quizcoll.witnesses.left4_vllm_pool`. The card names only the model, GPU, dtype
and its batch; every figure is a cited constant looked up here by the name a card's closed
form would use (``{model}_layers`` … from the shipped ``config.json``, ``{gpu}_reported``,
``vllm_gpu_memory_utilization``, ``runtime_overhead_assumed``, ``vllm_block_size``,
``{dtype}_bytes``, ``fp16_bytes``, ``fp32_bytes``, ``gpus_per_node``), never the catalogs the
calculators read (``quizcoll.memory``).
"""

from __future__ import annotations

import re
from typing import Any

from deck.cards.registry import (
    ArgumentError,
    Derivation,
    Dimension,
    Field,
    Param,
    ParamKind,
    Registry,
)
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.witnesses import left4_vllm_pool as pool

_CONSTANTS: dict[str, Any] = {}  # the registry's constants, set by register()


def _cited(name: str) -> float:
    key = re.sub(r"\W", "_", name)
    c = _CONSTANTS.get(key)
    if c is None or not c.cited:
        raise ArgumentError(f"no cited constant {key}")
    return float(c.value)


def _decoder(model: str) -> pool.Decoder:
    def f(k: str) -> int:
        return int(_cited(f"{model}_{k}"))

    return pool.Decoder(
        layers=f("layers"),
        hidden=f("hidden"),
        heads=f("heads"),
        kv_heads=f("kv_heads"),
        head_dim=f("head_dim"),
        intermediate=f("intermediate"),
        vocab=f("vocab"),
        tied=bool(f("tied")),
        qkv_bias=bool(f("qkv_bias")),
        experts=f("experts"),
        experts_per_token=f("experts_per_token"),
        positions=f("trained_context"),
    )


def _split(
    m: pool.Decoder, gpu: str, dtype: str, tp: int, chunk: int, seqs: int
) -> tuple[float, float, dict[str, float], int, float]:
    """One rank's budget at tensor parallelism ``tp``: (requested, weights, profile, pool)."""
    half, fp32 = _cited("fp16_bytes"), _cited("fp32_bytes")  # 16-bit compute, fp32 logits
    requested = _cited(f"{gpu}_reported") * _cited("vllm_gpu_memory_utilization")
    weights = pool.total_bytes(pool.rank_weights(m, tp, _cited(f"{dtype}_bytes"), half))
    profile = pool.profile_peak(m, tp, chunk, seqs, half, fp32)
    left = requested - weights - profile["peak"] - _cited("runtime_overhead_assumed")
    block = pool.block_bytes(m, tp, int(_cited("vllm_block_size")), half)
    return requested, weights, profile, pool.cut_blocks(max(0.0, left), block), left


def vllm_pool(
    model: str,
    gpu: str,
    dtype: str,
    batch: int = 1,
    context: int = 0,
    max_num_batched_tokens: int = 2048,
    max_num_seqs: int = 256,
) -> dict[str, Any]:
    """The KV pool of one GPU (the longest context each of ``batch`` sequences reaches), and
    the fewest tensor-parallel GPUs, trying 1, 2, 4, 8, whose pool holds ``batch`` sequences
    of ``context`` tokens (0: none in a node)."""
    m = _decoder(model)
    size = int(_cited("vllm_block_size"))
    requested, weights, profile, blocks, left = _split(
        m, gpu, dtype, 1, max_num_batched_tokens, max_num_seqs
    )
    window = int(_cited(f"{model}_attention_window"))
    window = window if window < int(_cited(f"{model}_trained_context")) else 0
    needed = 0
    if context:
        per_sequence = pool.blocks_held(context, size, window)
        node = int(_cited("gpus_per_node"))
        for tp in (t for t in (1, 2, 4, 8) if t <= node and pool.valid_tp(m, t)):
            *_, have, _ = _split(m, gpu, dtype, tp, max_num_batched_tokens, max_num_seqs)
            if pool.fill_pool(have, batch, size) >= per_sequence * size:
                needed = tp
                break
    return {
        "requested_bytes": requested,
        "weights_bytes": weights,
        "forward_peak_bytes": profile["forward_peak"],
        "sampler_peak_bytes": profile["sampler_peak"],
        "activation_bytes": profile["peak"],
        "kv_pool_bytes": left,
        "blocks": blocks,
        "kv_tokens": blocks * size,
        "max_context": pool.fill_pool(blocks, batch, size),
        "gpus_needed": needed,
    }


def register(registry: Registry) -> None:
    global _CONSTANTS
    _CONSTANTS = registry.constants  # looked up at call time: the cited figures
    B, C = Dimension.BYTES, Dimension.COUNT
    registry.add_function(
        "witness.vllm_pool",
        refusals_as_argument_errors(vllm_pool, lambda: ValueError),
        params=[
            Param("model", ParamKind.STR, "model (its cited config.json shape)"),
            Param("gpu", ParamKind.STR, "GPU (its memory as reported)"),
            Param("dtype", ParamKind.STR, "weight dtype (its cited bytes per value)"),
            Param("batch", ParamKind.INT, "sequences at once", minimum=1, maximum=4096, default=1),
            Param(
                "context",
                ParamKind.INT,
                "tokens per sequence to fit (0: only the pool)",
                minimum=0,
                maximum=1 << 20,
                default=0,
            ),
            Param(
                "max_num_batched_tokens",
                ParamKind.INT,
                "tokens of the profile forward",
                minimum=16,
                maximum=1 << 20,
                default=2048,
            ),
            Param(
                "max_num_seqs",
                ParamKind.INT,
                "rows of the profile sampler",
                minimum=1,
                maximum=65536,
                default=256,
            ),
        ],
        fields=[
            Field("requested_bytes", B, "memory reported × gpu_memory_utilization"),
            Field("weights_bytes", B, "one GPU's parameter tensors and rotary buffer, listed"),
            Field("forward_peak_bytes", B, "most live during the profile forward"),
            Field("sampler_peak_bytes", B, "live during the profile sampler"),
            Field("activation_bytes", B, "the profile pass's peak"),
            Field("kv_pool_bytes", B, "left for the KV cache"),
            Field("blocks", C, "KV blocks cut from the pool"),
            Field("kv_tokens", C, "blocks × block size"),
            Field("max_context", C, "tokens each of the batch's sequences reaches"),
            Field("gpus_needed", C, "fewest TP GPUs (1, 2, 4, 8) holding the batch; 0: none"),
        ],
        summary="vLLM's KV pool from enumerated tensors, filled block by block",
    )
    registry.declare_derivation(
        "witness.vllm_pool",
        Derivation.SIMULATED,
        "lists one rank's weight tensors from config.json's shape, steps the profile pass's "
        "live tensors (vLLM's eager Llama forward, then the sampler) for its peak, cuts the "
        "rest into KV blocks one at a time and hands them to sequences growing token by "
        "token until none is left; for the GPU count, repeats at TP 1, 2, 4, 8 "
        "(quizcoll.witnesses.left4_vllm_pool)",
    )
