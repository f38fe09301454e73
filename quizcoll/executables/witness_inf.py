"""Second methods of the inference cards (``witness.*``): kernels stepped on a two-engine
clock, a decoder's step built from its weight tensors, a KV cache's blocks allocated and a
prefix cache walked, an MoE batch dispatched token by token (:mod:`quizcoll.witnesses`).

Every figure (shapes, peaks, bandwidths, bytes per value) is a cited constant, looked up by
the name a card's closed form would use (``{gpu}_peak_bf16``, ``{model}_kv_heads``,
``bf16_bytes``: :mod:`quizcoll.constants`, read from the data files and the shipped configs),
and handed to the witnesses as numbers; nothing here reads the catalogs the calculators read
(``quizcoll.memory.gpus``, the config parser, the parameter counter).
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
from quizcoll.witnesses import inf_kv, inf_moe, inf_stream

B, C, R, S = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.SECONDS
_CONSTANTS: dict[str, Any] = {}  # the registry's constants, set by register()


def _cited(name: str) -> float:
    """The cited constant ``name`` (``h100-80gb`` parts written as ``h100_80gb``)."""
    key = re.sub(r"\W", "_", name)
    c = _CONSTANTS.get(key)
    if c is None or not c.cited:
        raise ArgumentError(f"no cited constant {key}")
    return float(c.value)


def _gpu(gpu: str, dtype: str) -> tuple[float, float]:
    """(dense peak in ``dtype``, HBM bandwidth) of ``gpu``, as its datasheet prints them."""
    return _cited(f"{gpu}_peak_{dtype}"), _cited(f"{gpu}_hbm_bandwidth")


def _model(model: str) -> inf_stream.Shape:
    f = {
        k: int(_cited(f"{model}_{k}"))
        for k in (
            "layers",
            "hidden",
            "heads",
            "kv_heads",
            "head_dim",
            "intermediate",
            "vocab",
            "tied",
        )
    }
    return inf_stream.Shape(**{**f, "tied": bool(f["tied"])})


def _guard(fn: Any) -> Any:
    return refusals_as_argument_errors(fn, lambda: ValueError)


def _ints(text: str, name: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ArgumentError(f"{name}: whole numbers separated by commas, got {text!r}") from None


def _floats(text: str, name: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ArgumentError(f"{name}: numbers separated by commas, got {text!r}") from None


def gemm_stream(m: int, n: int, k: int, gpu: str, dtype: str) -> dict[str, Any]:
    peak, bandwidth = _gpu(gpu, dtype)
    run = inf_stream.stream(inf_stream.gemm(m, n, k, _cited(f"{dtype}_bytes")), peak, bandwidth)
    return {
        "time_s": run.time_s,
        "flops": run.flops,
        "bytes": run.bytes,
        "intensity": run.intensity,
    }


def kernel_stream(
    flops: float, bytes: float, gpu: str, dtype: str, slices: int = 4096
) -> dict[str, Any]:
    peak, bandwidth = _gpu(gpu, dtype)
    run = inf_stream.stream(inf_stream.even(flops, bytes, slices), peak, bandwidth)
    return {"time_s": run.time_s}


def llama_decode(
    model: str,
    gpu: str,
    dtype: str = "bf16",
    kv_dtype: str = "bf16",
    context: int = 4096,
    batch: int = 1,
    compute_dtype: str = "bf16",
) -> dict[str, Any]:
    s = _model(model)
    peak, bandwidth = _gpu(gpu, compute_dtype)
    step = inf_stream.decode_step(
        s,
        weight_bytes=_cited(f"{dtype}_bytes"),
        kv_bytes=_cited(f"{kv_dtype}_bytes"),
        context=context,
        batch=batch,
        peak_flops=peak,
        bandwidth=bandwidth,
    )
    return {
        "parameters": inf_stream.parameters(s),
        "bytes_per_step": step.bytes,
        "flops_per_step": step.flops,
        "step_time_s": step.time_s,
        "tokens_per_s": batch / step.time_s,
        "tokens_per_s_per_sequence": 1 / step.time_s,
    }


def llama_request(
    model: str,
    prompt: int,
    output: int,
    gpu: str,
    dtype: str = "bf16",
    kv_dtype: str = "bf16",
    batch: int = 1,
    compute_dtype: str = "bf16",
) -> dict[str, Any]:
    peak, bandwidth = _gpu(gpu, compute_dtype)
    r = inf_stream.request(
        _model(model),
        weight_bytes=_cited(f"{dtype}_bytes"),
        kv_bytes=_cited(f"{kv_dtype}_bytes"),
        prompt=prompt,
        output=output,
        batch=batch,
        peak_flops=peak,
        bandwidth=bandwidth,
    )
    return {
        "prefill_flops": r.prefill_flops,
        "prefill_s": r.prefill_s,
        "decode_s": r.decode_s,
        "memory_bound_steps": r.memory_bound_steps,
    }


# The tensor cores each format multiplies on: A16 dequantises to bf16, W8A8 runs FP8.
_MATMUL_DTYPE = {"w16a16": "bf16", "w4a16": "bf16", "w8a8": "fp8"}


def quant_step(format: str, params: float, batch: int, gpu: str) -> dict[str, Any]:
    peak, bandwidth = _gpu(gpu, _MATMUL_DTYPE[format])
    per_weight = inf_stream.packed_bytes_per_weight(format)
    nbytes = params * per_weight
    run = inf_stream.stream(inf_stream.even(2 * params * batch, nbytes, 2048), peak, bandwidth)
    return {"time_s": run.time_s, "weight_bytes": nbytes, "bytes_per_weight": per_weight}


def _kv_bytes_per_token(model: str, kv_dtype: str, given: float) -> float:
    """Cache bytes per token: the tensors one token adds to every layer, from the model's
    cited shape, or ``given`` when no model is named."""
    if not model:
        return given
    t = inf_kv.cache_tensors(
        int(_cited(f"{model}_layers")),
        kv_heads=int(_cited(f"{model}_kv_heads")),
        head_dim=int(_cited(f"{model}_head_dim")),
    )
    return inf_kv.elements_per_token(t) * _cited(f"{kv_dtype}_bytes")


def paged_alloc(
    tokens: int,
    block_size: int = 16,
    max_len: int = 0,
    sequences: int = 1,
    kv_bytes_per_token: float = 1,
    model: str = "",
    kv_dtype: str = "bf16",
) -> dict[str, Any]:
    kv_bytes_per_token = _kv_bytes_per_token(model, kv_dtype, kv_bytes_per_token)
    p = inf_kv.paged(tokens, block_size, max_len)  # every sequence is alike: allocate one
    return {
        "blocks": p.blocks,
        "empty_slots": p.empty_slots,
        "waste_bytes": sequences * p.empty_slots * kv_bytes_per_token,
        "reserved_empty_slots": p.reserved_empty,
        "reserved_waste_bytes": sequences * p.reserved_empty * kv_bytes_per_token,
    }


def kv_tensors(
    layers: int, kv_heads: int = 0, head_dim: int = 0, latent_dim: int = 0, rope_dim: int = 0
) -> dict[str, Any]:
    t = inf_kv.cache_tensors(
        layers, kv_heads=kv_heads, head_dim=head_dim, latent_dim=latent_dim, rope_dim=rope_dim
    )
    return {"elements_per_token": inf_kv.elements_per_token(t), "tensors": len(t)}


def prefix_walk(
    prefix_tokens: int,
    sequences: int,
    block_size: int = 16,
    kv_bytes_per_token: float = 1,
    model: str = "",
    kv_dtype: str = "bf16",
) -> dict[str, Any]:
    kv_bytes_per_token = _kv_bytes_per_token(model, kv_dtype, kv_bytes_per_token)
    w = inf_kv.prefix_walk(prefix_tokens, sequences, block_size)
    return {
        "tokens_reused": w.tokens_reused,
        "saved_bytes": w.tokens_reused * kv_bytes_per_token,
        "blocks_stored": w.blocks_stored,
    }


def moe_dispatch(loads: str, capacity_factor: float = 1.0) -> dict[str, Any]:
    d = inf_moe.dispatch(_ints(loads, "loads"), capacity_factor)
    return {"capacity": d.capacity, "dropped": d.dropped, "accepted": d.accepted}


def moe_buffer(
    tokens: int, experts: int, top_k: int = 1, capacity_factor: float = 1.0
) -> dict[str, Any]:
    return {"capacity": inf_moe.buffer_size(tokens, experts, top_k, capacity_factor)}


def switch_loss(loads: str, probabilities: str, alpha: float = 0.01) -> dict[str, Any]:
    return {
        "loss": inf_moe.switch_loss(
            _ints(loads, "loads"), _floats(probabilities, "probabilities"), alpha
        )
    }


def _int(name: str, help: str, maximum: float = 1e9, minimum: float = 1, **kw: Any) -> Param:
    return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum, **kw)


def _float(name: str, help: str, maximum: float = 1e30, minimum: float = 0, **kw: Any) -> Param:
    return Param(name, ParamKind.FLOAT, help, minimum=minimum, maximum=maximum, **kw)


def register(registry: Registry) -> None:
    global _CONSTANTS
    _CONSTANTS = registry.constants  # looked up at call time: the cited figures
    gpu = Param("gpu", ParamKind.STR, "GPU (its cited datasheet figures)")
    dtype = Param(
        "dtype", ParamKind.STR, "matmul dtype (its peak and bytes per value)", default="bf16"
    )
    model = Param("model", ParamKind.STR, "model (its cited config.json shape)")
    kv_model = Param("model", ParamKind.STR, "model whose cache bytes per token to use", default="")
    kv_dtype = Param("kv_dtype", ParamKind.STR, "cache dtype", default="bf16")
    add, declare = registry.add_function, registry.declare_derivation
    sim = Derivation.SIMULATED

    add(
        "witness.gemm_stream",
        _guard(gemm_stream),
        params=[
            _int("m", "rows of A"),
            _int("n", "columns of B"),
            _int("k", "inner dimension"),
            gpu,
            dtype,
        ],
        fields=[
            Field("time_s", S, "makespan of the double-buffered tile stream"),
            Field("flops", C, "FLOPs counted tile by tile"),
            Field("bytes", B, "bytes each element's first use moves"),
            Field("intensity", R, "FLOPs per byte"),
        ],
    )
    declare(
        "witness.gemm_stream",
        sim,
        "streams a matmul's tiles through a memory and a compute engine (quizcoll.witnesses.inf_stream.gemm, stream)",
    )

    add(
        "witness.kernel_stream",
        _guard(kernel_stream),
        params=[
            _float("flops", "FLOPs of the kernel", minimum=1),
            Param("bytes", ParamKind.BYTES, "bytes it moves", minimum=1, maximum=2**60),
            gpu,
            dtype,
            _int("slices", "equal slices streamed", 1 << 16, default=4096),
        ],
        fields=[Field("time_s", S, "makespan of the double-buffered stream")],
    )
    declare(
        "witness.kernel_stream",
        sim,
        "steps a kernel's slices through a memory and a compute engine (quizcoll.witnesses.inf_stream.stream)",
    )

    shape = [
        model,
        gpu,
        Param("dtype", ParamKind.STR, "weight dtype (its bytes per value)", default="bf16"),
        kv_dtype,
        Param("compute_dtype", ParamKind.STR, "matmul dtype (its peak)", default="bf16"),
        _int("batch", "sequences", 4096, default=1),
    ]
    add(
        "witness.llama_decode",
        _guard(llama_decode),
        params=[
            *shape,
            _int("context", "tokens in each sequence", 1e7, minimum=0),
            _int("batch", "sequences", 4096, default=1),
        ],
        fields=[
            Field("parameters", C, "elements of the weight tensors"),
            Field("bytes_per_step", B, "bytes the step's kernels move"),
            Field("flops_per_step", C, "FLOPs of the step's kernels"),
            Field("step_time_s", S, "the kernels' roofline times, summed"),
            Field("tokens_per_s", R, "tokens per second, all sequences"),
            Field("tokens_per_s_per_sequence", R, "tokens per second, one sequence"),
        ],
    )
    declare(
        "witness.llama_decode",
        Derivation.ENUMERATED,
        "lists the decoder's weight tensors and cache from its shapes and times each kernel (quizcoll.witnesses.inf_stream.decode_step)",
    )

    add(
        "witness.llama_request",
        _guard(llama_request),
        params=[
            *shape,
            _int("prompt", "prompt tokens", 1 << 20),
            _int("output", "generated tokens", 1 << 15, minimum=0),
            _int("batch", "sequences", 4096, default=1),
        ],
        fields=[
            Field("prefill_flops", C, "FLOPs of the prefill's kernels"),
            Field("prefill_s", S, "the prefill kernels' roofline times, summed"),
            Field("decode_s", S, "every decode step's time, step by step"),
            Field("memory_bound_steps", C, "decode steps whose listed bytes outlast their FLOPs"),
        ],
    )
    declare(
        "witness.llama_request",
        sim,
        "steps the prefill's kernels and then each decode step over a growing cache (quizcoll.witnesses.inf_stream.request)",
    )

    add(
        "witness.quant_step",
        _guard(quant_step),
        params=[
            Param("format", ParamKind.STR, "weight format", choices=("w16a16", "w8a8", "w4a16")),
            _float("params", "weights of the model", minimum=1e3, maximum=1e14),
            _int("batch", "tokens in the step", 1 << 16),
            gpu,
        ],
        fields=[
            Field("time_s", S, "makespan of the streamed step"),
            Field("weight_bytes", B, "weights × packed bytes per weight"),
            Field("bytes_per_weight", R, "bytes of a packed group over its weights"),
        ],
    )
    declare(
        "witness.quant_step",
        sim,
        "packs a weight group to measure its bytes and streams the step through two engines (quizcoll.witnesses.inf_stream)",
    )

    add(
        "witness.paged_alloc",
        _guard(paged_alloc),
        params=[
            _int("tokens", "tokens in each sequence", inf_kv.MAX_TOKENS),
            _int("block_size", "tokens per block", 4096, default=16),
            _int("max_len", "slots reserved per sequence (0: none)", 1 << 24, minimum=0, default=0),
            _int("sequences", "sequences alike", 1 << 20, default=1),
            _float("kv_bytes_per_token", "cache bytes per token", maximum=2**40, default=1.0),
            kv_model,
            kv_dtype,
        ],
        fields=[
            Field("blocks", C, "blocks one sequence holds"),
            Field("empty_slots", C, "empty slots in one sequence's blocks"),
            Field("waste_bytes", B, "empty slots' bytes, all sequences"),
            Field("reserved_empty_slots", C, "unfilled reserved slots, one sequence"),
            Field("reserved_waste_bytes", B, "unfilled reserved bytes, all sequences"),
        ],
    )
    declare(
        "witness.paged_alloc",
        sim,
        "appends tokens one by one to a block table and a reservation (quizcoll.witnesses.inf_kv.paged)",
    )

    add(
        "witness.kv_tensors",
        _guard(kv_tensors),
        params=[
            _int("layers", "layers"),
            _int("kv_heads", "KV heads (MHA/GQA)", 1 << 12, minimum=0, default=0),
            _int("head_dim", "head dimension (MHA/GQA)", 1 << 12, minimum=0, default=0),
            _int("latent_dim", "MLA latent d_c (0: not MLA)", 1 << 16, minimum=0, default=0),
            _int("rope_dim", "MLA decoupled RoPE key", 1 << 12, minimum=0, default=0),
        ],
        fields=[
            Field("elements_per_token", C, "values one token adds to the cache"),
            Field("tensors", C, "cached tensors per token"),
        ],
    )
    declare(
        "witness.kv_tensors",
        Derivation.ENUMERATED,
        "lists the tensors one token adds to each layer's cache (quizcoll.witnesses.inf_kv.cache_tensors)",
    )

    add(
        "witness.prefix_walk",
        _guard(prefix_walk),
        params=[
            _int("prefix_tokens", "shared prefix", inf_kv.MAX_TOKENS),
            _int("sequences", "requests", 4096),
            _int("block_size", "tokens per block", 4096, default=16),
            _float("kv_bytes_per_token", "cache bytes per token", maximum=2**40, default=1.0),
            kv_model,
            kv_dtype,
        ],
        fields=[
            Field("tokens_reused", C, "prompt tokens found in cached blocks"),
            Field("saved_bytes", B, "their cache bytes"),
            Field("blocks_stored", C, "blocks in the table"),
        ],
    )
    declare(
        "witness.prefix_walk",
        sim,
        "serves the requests one by one against a table of full-block keys (quizcoll.witnesses.inf_kv.prefix_walk)",
    )

    cf = _float("capacity_factor", "capacity factor", maximum=64, minimum=0.01, default=1.0)
    add(
        "witness.moe_buffer",
        _guard(moe_buffer),
        params=[
            _int("tokens", "tokens"),
            _int("experts", "experts", 1 << 16),
            _int("top_k", "experts per token", 1 << 10, default=1),
            cf,
        ],
        fields=[Field("capacity", C, "smallest buffer holding the padded assignments")],
    )
    declare(
        "witness.moe_buffer",
        Derivation.SEARCHED,
        "bisects the smallest buffer whose slots hold the padded assignments (quizcoll.witnesses.inf_moe.buffer_size)",
    )

    add(
        "witness.moe_dispatch",
        _guard(moe_dispatch),
        params=[Param("loads", ParamKind.STR, "tokens routed to each expert, comma-separated"), cf],
        fields=[
            Field("capacity", C, "each expert's buffer"),
            Field("dropped", C, "tokens turned away"),
            Field("accepted", C, "tokens the experts took"),
        ],
    )
    declare(
        "witness.moe_dispatch",
        sim,
        "routes the tokens one by one into buffers and counts the overflow (quizcoll.witnesses.inf_moe.dispatch)",
    )

    add(
        "witness.switch_loss",
        _guard(switch_loss),
        params=[
            Param("loads", ParamKind.STR, "tokens routed to each expert, comma-separated"),
            Param("probabilities", ParamKind.STR, "each token's router probabilities"),
            _float("alpha", "loss coefficient", maximum=10, minimum=1e-6, default=0.01),
        ],
        fields=[Field("loss", R, "α·E·Σ fᵢPᵢ from the token-by-expert matrices")],
    )
    declare(
        "witness.switch_loss",
        Derivation.ENUMERATED,
        "reduces the explicit token-by-expert dispatch mask and probability matrix (quizcoll.witnesses.inf_moe.switch_loss)",
    )
