"""The memory calculators as executable functions: weights, parameter counts, the KV cache,
inference totals and GPU fit, the weights-plus-headroom rule of thumb; each with its worked solution."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck import units
from deck.cards.registry import ArgumentError
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.memory import inference
from quizcoll.memory.catalog import load_model
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import (
    GGUF_FORMATS,
    PLAIN_BITS,
    WeightFormat,
    bytes_for_parameter_count,
    parse_format,
    parse_kv_dtype,
    weight_bytes,
)
from quizcoll.memory.gpus import DEFAULT_UTILIZATION, find_gpu
from quizcoll.memory.params import Component, count_parameters, llama_layer, tensors

MAX_PARAMS = 1e13
MAX_CONTEXT = 10_000_000
MAX_BATCH = 4096
FORMATS: tuple[str, ...] = (*PLAIN_BITS, "gptq", "awq", *GGUF_FORMATS)


def both_units(n: float) -> str:
    return units.format_bytes_pair(n)


def sci(n: float) -> str:
    """``7000000000`` → ``7×10^9``; other numbers with thousands separators."""
    if n >= 1e6:
        exp = len(str(int(n))) - 1
        mant = n / 10**exp
        if abs(mant - round(mant, 3)) < 1e-9:
            return f"{round(mant, 3):g}×10^{exp}"
    return f"{n:,}"


def weight_format(dtype: str, group_size: int) -> WeightFormat:
    try:
        return parse_format(dtype, group_size if dtype in ("gptq", "awq") else None)
    except MemoryInputError as exc:
        raise ArgumentError(f"dtype: {exc}") from None


def guard(fn: Any) -> Any:
    """Turn calculator input errors into the registry's ArgumentError (one line, no traceback)."""
    return refusals_as_argument_errors(fn, lambda: MemoryInputError)


# ----------------------------------------------------------------------------- weights


def weights(params: int, dtype: str = "fp16", group_size: int = 128) -> dict[str, Any]:
    """Weight bytes of a bare parameter count in a dtype or quantization format."""
    fmt = weight_format(dtype, group_size)
    size = bytes_for_parameter_count(params, fmt)
    return {
        "weights_bytes": size,
        "bytes_per_parameter": fmt.nominal_bits_per_weight / 8,
        "bits_per_weight": fmt.nominal_bits_per_weight,
        "gb": size / 1e9,
        "gib": size / 2**30,
        "format": fmt.name,
    }


