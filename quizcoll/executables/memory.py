"""GPU-memory calculators as executables (``memory.*``): weights, parameter counts, KV cache,
inference totals and GPU fit, ZeRO training memory, activations, the study notes' rule of
thumb. Each returns plain numbers and has a short worked solution (``explain``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck import units
from deck.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.executables.common import overhead_param, utilization_param
from quizcoll.memory import inference, training
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import (
    GGUF_BLOCKS,
    GGUF_FORMATS,
    KV_DTYPES,
    PLAIN_BITS,
    FormatKind,
    WeightFormat,
    bytes_for_parameter_count,
    parse_format,
    parse_kv_dtype,
    weight_bytes,
)
from quizcoll.memory.gpus import DEFAULT_UTILIZATION, find_gpu, gpu_names
from quizcoll.memory.params import Component, count_parameters, llama_layer, tensors

MAX_PARAMS = 1e13
MAX_CONTEXT = 10_000_000
MAX_BATCH = 4096
FORMATS: tuple[str, ...] = (*PLAIN_BITS, "gptq", "awq", *GGUF_FORMATS)


def _gb(n: float) -> str:
    return units.format_bytes_pair(n)


def _sci(n: float) -> str:
    """``7000000000`` → ``7×10^9``; other numbers with thousands separators."""
    if n >= 1e6:
        exp = len(str(int(n))) - 1
        mant = n / 10**exp
        if abs(mant - round(mant, 3)) < 1e-9:
            return f"{round(mant, 3):g}×10^{exp}"
    return f"{n:,}"


def _fmt(dtype: str, group_size: int) -> WeightFormat:
    try:
        return parse_format(dtype, group_size if dtype in ("gptq", "awq") else None)
    except MemoryInputError as exc:
        raise ArgumentError(f"dtype: {exc}") from None


def _guard(fn: Any) -> Any:
    """Turn calculator input errors into the registry's ArgumentError (one line, no traceback)."""
    return refusals_as_argument_errors(fn, lambda: MemoryInputError)


# ----------------------------------------------------------------------------- weights


def weights(params: int, dtype: str = "fp16", group_size: int = 128) -> dict[str, Any]:
    """Weight bytes of a bare parameter count in a dtype or quantization format."""
    fmt = _fmt(dtype, group_size)
    size = bytes_for_parameter_count(params, fmt)
    return {
        "weights_bytes": size,
        "bytes_per_parameter": fmt.nominal_bits_per_weight / 8,
        "bits_per_weight": fmt.nominal_bits_per_weight,
        "gb": size / 1e9,
        "gib": size / 2**30,
        "format": fmt.name,
    }


