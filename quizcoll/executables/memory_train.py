"""The training-memory calculators as executable functions (ZeRO model states,
activations), and quantization formats and GPUs; each with its worked solution."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck import units
from deck.cards.registry import ArgumentError
from quizcoll.executables.memory_calc import both_units, sci, weight_format
from quizcoll.memory import training
from quizcoll.memory.catalog import load_model
from quizcoll.memory.formats import (
    GGUF_BLOCKS,
    FormatKind,
)
from quizcoll.memory.gpus import DEFAULT_UTILIZATION, find_gpu

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


def explain_training(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    formula = _ZERO_FORMULA[args["zero_stage"]].format(g=f"{args['grad_bytes']:g}")
    return (
        f"ZeRO stage {args['zero_stage']}: {formula} with "
        f"Ψ = {sci(args['params'])}, K = {args['k']:g}, N = {args['gpus']}: weights "
        f"{both_units(r['weights'])} + gradients {both_units(r['gradients'])} + optimizer states "
        f"{both_units(r['optimizer_states'])} = **{both_units(r['total'])}** per GPU "
        f"(no ZeRO: {both_units(r['baseline_total'])})."
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


def explain_activations(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"Per layer {r['formula']} with s = {args['seq_len']:,}, b = {args['micro_batch']}, "
        f"h = {r['hidden']:,}, a = {r['heads']}, t = {args['tensor_parallel']}: "
        f"{r['per_layer_bytes']:,.0f} B; × {r['layers']} layers = **{both_units(r['total_bytes'])}**."
    )


# ----------------------------------------------------------------------------- formats, GPUs


def bits_per_weight(format: str, group_size: int = 128) -> dict[str, Any]:
    """Bits per weight of a quantization format, from its block or group layout."""
    fmt = weight_format(format, group_size)
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


def explain_bits(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{args['format']}: {r['layout']} = {r['block_bytes']:g} B per "
        f"{units.format_count(r['block_size'], 'weights')} → {r['block_bytes']:g} × 8 / "
        f"{r['block_size']} = "
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


def explain_gpu(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{r['gpu_name']} reports {r['reported_mib']:,} MiB = {r['reported_bytes']:,} B = "
        f"{both_units(r['reported_bytes'])}; at utilization {args['utilization']:g}: "
        f"{both_units(r['usable_bytes'])}."
    )