def explain_weights(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    per = r["bytes_per_parameter"]
    # "weights" after the count: "146,800,640 × 1.0625 B" is read as a formula split at a comma.
    text = f"{sci(args['params'])} weights × {per:g} B = {both_units(r['weights_bytes'])}"
    if r["format"] not in PLAIN_BITS:
        text += f" ({r['bits_per_weight']:g} bits per weight including scales)"
    return (
        text + ". GB is 10^9 B and GiB 2^30 B: a GiB is 7.4% larger, so the GiB figure is smaller."
    )


def model_weights(model: str, dtype: str = "fp16", group_size: int = 128) -> dict[str, Any]:
    """Weight bytes of a catalog model, tensor by tensor, in a dtype or quantization format."""
    cfg = load_model(model)
    fmt = weight_format(dtype, group_size)
    w = weight_bytes(tensors(cfg), fmt)
    return {
        "weights_bytes": w.total_bytes,
        "bytes_per_parameter": w.bytes_per_parameter,
        "parameters": w.parameters,
        "quantized_parameters": w.quantized_parameters,
        "kept_parameters": w.kept_parameters,
        "kept_dtype": fmt.kept_dtype or fmt.name,
        "format": fmt.describe(),
    }


def explain_model_weights(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = f"{args['model']}: {r['parameters']:,} parameters in {r['format']}"
    if r["kept_parameters"]:
        text += (
            f"; {r['quantized_parameters']:,} quantized, {r['kept_parameters']:,} kept in "
            f"{r['kept_dtype']}"
        )
    return f"{text} → {r['weights_bytes']:,} B = {both_units(r['weights_bytes'])}."


# ----------------------------------------------------------------------------- parameters

COMPONENT_FIELDS = {
    Component.EMBEDDINGS: "embedding_parameters",
    Component.ATTENTION: "attention_parameters",
    Component.MLP: "mlp_parameters",
    Component.ROUTER: "router_parameters",
    Component.NORMS: "norm_parameters",
    Component.HEAD: "head_parameters",
}


def model_params(model: str) -> dict[str, Any]:
    """Exact parameter count of a catalog model, by component; MoE total and active."""
    cfg = load_model(model)
    counts = count_parameters(cfg)
    result: dict[str, Any] = {
        "parameters": counts.total,
        "active_parameters": counts.active,
        "layers": cfg.num_layers,
        "hidden_size": cfg.hidden_size,
        "heads": cfg.num_heads,
        "kv_heads": cfg.num_kv_heads,
        "head_dim": cfg.head_dim,
        "intermediate_size": cfg.intermediate_size,
        "vocab_size": cfg.vocab_size,
        "max_position_embeddings": cfg.max_position_embeddings or 0,
        "attention": cfg.attention_kind,
        "tied_embeddings": cfg.tie_embeddings,
    }
    for component, key in COMPONENT_FIELDS.items():
        result[key] = counts.component(component)
    return result


def explain_model_params(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    parts = [
        f"{key.removesuffix('_parameters')} {r[key]:,}"
        for key in COMPONENT_FIELDS.values()
        if r[key]
    ]
    text = f"{args['model']}: " + " + ".join(parts) + f" = **{r['parameters']:,}** parameters"
    if r["active_parameters"] != r["parameters"]:
        text += f"; a token uses {r['active_parameters']:,} (top-k experts only)"
    if r["tied_embeddings"]:
        text += "; the output head shares the embedding matrix"
    return text + "."


def decoder_layer(hidden: int, kv_width: int, intermediate: int) -> dict[str, Any]:
    """Parameters of one Llama decoder layer from its widths: attention, MLP, norms."""
    parts = llama_layer(hidden, kv_width, intermediate)
    return {
        "parameters": sum(parts.values()),
        "attention_parameters": parts[Component.ATTENTION],
        "mlp_parameters": parts[Component.MLP],
        "norm_parameters": parts[Component.NORMS],
    }


def explain_decoder_layer(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    h, k, f = args["hidden"], args["kv_width"], args["intermediate"]
    return (
        f"q, o: 2 × {h:,}²; k, v: 2 × {h:,} × {k:,} → attention {r['attention_parameters']:,}; "
        f"gate, up, down: 3 × {h:,} × {f:,} → MLP {r['mlp_parameters']:,}; two norms "
        f"{r['norm_parameters']:,}: **{r['parameters']:,}** parameters."
    )


# ----------------------------------------------------------------------------- KV cache


def kv_cache(
    model: str | None = None,
    layers: int | None = None,
    kv_heads: int | None = None,
    head_dim: int | None = None,
    dtype: str = "fp16",
    context: int = 4096,
    batch: int = 1,
    element_bytes: int | None = None,
) -> dict[str, Any]:
    """KV cache: 2 · layers · kv_heads · head_dim · bytes per token, × tokens × batch."""
    # element_bytes: bytes of one cached value, for a width no dtype names (overrides dtype)
    kv_bytes = element_bytes or parse_kv_dtype(dtype).bits // 8
    shape = (layers, kv_heads, head_dim)
    if model is not None:
        if any(v is not None for v in shape):
            raise ArgumentError("give either model or layers/kv_heads/head_dim, not both")
        cfg = load_model(model)
        per_token = inference.kv_bytes_per_token(
            cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, kv_bytes
        )
        total = inference.kv_cache_bytes(cfg, context, batch, kv_bytes)
        layers, kv_heads, head_dim = cfg.num_layers, cfg.num_kv_heads, cfg.head_dim
        window = max((w or 0) for w in cfg.sliding_windows) or None
    else:
        if any(v is None for v in shape):
            raise ArgumentError("give a model, or all of layers, kv_heads and head_dim")
        assert layers is not None and kv_heads is not None and head_dim is not None
        per_token = inference.kv_bytes_per_token(layers, kv_heads, head_dim, kv_bytes)
        total = per_token * context * batch
        window = None
    return {
        "kv_bytes_per_token": per_token,
        "kv_cache_bytes": total,
        "layers": layers,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "kv_dtype_bytes": kv_bytes,
        "sliding_window": window or 0,
    }


def explain_kv(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = (
        f"2 (K and V) × {r['layers']} layers × {r['kv_heads']} KV heads × {r['head_dim']} × "
        f"{r['kv_dtype_bytes']} B = {r['kv_bytes_per_token']:,} B per token; × "
        f"{units.format_count(args['context'], 'tokens')} × batch {args['batch']}"
    )
    if r["sliding_window"] and args["context"] > r["sliding_window"]:
        text += f" (each layer keeps at most its {r['sliding_window']:,}-token window)"
    return f"{text} = {r['kv_cache_bytes']:,} B = {both_units(r['kv_cache_bytes'])}. Linear in context."


# ----------------------------------------------------------------------------- inference


def _kv_format(kv_dtype: str) -> WeightFormat | None:
    return None if kv_dtype == "auto" else parse_kv_dtype(kv_dtype)


def inference_memory(
    model: str,
    dtype: str = "fp16",
    kv_dtype: str = "auto",
    context: int = 4096,
    batch: int = 1,
    gpu: str = "h100-80gb",
    gpus: int = 1,
    utilization: float = DEFAULT_UTILIZATION,
    overhead: int = inference.DEFAULT_OVERHEAD_BYTES,
    flash_attention: bool = True,
) -> dict[str, Any]:
    """Inference memory of a catalog model: weights, KV cache, activations, overhead, fit."""
    cfg = load_model(model)
    fmt = weight_format(dtype, 128)
    est = inference.estimate(
        cfg,
        fmt,
        kv_format=_kv_format(kv_dtype),
        context=context,
        batch=batch,
        flash_attention=flash_attention,
        overhead_bytes=overhead,
    )
    device = find_gpu(gpu)
    assert est.activations is not None and est.kv_cache_bytes is not None
    per_gpu = est.per_gpu_bytes(gpus)
    usable = device.usable_bytes(utilization)
    needed = inference.gpus_needed(est, device, utilization)
    return {
        "parameters": est.parameters,
        "active_parameters": est.active_parameters,
        "weights_bytes": est.weights_bytes,
        "kv_bytes_per_token": est.kv_bytes_per_token,
        "kv_cache_bytes": est.kv_cache_bytes,
        "activation_bytes": est.activations.total_bytes,
        "score_matrix_bytes": est.activations.score_matrix_bytes,
        "overhead_bytes": est.overhead_bytes,
        "total_bytes": est.total_bytes,
        "per_gpu_bytes": per_gpu,
        "usable_bytes_per_gpu": usable,
        "gpus_needed": needed,
        "tp_gpus": inference.tp_degree(cfg, needed),
        "fits": "yes" if per_gpu <= usable else "no",
        "gpu_name": device.name,
    }


def explain_inference(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"weights {both_units(r['weights_bytes'])} + KV cache {both_units(r['kv_cache_bytes'])} "
        f"({r['kv_bytes_per_token']:,} B/token × {args['context']:,} × {args['batch']}) + "
        f"activations {both_units(r['activation_bytes'])} + overhead {both_units(r['overhead_bytes'])} = "
        f"**{both_units(r['total_bytes'])}**. One {r['gpu_name']} offers {both_units(r['usable_bytes_per_gpu'])} "
        f"at utilization {args['utilization']:g}: {units.format_count(r['gpus_needed'], 'GPUs')} "
        f"needed; on "
        f"{args['gpus']}: {both_units(r['per_gpu_bytes'])} each, fits: {r['fits']}."
    )


def gpus_needed(
    model: str | None = None,
    params: int | None = None,
    dtype: str = "fp16",
    context: int = 4096,
    batch: int = 1,
    gpu: str = "a100-80gb",
    utilization: float = DEFAULT_UTILIZATION,
    overhead: int = inference.DEFAULT_OVERHEAD_BYTES,
) -> dict[str, Any]:
    """How many GPUs a model needs: a catalog model in full, or a parameter count's weights."""
    if (model is None) == (params is None):
        raise ArgumentError("give either model or params")
    cfg = load_model(model) if model is not None else None
    est = inference.estimate(
        cfg,
        weight_format(dtype, 128),
        parameters=params,
        context=context,
        batch=batch,
        overhead_bytes=overhead,
    )
    device = find_gpu(gpu)
    return {
        "gpus_needed": inference.gpus_needed(est, device, utilization),
        "total_bytes": est.total_bytes,
        "shardable_bytes": est.shardable_bytes,
        "usable_bytes_per_gpu": device.usable_bytes(utilization),
        "gpu_memory_bytes": device.memory_bytes,
        "gpu_name": device.name,
        "weights_only": cfg is None,
    }


def explain_gpus_needed(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    what = "weights" if r["weights_only"] else "weights + KV cache + activations"
    return (
        f"{what} = {both_units(r['shardable_bytes'])}, split over n GPUs, plus "
        f"{both_units(args['overhead'])} overhead on each. One {r['gpu_name']} reports "
        f"{both_units(r['gpu_memory_bytes'])}; usable at {args['utilization']:g}: "
        f"{both_units(r['usable_bytes_per_gpu'])}. Smallest n that fits: **{r['gpus_needed']}**."
    )


def max_context(
    model: str,
    dtype: str = "fp16",
    kv_dtype: str = "auto",
    batch: int = 1,
    gpu: str = "rtx-4090",
    gpus: int = 1,
    utilization: float = DEFAULT_UTILIZATION,
    overhead: int = inference.DEFAULT_OVERHEAD_BYTES,
    flash_attention: bool = True,
) -> dict[str, Any]:
    """Longest context (tokens per sequence) that fits on ``gpus`` × ``gpu``."""
    cfg = load_model(model)
    fmt = weight_format(dtype, 128)
    kv_fmt = _kv_format(kv_dtype)
    device = find_gpu(gpu)
    tokens = inference.max_context(
        cfg,
        fmt,
        device,
        gpus=gpus,
        kv_format=kv_fmt,
        batch=batch,
        utilization=utilization,
        flash_attention=flash_attention,
        overhead_bytes=overhead,
    )
    kv_bytes = (kv_fmt.bits // 8) if kv_fmt else fmt.compute_bytes
    return {
        "max_context": tokens,
        "model_max_context": cfg.max_position_embeddings or 0,
        "kv_bytes_per_token": inference.kv_bytes_per_token(
            cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, kv_bytes
        ),
        "weights_bytes": weight_bytes(tensors(cfg), fmt).total_bytes,
        "usable_bytes_per_gpu": device.usable_bytes(utilization),
        "gpu_name": device.name,
    }


def explain_max_context(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = (
        f"{args['gpus']} × {r['gpu_name']} at utilization {args['utilization']:g}: "
        f"{both_units(r['usable_bytes_per_gpu'])} each. Weights take {both_units(r['weights_bytes'])}; "
        f"each token adds {r['kv_bytes_per_token']:,} B of KV cache × batch {args['batch']}, "
        "plus activations. Largest context that still fits: "
        f"**{r['max_context']:,} tokens**"
    )
    if r["model_max_context"] and r["max_context"] > r["model_max_context"]:
        text += f" (the model itself was trained for {r['model_max_context']:,})"
    return text + "."


def rule_of_thumb(params: int, dtype: str = "fp16", headroom: float = 0.2) -> dict[str, Any]:
    """The common rule-of-thumb estimate: parameters × bytes, plus 20–30% headroom; in GB and GiB."""
    fmt = weight_format(dtype, 128)
    base = bytes_for_parameter_count(params, fmt)
    with_headroom = round(base * (1 + headroom))
    return {
        "weights_bytes": base,
        "with_headroom_bytes": with_headroom,
        "gb": base / 1e9,
        "gib": base / 2**30,
        "gib_shortfall": 1 - (base / 2**30) / (base / 1e9),
    }


def explain_rule_of_thumb(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{sci(args['params'])} × {r['weights_bytes'] / args['params']:g} B = "
        f"{r['weights_bytes']:,} B = "
        f'{r["gb"]:,.2f} GB = {r["gib"]:,.2f} GiB (a bare "G" hides a '
        f"{r['gib_shortfall']:.1%} difference); + {args['headroom']:.0%} headroom = "
        f"{both_units(r['with_headroom_bytes'])}. The rule ignores the KV cache, which grows with context."
    )
