"""Executables of MoE decode: the experts one decode batch reads (``moe.experts_touched``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Field, Param, ParamKind, Registry
from quizcoll.executables.common import B, C, R, count_param, guard, num
from quizcoll.systems import moe_decode as md


def experts_touched(
    experts: int, top_k: int, batch: int, expert_bytes: float = 0.0, shared_bytes: float = 0.0
) -> dict[str, Any]:
    """Distinct experts per layer a decode batch of ``batch`` tokens reads (top-k routing)."""
    r = md.experts_touched(experts, top_k, batch, expert_bytes, shared_bytes)
    return {
        "expected_touched": r.expected_touched,
        "touched_fraction": r.touched_fraction,
        "all_touched_probability": r.all_touched_probability,
        "bytes_read": r.bytes_read,
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
            Param(
                "expert_bytes",
                ParamKind.BYTES,
                "all experts' weight bytes",
                minimum=0,
                maximum=2**50,
                default=0,
            ),
            Param(
                "shared_bytes",
                ParamKind.BYTES,
                "weight bytes every token reads",
                minimum=0,
                maximum=2**50,
                default=0,
            ),
        ],
        fields=[
            Field("expected_touched", C, "distinct experts read per layer, on average"),
            Field("touched_fraction", R, "that over the experts"),
            Field("all_touched_probability", R, "probability that every expert is read"),
            Field("bytes_read", B, "weight bytes one step reads: shared + touched experts"),
        ],
        explain=_explain,
    )
