"""``witness.zero_states``: ZeRO's model states on one rank, listed tensor by tensor.

Wraps :mod:`quizcoll.witnesses.s1_zero`. The card gives each tensor's bytes per value and
how many optimizer tensors there are (Adam: 3 of 4 bytes, the fp32 master copy, momentum and
variance), so the bytes per parameter come from the tensors listed, not from the
calculator's K.
"""

from __future__ import annotations

from deck.cards.registry import (
    Derivation,
    Dimension,
    Field,
    Param,
    ParamKind,
    Registry,
)
from quizcoll.executables.witness_mem import _int, _refusing
from quizcoll.witnesses import s1_zero


def zero_states(
    params: int,
    gpus: int,
    zero_stage: int,
    weights: float,
    gradients: float,
    optimizer_states: float,
    optimizer_tensors: int = 1,
) -> dict[str, float]:
    """Rank 0's weights, gradients and optimizer states at ``zero_stage`` over ``gpus``: one
    weight and one gradient tensor and ``optimizer_tensors`` optimizer tensors, each of the
    bytes per value given."""
    widths = {
        "weights": (weights,),
        "gradients": (gradients,),
        "optimizer_states": (optimizer_states,) * optimizer_tensors,
    }
    held = s1_zero.rank_states(params, gpus, zero_stage, widths)
    whole = s1_zero.rank_states(params, gpus, 0, widths)
    return {
        "weights": held.bytes_of("weights"),
        "gradients": held.bytes_of("gradients"),
        "optimizer_states": held.bytes_of("optimizer_states"),
        "total": held.total,
        "unpartitioned_total": whole.total,
        "tensors": len(held.held),
    }


def register(registry: Registry) -> None:
    def width(name: str, what: str) -> Param:
        return Param(name, ParamKind.FLOAT, f"bytes per value of {what}", minimum=0.125, maximum=64)

    registry.add_function(
        "witness.zero_states",
        _refusing(zero_states),
        params=[
            _int("params", "parameters", maximum=1 << 44),
            _int("gpus", "data-parallel ranks", maximum=s1_zero.MAX_RANKS),
            Param("zero_stage", ParamKind.INT, "ZeRO stage", minimum=0, maximum=3),
            width("weights", "the weights"),
            width("gradients", "the gradients"),
            width("optimizer_states", "each optimizer tensor"),
            _int("optimizer_tensors", "optimizer tensors (Adam: 3)", maximum=16, default=1),
        ],
        fields=[
            Field("weights", Dimension.BYTES, "rank 0's weights"),
            Field("gradients", Dimension.BYTES, "rank 0's gradients"),
            Field("optimizer_states", Dimension.BYTES, "rank 0's optimizer states"),
            Field("total", Dimension.BYTES, "rank 0's model states"),
            Field("unpartitioned_total", Dimension.BYTES, "the model states, none partitioned"),
            Field("tensors", Dimension.COUNT, "state tensors rank 0 keeps"),
        ],
        summary="ZeRO's model states on rank 0, listed tensor by tensor with its ranges",
    )
    registry.declare_derivation(
        "witness.zero_states",
        Derivation.ENUMERATED,
        "lists the state tensors rank 0 keeps, whole or, for the kinds its stage partitions "
        "(P_os, P_os+g, P_os+g+p), its contiguous range of the padded flat buffer, and sums "
        "their bytes (quizcoll.witnesses.s1_zero)",
    )
