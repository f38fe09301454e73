"""Second methods for the GPU-count cards (``witness.pipeline_placement``).

Wraps :mod:`quizcoll.witnesses.left2_placement`: a catalog model's weights, listed tensor by
tensor from its ``config.json`` figures (the cited constants of
:mod:`quizcoll.constants.models`, not the calculators' parser), placed on GPUs layer by layer
under each GPU's capacity. The GPU's total is its cited ``nvidia-smi`` record
(``quizcoll/data/gpus.yaml``), not the calculators' GPU table.
"""

from __future__ import annotations

import math
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
from quizcoll.constants.data import figures
from quizcoll.constants.models import model_keys
from quizcoll.executables.witness_mem import cited_shape
from quizcoll.witnesses import left2_placement

# Bits of one stored weight (IEEE 754 binary32 and binary16; bfloat16 1 + 8 + 7; OCP FP8;
# 8- and 4-bit integers without their scales): this module's own record, not the
# calculators' format table.
_BITS = {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "int4": 4}
_REPORTED = "_reported"


def _gpu_totals() -> dict[str, int]:
    """Each GPU's cited nvidia-smi total in bytes, keyed as the cards name GPUs (h100-80gb)."""
    return {
        c.name[: -len(_REPORTED)].replace("_", "-"): int(c.value)
        for c in figures("gpus")
        if c.name.endswith(_REPORTED)
    }


def pipeline_placement(
    model: str, dtype: str, gpu: str, utilization: float, overhead: int
) -> dict[str, Any]:
    """``model``'s weights in ``dtype`` on GPUs of ``gpu``, whole layers per GPU, each GPU
    offering ``utilization`` of its reported total less ``overhead`` bytes."""
    totals = _gpu_totals()
    if gpu not in totals:
        raise ArgumentError(f"gpu: no cited nvidia-smi total for {gpu!r}")
    if dtype not in _BITS:
        raise ArgumentError(f"dtype: {dtype!r} is none of {', '.join(_BITS)}")
    s = cited_shape(model)
    if s.get("experts") or s.get("qkv_bias"):
        raise ArgumentError(f"model: {model!r} is not a dense Llama-style decoder")
    capacity = math.floor(utilization * totals[gpu]) - overhead
    if capacity < 1:
        raise ArgumentError("overhead: it leaves nothing of the GPU for weights")
    units = left2_placement.pipeline_units(
        layers=int(s["layers"]),
        hidden=int(s["hidden"]),
        q_width=int(s["heads"] * s["head_dim"]),
        kv_width=int(s["kv_heads"] * s["head_dim"]),
        intermediate=int(s["intermediate"]),
        vocab=int(s["vocab"]),
        tied=bool(s["tied"]),
        bits=_BITS[dtype],
    )
    try:
        placed = left2_placement.place(units, capacity)
    except ValueError as exc:
        raise ArgumentError(str(exc)) from None
    held = placed.gpu_bytes()
    return {
        "gpus": placed.count,
        "capacity_bytes": capacity,
        "weights_bytes": sum(u.bytes for u in units),
        "fullest_gpu_bytes": max(held),
        "unused_bytes": placed.count * capacity - sum(held),
    }


def register(registry: Registry) -> None:
    B, C = Dimension.BYTES, Dimension.COUNT
    registry.add_function(
        "witness.pipeline_placement",
        pipeline_placement,
        params=[
            Param(
                "model",
                ParamKind.STR,
                "catalog model: its config.json figures",
                choices=model_keys(),
            ),
            Param("dtype", ParamKind.STR, "weight dtype", choices=tuple(_BITS)),
            Param(
                "gpu",
                ParamKind.STR,
                "GPU with a cited nvidia-smi total",
                choices=tuple(_gpu_totals()),
            ),
            Param(
                "utilization",
                ParamKind.FLOAT,
                "share of the total offered",
                minimum=0.05,
                maximum=1.0,
            ),
            Param("overhead", ParamKind.INT, "bytes lost per GPU", minimum=0, maximum=2**40),
        ],
        fields=[
            Field("gpus", C, "GPUs the layer-by-layer placement uses"),
            Field("capacity_bytes", B, "what one GPU offers the weights"),
            Field("weights_bytes", B, "the listed tensors' bytes"),
            Field("fullest_gpu_bytes", B, "the most any GPU holds"),
            Field("unused_bytes", B, "capacity the placement leaves unused on its GPUs"),
        ],
        summary="A model's weight tensors placed on GPUs whole layer by whole layer",
    )
    registry.declare_derivation(
        "witness.pipeline_placement",
        Derivation.ENUMERATED,
        "lists the decoder's tensors from its config.json figures, groups them into "
        "embedding, layers and head, and places them in order on GPUs, a new GPU when the "
        "next one does not fit (quizcoll.witnesses.left2_placement)",
    )