def _explain_weights(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    per = r["bytes_per_parameter"]
    text = f"{_sci(args['params'])} × {per:g} B = {_gb(r['weights_bytes'])}"
    if r["format"] not in PLAIN_BITS:
        text += f" ({r['bits_per_weight']:g} bits per weight including scales)"
    return (
        text + ". GB is 10^9 B and GiB 2^30 B: a GiB is 7.4% larger, so the GiB figure is smaller."
    )


def model_weights(model: str, dtype: str = "fp16", group_size: int = 128) -> dict[str, Any]:
    """Weight bytes of a catalog model, tensor by tensor, in a dtype or quantization format."""
    cfg = load_model(model)
    fmt = _fmt(dtype, group_size)
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


def _explain_model_weights(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = f"{args['model']}: {r['parameters']:,} parameters in {r['format']}"
    if r["kept_parameters"]:
        text += (
            f"; {r['quantized_parameters']:,} quantized, {r['kept_parameters']:,} kept in "
            f"{r['kept_dtype']}"
        )
    return f"{text} → {r['weights_bytes']:,} B = {_gb(r['weights_bytes'])}."


# ----------------------------------------------------------------------------- parameters

_COMPONENT_FIELDS = {
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
    for component, key in _COMPONENT_FIELDS.items():
        result[key] = counts.component(component)
    return result


def _explain_model_params(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    parts = [
        f"{key.removesuffix('_parameters')} {r[key]:,}"
        for key in _COMPONENT_FIELDS.values()
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


def _explain_decoder_layer(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
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


def _explain_kv(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = (
        f"2 (K and V) × {r['layers']} layers × {r['kv_heads']} KV heads × {r['head_dim']} × "
        f"{r['kv_dtype_bytes']} B = {r['kv_bytes_per_token']:,} B per token; × "
        f"{units.format_count(args['context'], 'tokens')} × batch {args['batch']}"
    )
    if r["sliding_window"] and args["context"] > r["sliding_window"]:
        text += f" (each layer keeps at most its {r['sliding_window']:,}-token window)"
    return f"{text} = {r['kv_cache_bytes']:,} B = {_gb(r['kv_cache_bytes'])}. Linear in context."


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
    fmt = _fmt(dtype, 128)
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


def _explain_inference(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"weights {_gb(r['weights_bytes'])} + KV cache {_gb(r['kv_cache_bytes'])} "
        f"({r['kv_bytes_per_token']:,} B/token × {args['context']:,} × {args['batch']}) + "
        f"activations {_gb(r['activation_bytes'])} + overhead {_gb(r['overhead_bytes'])} = "
        f"**{_gb(r['total_bytes'])}**. One {r['gpu_name']} offers {_gb(r['usable_bytes_per_gpu'])} "
        f"at utilization {args['utilization']:g}: {r['gpus_needed']} GPU(s) needed; on "
        f"{args['gpus']}: {_gb(r['per_gpu_bytes'])} each, fits: {r['fits']}."
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
        _fmt(dtype, 128),
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


def _explain_gpus_needed(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    what = "weights" if r["weights_only"] else "weights + KV cache + activations"
    return (
        f"{what} = {_gb(r['shardable_bytes'])}, split over n GPUs, plus "
        f"{_gb(args['overhead'])} overhead on each. One {r['gpu_name']} reports "
        f"{_gb(r['gpu_memory_bytes'])}; usable at {args['utilization']:g}: "
        f"{_gb(r['usable_bytes_per_gpu'])}. Smallest n that fits: **{r['gpus_needed']}**."
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
    fmt = _fmt(dtype, 128)
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


def _explain_max_context(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = (
        f"{args['gpus']} × {r['gpu_name']} at utilization {args['utilization']:g}: "
        f"{_gb(r['usable_bytes_per_gpu'])} each. Weights take {_gb(r['weights_bytes'])}; "
        f"each token adds {r['kv_bytes_per_token']:,} B of KV cache × batch {args['batch']}, "
        "plus activations. Largest context that still fits: "
        f"**{r['max_context']:,} tokens**"
    )
    if r["model_max_context"] and r["max_context"] > r["model_max_context"]:
        text += f" (the model itself was trained for {r['model_max_context']:,})"
    return text + "."


def rule_of_thumb(params: int, dtype: str = "fp16", headroom: float = 0.2) -> dict[str, Any]:
    """The study notes' estimate: parameters × bytes, plus 20–30% headroom; in GB and GiB."""
    fmt = _fmt(dtype, 128)
    base = bytes_for_parameter_count(params, fmt)
    with_headroom = round(base * (1 + headroom))
    return {
        "weights_bytes": base,
        "with_headroom_bytes": with_headroom,
        "gb": base / 1e9,
        "gib": base / 2**30,
        "gib_shortfall": 1 - (base / 2**30) / (base / 1e9),
    }


def _explain_rule_of_thumb(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{_sci(args['params'])} × {r['weights_bytes'] / args['params']:g} B = "
        f"{r['weights_bytes']:,} B = "
        f'{r["gb"]:,.2f} GB = {r["gib"]:,.2f} GiB (a bare "G" hides a '
        f"{r['gib_shortfall']:.1%} difference); + {args['headroom']:.0%} headroom = "
        f"{_gb(r['with_headroom_bytes'])}. The rule ignores the KV cache, which grows with context."
    )


# ----------------------------------------------------------------------------- training


def training_memory(
    params: int, zero_stage: int = 0, gpus: int = 1, k: float = 12, grad_bytes: float = 2
) -> dict[str, Any]:
    """Per-GPU model states of mixed-precision Adam with ZeRO (Rajbhandari et al. 2020)."""
    states = training.model_states(params, zero_stage, gpus, k, grad_bytes)
    baseline = training.model_states(params, 0, gpus, k, grad_bytes)
    return {**states.as_dict(), "baseline_total": baseline.total}


_ZERO_FORMULA = {  # {g}: gradient bytes per parameter (2 in the ZeRO paper)
    0: "(2 + {g} + K)Ψ",
    1: "2Ψ + {g}Ψ + KΨ/N",
    2: "2Ψ + ({g} + K)Ψ/N",
    3: "(2 + {g} + K)Ψ/N",
}


def _explain_training(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    formula = _ZERO_FORMULA[args["zero_stage"]].format(g=f"{args['grad_bytes']:g}")
    return (
        f"ZeRO stage {args['zero_stage']}: {formula} with "
        f"Ψ = {_sci(args['params'])}, K = {args['k']:g}, N = {args['gpus']}: weights "
        f"{_gb(r['weights'])} + gradients {_gb(r['gradients'])} + optimizer states "
        f"{_gb(r['optimizer_states'])} = **{_gb(r['total'])}** per GPU "
        f"(no ZeRO: {_gb(r['baseline_total'])})."
    )


def activations(
    model: str | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    layers: int | None = None,
    seq_len: int = 2048,
    micro_batch: int = 1,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
) -> dict[str, Any]:
    """Training activations per Korthikanti et al. (2022): sbh(34 + 5as/h) per layer at t = 1."""
    shape = (hidden, heads, layers)
    if model is not None:
        if any(v is not None for v in shape):
            raise ArgumentError("give either model or hidden/heads/layers, not both")
        cfg = load_model(model)
        hidden, heads, layers = cfg.hidden_size, cfg.num_heads, cfg.num_layers
    elif any(v is None for v in shape):
        raise ArgumentError("give a model, or all of hidden, heads and layers")
    assert hidden is not None and heads is not None and layers is not None
    acts = training.training_activations(
        seq_len=seq_len,
        micro_batch=micro_batch,
        hidden=hidden,
        heads=heads,
        layers=layers,
        tensor_parallel=tensor_parallel,
        sequence_parallel=sequence_parallel,
        recompute=training.Recompute(recompute),
    )
    # The attention part of the stored activations (scores, softmax, dropout mask: 5as²b/t),
    # which selective and full recomputation both drop.
    scores = 5 * heads * seq_len**2 * micro_batch / tensor_parallel if recompute == "none" else 0
    return {
        "per_layer_bytes": acts.per_layer_bytes,
        "total_bytes": acts.total_bytes,
        "scores_bytes": scores,
        "formula": acts.formula,
        "hidden": hidden,
        "heads": heads,
        "layers": layers,
    }


def _explain_activations(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"Per layer {r['formula']} with s = {args['seq_len']:,}, b = {args['micro_batch']}, "
        f"h = {r['hidden']:,}, a = {r['heads']}, t = {args['tensor_parallel']}: "
        f"{r['per_layer_bytes']:,.0f} B; × {r['layers']} layers = **{_gb(r['total_bytes'])}**."
    )


# ----------------------------------------------------------------------------- formats, GPUs


def bits_per_weight(format: str, group_size: int = 128) -> dict[str, Any]:
    """Bits per weight of a quantization format, from its block or group layout."""
    fmt = _fmt(format, group_size)
    if fmt.kind is FormatKind.GGUF:
        block = GGUF_BLOCKS[fmt.name]
        block_size, block_bytes, layout = block.block_size, block.block_bytes, block.layout
    elif fmt.kind is FormatKind.PLAIN:
        block_size, block_bytes, layout = 1, fmt.bits / 8, f"{fmt.bits}-bit values"
    else:
        block_size = fmt.group_size
        block_bytes = fmt.group_size * fmt.bits / 8 + 2 + 0.5
        layout = f"{fmt.group_size} × 4-bit weights + fp16 scale + 4-bit zero per group"
    return {
        "bits_per_weight": fmt.nominal_bits_per_weight,
        "block_size": block_size,
        "block_bytes": block_bytes,
        "layout": layout,
    }


def _explain_bits(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{args['format']}: {r['layout']} = {r['block_bytes']:g} B per {r['block_size']} "
        f"weight(s) → {r['block_bytes']:g} × 8 / {r['block_size']} = "
        f"**{r['bits_per_weight']:g} bits per weight**."
    )


def gpu_memory(gpu: str, utilization: float = DEFAULT_UTILIZATION) -> dict[str, Any]:
    """Memory a GPU really reports, and the part an engine may use."""
    device = find_gpu(gpu)
    return {
        "reported_bytes": device.memory_bytes,
        "reported_mib": device.reported_mib,
        "usable_bytes": device.usable_bytes(utilization),
        "gb": device.memory_bytes / 1e9,
        "gib": device.memory_bytes / 2**30,
        "gpu_name": device.name,
    }


def _explain_gpu(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{r['gpu_name']} reports {r['reported_mib']:,} MiB = {r['reported_bytes']:,} B = "
        f"{_gb(r['reported_bytes'])}; at utilization {args['utilization']:g}: "
        f"{_gb(r['usable_bytes'])}."
    )


# ----------------------------------------------------------------------------- registration


def register(registry: Registry) -> None:
    models = model_names()
    gpus = gpu_names()
    model = Param("model", ParamKind.STR, "a built-in model", choices=models)
    optional_model = Param("model", ParamKind.STR, "a built-in model", choices=models, default=None)
    params = Param("params", ParamKind.INT, "parameter count", minimum=1, maximum=MAX_PARAMS)
    dtype = Param(
        "dtype",
        ParamKind.STR,
        "weight dtype or quantization format",
        choices=FORMATS,
        default="fp16",
    )
    group = Param(
        "group_size", ParamKind.INT, "GPTQ/AWQ group size", minimum=8, maximum=4096, default=128
    )
    kv_dtype = Param(
        "kv_dtype", ParamKind.STR, "KV-cache dtype", choices=("auto", *KV_DTYPES), default="auto"
    )
    context = Param(
        "context",
        ParamKind.INT,
        "tokens per sequence",
        minimum=1,
        maximum=MAX_CONTEXT,
        default=4096,
    )
    batch = Param("batch", ParamKind.INT, "sequences", minimum=1, maximum=MAX_BATCH, default=1)
    utilization = utilization_param()
    overhead = overhead_param()
    gpu_count = Param("gpus", ParamKind.INT, "number of GPUs", minimum=1, maximum=4096, default=1)
    flash = Param("flash_attention", ParamKind.BOOL, "FlashAttention (no T×T scores)", default=True)

    def gpu(default: str) -> Param:
        return Param("gpu", ParamKind.STR, "GPU", choices=gpus, default=default)

    B, C, R, T = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.TEXT

    registry.add_function(
        "memory.weights",
        _guard(weights),
        params=[params, dtype, group],
        fields=[
            Field("weights_bytes", B, "weight bytes"),
            Field("bytes_per_parameter", R, "bytes per parameter"),
            Field("bits_per_weight", R, "bits per weight, scales included"),
            Field("gb", R, "weights in GB (10^9 B)"),
            Field("gib", R, "weights in GiB (2^30 B)"),
        ],
        explain=_explain_weights,
    )
    registry.add_function(
        "memory.model_weights",
        _guard(model_weights),
        params=[model, dtype, group],
        fields=[
            Field("weights_bytes", B, "weight bytes from the tensor layout"),
            Field("bytes_per_parameter", R, "average bytes per parameter"),
            Field("quantized_parameters", C, "parameters stored quantized"),
            Field("kept_parameters", C, "parameters left in 16/32-bit"),
        ],
        explain=_explain_model_weights,
    )
    registry.add_function(
        "memory.model_params",
        _guard(model_params),
        params=[model],
        fields=[
            Field("parameters", C, "total parameters"),
            Field("active_parameters", C, "parameters a token uses (MoE: top-k experts)"),
            *(Field(key, C, f"{c.value} parameters") for c, key in _COMPONENT_FIELDS.items()),
            Field("layers", C, "transformer layers"),
            Field("hidden_size", C, "hidden size"),
            Field("heads", C, "attention heads"),
            Field("kv_heads", C, "key/value heads"),
            Field("head_dim", C, "head size"),
            Field("intermediate_size", C, "MLP width"),
            Field("vocab_size", C, "vocabulary"),
            Field("max_position_embeddings", C, "the trained context (0 if the config has none)"),
            Field("attention", T, "MHA, GQA or MQA"),
        ],
        explain=_explain_model_params,
    )
    width = {"minimum": 1, "maximum": 1_000_000}
    registry.add_function(
        "memory.decoder_layer",
        _guard(decoder_layer),
        params=[
            Param("hidden", ParamKind.INT, "hidden size h", **width),
            Param("kv_width", ParamKind.INT, "key/value width: kv_heads × head_dim", **width),
            Param("intermediate", ParamKind.INT, "MLP width", **width),
        ],
        fields=[
            Field("parameters", C, "one layer"),
            Field("attention_parameters", C, "q, k, v, o"),
            Field("mlp_parameters", C, "gate, up, down"),
            Field("norm_parameters", C, "the two RMSNorm weights"),
        ],
        explain=_explain_decoder_layer,
    )
    registry.add_function(
        "memory.kv_cache",
        _guard(kv_cache),
        params=[
            optional_model,
            Param("layers", ParamKind.INT, "layers", minimum=1, maximum=1000, default=None),
            Param(
                "kv_heads", ParamKind.INT, "key/value heads", minimum=1, maximum=1024, default=None
            ),
            Param(
                "head_dim", ParamKind.INT, "head dimension", minimum=1, maximum=4096, default=None
            ),
            Param("dtype", ParamKind.STR, "KV-cache dtype", choices=KV_DTYPES, default="fp16"),
            context,
            batch,
            Param(
                "element_bytes",
                ParamKind.INT,
                "bytes per cached value (overrides dtype)",
                minimum=1,
                maximum=8,
                default=None,
            ),
        ],
        fields=[
            Field("kv_bytes_per_token", B, "KV bytes per token, all layers"),
            Field("kv_cache_bytes", B, "KV cache for context × batch"),
            Field("layers", C, "layers"),
            Field("kv_heads", C, "key/value heads"),
            Field("head_dim", C, "dimension of one head"),
            Field("kv_dtype_bytes", B, "bytes of one cached value"),
            Field("sliding_window", C, "tokens a layer keeps at most (0: no window)"),
        ],
        explain=_explain_kv,
    )
    registry.add_function(
        "memory.inference",
        _guard(inference_memory),
        params=[
            model,
            dtype,
            kv_dtype,
            context,
            batch,
            gpu("h100-80gb"),
            gpu_count,
            utilization,
            overhead,
            flash,
        ],
        fields=[
            Field("parameters", C, "total parameters"),
            Field("weights_bytes", B, "weights"),
            Field("kv_bytes_per_token", B, "KV bytes per token"),
            Field("kv_cache_bytes", B, "KV cache"),
            Field("activation_bytes", B, "forward-pass activations"),
            Field("score_matrix_bytes", B, "attention score matrices (0 with FlashAttention)"),
            Field("overhead_bytes", B, "runtime overhead"),
            Field("total_bytes", B, "total on one GPU"),
            Field("per_gpu_bytes", B, "per GPU when split over gpus"),
            Field("usable_bytes_per_gpu", B, "usable memory of one GPU"),
            Field("gpus_needed", C, "GPUs needed"),
            Field(
                "tp_gpus",
                C,
                "smallest valid tensor-parallel degree ≥ gpus_needed in one 8-GPU node (0: none)",
            ),
            Field("fits", T, "yes if it fits on gpus × gpu"),
        ],
        explain=_explain_inference,
    )
    registry.add_function(
        "memory.gpus_needed",
        _guard(gpus_needed),
        params=[
            optional_model,
            Param(
                "params",
                ParamKind.INT,
                "parameter count (weights only)",
                minimum=1,
                maximum=MAX_PARAMS,
                default=None,
            ),
            dtype,
            context,
            batch,
            gpu("a100-80gb"),
            utilization,
            overhead,
        ],
        fields=[
            Field("gpus_needed", C, "GPUs needed"),
            Field("total_bytes", B, "memory on one GPU"),
            Field("usable_bytes_per_gpu", B, "usable memory of one GPU"),
        ],
        explain=_explain_gpus_needed,
    )
    registry.add_function(
        "memory.max_context",
        _guard(max_context),
        params=[
            model,
            dtype,
            kv_dtype,
            batch,
            gpu("rtx-4090"),
            gpu_count,
            utilization,
            overhead,
            flash,
        ],
        fields=[
            Field("max_context", C, "longest context that fits, tokens"),
            Field("model_max_context", C, "the model's trained context"),
            Field("kv_bytes_per_token", B, "KV bytes per token"),
        ],
        explain=_explain_max_context,
    )
    registry.add_function(
        "memory.rule_of_thumb",
        _guard(rule_of_thumb),
        params=[
            params,
            dtype,
            Param(
                "headroom", ParamKind.FLOAT, "headroom fraction", minimum=0, maximum=1, default=0.2
            ),
        ],
        fields=[
            Field("weights_bytes", B, "parameters × bytes"),
            Field("with_headroom_bytes", B, "plus headroom"),
            Field("gb", R, "weights in GB"),
            Field("gib", R, "weights in GiB"),
            Field(
                "gib_shortfall", R, "how much smaller the GiB figure is than the GB one (6.9% at G)"
            ),
        ],
        explain=_explain_rule_of_thumb,
    )
    registry.add_function(
        "memory.training",
        _guard(training_memory),
        params=[
            params,
            Param("zero_stage", ParamKind.INT, "ZeRO stage", minimum=0, maximum=3, default=0),
            Param(
                "gpus", ParamKind.INT, "data-parallel GPUs", minimum=1, maximum=1_000_000, default=1
            ),
            Param(
                "k",
                ParamKind.FLOAT,
                "optimizer bytes per parameter",
                minimum=1,
                maximum=64,
                default=12.0,
            ),
            Param(
                "grad_bytes",
                ParamKind.FLOAT,
                "gradient bytes per parameter (2: fp16/bf16; 4: fp32 main grads)",
                minimum=1,
                maximum=8,
                default=2.0,
            ),
        ],
        fields=[
            Field("weights", B, "fp16 weights per GPU"),
            Field("gradients", B, "gradients per GPU (grad_bytes each)"),
            Field("optimizer_states", B, "optimizer states per GPU"),
            Field("total", B, "model states per GPU"),
            Field("baseline_total", B, "model states without ZeRO"),
        ],
        explain=_explain_training,
    )
    registry.add_function(
        "memory.activations",
        _guard(activations),
        params=[
            optional_model,
            Param(
                "hidden", ParamKind.INT, "hidden size", minimum=1, maximum=1_000_000, default=None
            ),
            Param("heads", ParamKind.INT, "attention heads", minimum=1, maximum=4096, default=None),
            Param("layers", ParamKind.INT, "layers", minimum=1, maximum=1000, default=None),
            Param(
                "seq_len",
                ParamKind.INT,
                "sequence length",
                minimum=1,
                maximum=MAX_CONTEXT,
                default=2048,
            ),
            Param(
                "micro_batch", ParamKind.INT, "micro-batch", minimum=1, maximum=MAX_BATCH, default=1
            ),
            Param(
                "tensor_parallel",
                ParamKind.INT,
                "tensor-parallel size",
                minimum=1,
                maximum=1024,
                default=1,
            ),
            Param("sequence_parallel", ParamKind.BOOL, "sequence parallelism", default=False),
            Param(
                "recompute",
                ParamKind.STR,
                "recomputation",
                choices=("none", "selective", "full"),
                default="none",
            ),
        ],
        fields=[
            Field("per_layer_bytes", B, "activations of one layer"),
            Field("total_bytes", B, "activations of all layers"),
            Field("scores_bytes", B, "of one layer's: attention scores, softmax, dropout mask"),
            Field("hidden", C, "hidden size h"),
            Field("heads", C, "attention heads a"),
            Field("layers", C, "layers"),
        ],
        explain=_explain_activations,
    )
    registry.add_function(
        "memory.bits_per_weight",
        _guard(bits_per_weight),
        params=[
            Param("format", ParamKind.STR, "dtype or quantization format", choices=FORMATS),
            group,
        ],
        fields=[
            Field("bits_per_weight", R, "bits per weight"),
            Field("block_size", C, "weights per block or group"),
            Field("block_bytes", B, "bytes per block or group"),
        ],
        explain=_explain_bits,
    )
    registry.add_function(
        "memory.gpu",
        _guard(gpu_memory),
        params=[Param("gpu", ParamKind.STR, "GPU", choices=gpus), utilization],
        fields=[
            Field("reported_bytes", B, "memory the GPU reports"),
            Field("usable_bytes", B, "usable at the utilization"),
            Field("gb", R, "reported memory in GB"),
            Field("gib", R, "reported memory in GiB"),
        ],
        explain=_explain_gpu,
    )
