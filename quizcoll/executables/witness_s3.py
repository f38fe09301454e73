"""Second methods for the parallelism cards' shown run outputs (``witness.*``): an MoE
layer's expert buffers laid out and filled by a balanced router
(:mod:`quizcoll.witnesses.s3_moe_slots`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from deck.cards.registry import Derivation, Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables.witness_mem import _refusing
from quizcoll.witnesses import s3_moe_slots

C = Dimension.COUNT


def moe_slots(
    tokens: int, experts: int, top_k: int = 1, capacity_factor: float = 1.0
) -> dict[str, Any]:
    return dataclasses.asdict(s3_moe_slots.fill(tokens, experts, top_k, capacity_factor))


def register(registry: Registry) -> None:
    registry.add_function(
        "witness.moe_slots",
        _refusing(moe_slots),
        params=[
            Param("tokens", ParamKind.INT, "tokens in the batch", minimum=1, maximum=1 << 20),
            Param("experts", ParamKind.INT, "experts", minimum=1, maximum=1 << 12),
            Param(
                "top_k", ParamKind.INT, "experts per token", minimum=1, maximum=1 << 12, default=1
            ),
            Param(
                "capacity_factor",
                ParamKind.FLOAT,
                "buffer over the even share",
                minimum=0.01,
                maximum=64,
                default=1.0,
            ),
        ],
        fields=[
            Field("assignments", C, "ones in the token-by-expert mask"),
            Field("slots", C, "buffer entries allocated over all experts"),
            Field("capacity", C, "one expert's buffer"),
            Field("accepted", C, "assignments that found a slot"),
            Field("dropped", C, "assignments past their expert's buffer"),
            Field("busiest_load", C, "most assignments any expert received"),
        ],
        summary="An MoE batch routed evenly top-k into explicit expert buffers, counted",
    )
    registry.declare_derivation(
        "witness.moe_slots",
        Derivation.ENUMERATED,
        "writes every token's k experts into a token-by-expert mask round the ring of "
        "experts, allocates each expert's searched buffer and pours its column in, counting "
        "mask ones, slots and overflow (quizcoll.witnesses.s3_moe_slots)",
    )
