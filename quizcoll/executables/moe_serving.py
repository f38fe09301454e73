"""Executables of MoE decode: the experts one decode batch reads (``moe.experts_touched``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Field, Registry
from quizcoll.executables.common import C, R, count_param, guard, num
from quizcoll.systems import moe_decode as md


def experts_touched(experts: int, top_k: int, batch: int) -> dict[str, Any]:
    """Distinct experts per layer a decode batch of ``batch`` tokens reads (top-k routing)."""
    r = md.experts_touched(experts, top_k, batch)
    return {
        "expected_touched": r.expected_touched,
        "touched_fraction": r.touched_fraction,
        "all_touched_probability": r.all_touched_probability,
    }


def _explain(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{args['batch']} tokens, each routed to {args['top_k']} of {args['experts']} experts: "
        f"on average **{num(r['expected_touched'])}** distinct experts per layer are read "
        f"({num(100 * r['touched_fraction'])}% of the expert weights); all of them with "
        f"probability {num(r['all_touched_probability'])}."
    )


def register(registry: Registry) -> None:
    registry.add_function(
        "moe.experts_touched",
        guard(experts_touched),
        params=[
            count_param("experts", "experts per MoE layer E", md.MAX_EXPERTS),
            count_param("top_k", "experts per token k", md.MAX_EXPERTS),
            count_param("batch", "tokens in the decode step", md.MAX_BATCH),
        ],
        fields=[
            Field("expected_touched", C, "distinct experts read per layer, on average"),
            Field("touched_fraction", R, "that over the experts"),
            Field("all_touched_probability", R, "probability that every expert is read"),
        ],
        explain=_explain,
    )
