"""Memory executables held against real libraries (``tests/oracles``, ``docs/oracles.md``).

- ``memory.layer_activations``: bytes a catalogue model's layer saves for backward as
  PyTorch and transformers keep them (:mod:`quizcoll.memory.activations`), next to the
  paper's GPT figure (Korthikanti et al. 2022) for the same shape.
- ``memory.deepspeed_zero``: DeepSpeed's own ZeRO-2/3 estimate, as the paper's model states
  plus the terms the implementation adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables.memory_calc import (
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_PARAMS,
    both_units,
    guard,
    sci,
)
from quizcoll.memory import training
from quizcoll.memory.activations import AttentionKernel, layer_activations
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.params import count_parameters, largest_module_params


def measured_activations(
    model: str,
    seq_len: int = 2048,
    micro_batch: int = 1,
    attention: str = "sdpa",
    recompute: str = "none",
    precision: str = "bf16",
) -> dict[str, Any]:
    """Saved-for-backward bytes of ``model``'s layers as PyTorch keeps them."""
    cfg = load_model(model)
    acts = layer_activations(
        cfg,
        seq_len=seq_len,
        micro_batch=micro_batch,
        kernel=AttentionKernel(attention),
        recompute=training.Recompute(recompute),
        precision=precision,
    )
    paper = training.training_activations(
        seq_len=seq_len,
        micro_batch=micro_batch,
        hidden=cfg.hidden_size,
        heads=cfg.num_heads,
        layers=cfg.num_layers,
        recompute=training.Recompute(recompute),
    )
    sbh = seq_len * micro_batch * cfg.hidden_size
    return {
        "per_layer_bytes": acts.per_layer_bytes,
        "total_bytes": acts.total_bytes,
        "per_layer_sbh": acts.per_layer_bytes / sbh,
        "paper_per_layer_bytes": paper.per_layer_bytes,
        "paper_per_layer_sbh": paper.per_layer_bytes / sbh,
        "largest_term": max(acts.terms, key=lambda t: t.bytes).name,
        "layers": cfg.num_layers,
    }


def explain_measured_activations(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{args['model']}, s = {args['seq_len']:,}, b = {args['micro_batch']}, "
        f"{args['attention']} attention, {args['precision']}, recompute {args['recompute']}: "
        f"{r['per_layer_sbh']:.2f}·sbh = {r['per_layer_bytes']:,.0f} B per layer as PyTorch "
        f"saves it (largest part: {r['largest_term']}); × {r['layers']} layers = "
        f"**{both_units(r['total_bytes'])}**. The paper's GPT figure (Korthikanti et al., "
        f"fp16 with dropout masks) gives {r['paper_per_layer_sbh']:.2f}·sbh."
    )


def deepspeed_zero(
    zero_stage: int,
    gpus: int = 1,
    model: str | None = None,
    params: int | None = None,
    largest_layer: int | None = None,
) -> dict[str, Any]:
    """DeepSpeed's per-GPU model-state estimate: the paper's ZeRO states plus its extra terms."""
    if (model is None) == (params is None):
        raise ArgumentError("give either model or params")
    if model is not None:
        if largest_layer is not None:
            raise ArgumentError("largest_layer comes from the model; give it only with params")
        cfg = load_model(model)
        params, largest_layer = count_parameters(cfg).total, largest_module_params(cfg)
    assert params is not None
    states = training.deepspeed_states(params, zero_stage, gpus, largest_layer or 0)
    return {
        "total": states.total,
        "paper_total": states.paper.total,
        "fp32_gradient_partition": states.fp32_gradient_partition,
        "largest_layer_gather": states.largest_layer_gather,
        "params": params,
        "largest_layer": largest_layer or 0,
    }


def explain_deepspeed(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    stage, n = args["zero_stage"], args["gpus"]
    extra = "4Ψ/N of fp32 gradients" if stage == 2 else "2Ψ/N + 4 B × the largest layer"
    return (
        f"DeepSpeed {training.DEEPSPEED_VERSION} estimates ZeRO-{stage} over N = {n} with "
        f"Ψ = {sci(r['params'])}: the paper's {both_units(r['paper_total'])} + {extra} "
        f"({both_units(r['fp32_gradient_partition'] + r['largest_layer_gather'])}) = "
        f"**{both_units(r['total'])}** per GPU."
    )


def register(registry: Registry) -> None:
    B, C, R, T = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.TEXT
    models = model_names()
    registry.add_function(
        "memory.layer_activations",
        guard(measured_activations),
        params=[
            Param("model", ParamKind.STR, "a built-in model", choices=models),
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
                "attention",
                ParamKind.STR,
                "attention kernel",
                choices=("sdpa", "eager"),
                default="sdpa",
            ),
            Param(
                "recompute",
                ParamKind.STR,
                "recomputation",
                choices=("none", "selective", "full"),
                default="none",
            ),
            Param(
                "precision",
                ParamKind.STR,
                "activation dtype",
                choices=("bf16", "fp16", "fp32"),
                default="bf16",
            ),
        ],
        fields=[
            Field("per_layer_bytes", B, "saved for backward by one layer (the largest)"),
            Field("total_bytes", B, "saved by all layers"),
            Field("per_layer_sbh", R, "one layer in units of s·b·h bytes"),
            Field("paper_per_layer_bytes", B, "Korthikanti et al.'s GPT-layer figure"),
            Field("paper_per_layer_sbh", R, "the paper's figure in units of s·b·h"),
            Field("largest_term", T, "the largest group of saved tensors"),
            Field("layers", C, "layers"),
        ],
        explain=explain_measured_activations,
    )
    registry.add_function(
        "memory.deepspeed_zero",
        guard(deepspeed_zero),
        params=[
            Param("zero_stage", ParamKind.INT, "ZeRO stage", minimum=2, maximum=3),
            Param(
                "gpus", ParamKind.INT, "data-parallel GPUs", minimum=1, maximum=1_000_000, default=1
            ),
            Param("model", ParamKind.STR, "a built-in model", choices=models, default=None),
            Param(
                "params",
                ParamKind.INT,
                "parameter count",
                minimum=1,
                maximum=MAX_PARAMS,
                default=None,
            ),
            Param(
                "largest_layer",
                ParamKind.INT,
                "parameters of the largest layer (ZeRO-3)",
                minimum=0,
                maximum=MAX_PARAMS,
                default=None,
            ),
        ],
        fields=[
            Field("total", B, "DeepSpeed's estimate per GPU"),
            Field("paper_total", B, "the ZeRO paper's model states per GPU"),
            Field("fp32_gradient_partition", B, "the fp32 gradient partition DeepSpeed adds"),
            Field("largest_layer_gather", B, "ZeRO-3: the gathered largest layer"),
            Field("params", C, "parameters"),
            Field("largest_layer", C, "parameters of the largest layer"),
        ],
        explain=explain_deepspeed,
    )
