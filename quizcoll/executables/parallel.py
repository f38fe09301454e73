"""Context-parallel and mixture-of-experts executables: Ulysses and ring-attention traffic
(``context.traffic``), expert capacity and dropped tokens, all-to-all volume and the Switch
balancing loss (``moe.*``). Layouts are in :mod:`quizcoll.executables.layout`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Field, Param, ParamKind, Registry
from quizcoll.executables.common import (
    B,
    C,
    R,
    T,
    count_param,
    dtype_param,
    guard,
    num,
    sizes,
    value_bytes,
)
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.systems import context as cx
from quizcoll.systems import moe

MAX_GPUS = 1_000_000


def _shape(model: str | None, heads: int, kv_heads: int, head_dim: int) -> tuple[int, int, int]:
    if model is not None:
        if heads or kv_heads or head_dim:
            raise ArgumentError("give either model or heads/kv_heads/head_dim, not both")
        cfg = load_model(model)
        return cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
    if not (heads and head_dim):
        raise ArgumentError("give a model, or heads and head_dim (kv_heads defaults to heads)")
    return heads, kv_heads or heads, head_dim


def context_traffic(
    seq_len: int,
    cp: int,
    model: str | None = None,
    heads: int = 0,
    kv_heads: int = 0,
    head_dim: int = 0,
    dtype: str = "bf16",
) -> dict[str, Any]:
    """Per-layer bytes one GPU sends under Ulysses and under ring attention."""
    h, kv, d = _shape(model, heads, kv_heads, head_dim)
    t = cx.context_traffic(seq_len, cp, h, kv, d, value_bytes(dtype))
    return {
        "tokens_per_gpu": t.tokens_per_gpu,
        "ulysses_forward_bytes": t.ulysses_forward_bytes,
        "ulysses_step_bytes": t.ulysses_step_bytes,
        "ring_forward_bytes": t.ring_forward_bytes,
        "ring_step_bytes": t.ring_step_bytes,
        "ulysses_valid": t.ulysses_valid,
        "heads": h,
        "kv_heads": kv,
    }


def _explain_context(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    p = args["cp"]
    return (
        f"{args['seq_len']:,} tokens over {p} GPUs: {r['tokens_per_gpu']:,} each. Ulysses "
        f"all-to-alls Q, K, V and the output, sending (P − 1)/P of each: "
        f"**{sizes(r['ulysses_forward_bytes'])}** per layer forward; ring attention passes the "
        f"K, V block P − 1 times: **{sizes(r['ring_forward_bytes'])}**. Backward doubles both. "
        f"Ulysses needs the {r['heads']} heads and {r['kv_heads']} KV heads to split over {p}: "
        f"{r['ulysses_valid']}."
    )


def capacity(
    tokens: int, experts: int, top_k: int = 1, capacity_factor: float = 1.0, loads: str = ""
) -> dict[str, Any]:
    """Expert capacity ⌈cf·tokens·k/E⌉ and, for given per-expert loads, the tokens dropped."""
    parsed = moe.parse_numbers("loads", loads, integers=True) if loads else None
    c = moe.expert_capacity(tokens, experts, top_k, capacity_factor, parsed)
    return {
        "capacity": c.capacity,
        "slots": c.slots,
        "assignments": c.assignments,
        "dropped": c.dropped,
        "drop_fraction": c.drop_fraction,
    }


def _listed(values: str) -> str:
    """A comma-separated argument as the learner reads it: "32,16,8" would scan as one number."""
    return ", ".join(v.strip() for v in values.split(","))


def _explain_capacity(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = (
        f"⌈{num(args['capacity_factor'])} × {args['tokens']:,} × {args['top_k']} / "
        f"{args['experts']}⌉ = **{r['capacity']:,} assignments per expert**"
    )
    if args["loads"]:
        text += (
            f"; loads {_listed(args['loads'])} drop {r['dropped']:,} ({num(r['drop_fraction'])})"
        )
    return text + "."


def all_to_all(
    tokens_per_gpu: int,
    hidden: int,
    top_k: int,
    ep: int,
    dtype: str = "bf16",
    capacity_factor: float = 1.0,
) -> dict[str, Any]:
    """Per-layer dispatch and combine bytes one GPU sends with expert parallelism."""
    v = moe.all_to_all_volume(
        tokens_per_gpu, hidden, top_k, ep, value_bytes(dtype), capacity_factor
    )
    return {
        "dispatch_bytes": v.dispatch_bytes,
        "combine_bytes": v.combine_bytes,
        "forward_bytes": v.forward_bytes,
        "step_bytes": v.step_bytes,
    }


def _explain_all_to_all(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"(EP − 1)/EP of {args['tokens_per_gpu']:,} tokens, each to k = {args['top_k']} "
        f"expert(s) as h = {args['hidden']:,} values of {num(value_bytes(args['dtype']))} B"
        + (f" × cf {num(args['capacity_factor'])}" if args["capacity_factor"] != 1 else "")
        + f" = **{sizes(r['dispatch_bytes'])}** dispatched, the same combined back; forward "
        f"{sizes(r['forward_bytes'])}, with the backward {sizes(r['step_bytes'])} per layer."
    )


def balance_loss(loads: str, probabilities: str, alpha: float = 0.01) -> dict[str, Any]:
    """Switch Transformer's auxiliary loss α·E·Σ fᵢ·Pᵢ for a routing."""
    b = moe.switch_balance_loss(
        moe.parse_numbers("loads", loads, integers=True),
        moe.parse_numbers("probabilities", probabilities, integers=False),
        alpha,
    )
    return {
        "loss": b.loss,
        "uniform_loss": b.uniform_loss,
        "collapsed_loss": b.collapsed_loss,
        "imbalance": b.loss / b.uniform_loss,
    }


def _explain_balance(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"α·E·Σ fᵢPᵢ with f from loads {_listed(args['loads'])} and P = "
        f"{_listed(args['probabilities'])}: "
        f"**{num(r['loss'])}**; balanced routing gives α = {num(r['uniform_loss'])}, one expert "
        f"taking everything α·E = {num(r['collapsed_loss'])}."
    )


def register(registry: Registry) -> None:

    optional_model = Param(
        "model", ParamKind.STR, "a built-in model", choices=model_names(), default=None
    )
    zero_count = {"minimum": 0, "default": 0}
    registry.add_function(
        "context.traffic",
        guard(context_traffic),
        params=[
            count_param("seq_len", "tokens in the sequence N", 1e8),
            count_param("cp", "context-parallel GPUs P", 4096),
            optional_model,
            count_param("heads", "attention heads", 4096, **zero_count),
            count_param("kv_heads", "KV heads (default: heads)", 4096, **zero_count),
            count_param("head_dim", "head size", 4096, **zero_count),
            dtype_param("dtype", "activation dtype", "bf16"),
        ],
        fields=[
            Field("tokens_per_gpu", C, "N / P"),
            Field("ulysses_forward_bytes", B, "Ulysses, one layer, forward"),
            Field("ulysses_step_bytes", B, "Ulysses, one layer, forward + backward"),
            Field("ring_forward_bytes", B, "ring attention, one layer, forward"),
            Field("ring_step_bytes", B, "ring attention, one layer, forward + backward"),
            Field("ulysses_valid", T, "yes if heads and KV heads split over P"),
        ],
        explain=_explain_context,
    )
    registry.add_function(
        "moe.capacity",
        guard(capacity),
        params=[
            count_param("tokens", "tokens in the batch", 1e9),
            count_param("experts", "experts E", moe.MAX_EXPERTS),
            count_param("top_k", "experts per token k", moe.MAX_EXPERTS, default=1),
            Param(
                "capacity_factor",
                ParamKind.FLOAT,
                "capacity factor",
                minimum=0.01,
                maximum=64,
                default=1.0,
            ),
            Param("loads", ParamKind.STR, "assignments per expert, comma-separated", default=""),
        ],
        fields=[
            Field("capacity", C, "assignments one expert takes"),
            Field("slots", C, "capacity × experts"),
            Field("assignments", C, "tokens × k"),
            Field("dropped", C, "assignments past capacity (with loads)"),
            Field("drop_fraction", R, "dropped / assignments"),
        ],
        explain=_explain_capacity,
    )
    registry.add_function(
        "moe.all_to_all",
        guard(all_to_all),
        params=[
            count_param("tokens_per_gpu", "tokens on one GPU", 1e9),
            count_param("hidden", "hidden size h", 1e6),
            count_param("top_k", "experts per token k", moe.MAX_EXPERTS),
            count_param("ep", "expert-parallel GPUs", 4096),
            dtype_param("dtype", "dispatched dtype", "bf16"),
            Param(
                "capacity_factor",
                ParamKind.FLOAT,
                "buffer padding factor",
                minimum=0.01,
                maximum=64,
                default=1.0,
            ),
        ],
        fields=[
            Field("dispatch_bytes", B, "sent per layer to the experts"),
            Field("combine_bytes", B, "sent per layer back from the experts"),
            Field("forward_bytes", B, "dispatch + combine"),
            Field("step_bytes", B, "forward + backward"),
        ],
        explain=_explain_all_to_all,
    )
    registry.add_function(
        "moe.balance_loss",
        guard(balance_loss),
        params=[
            Param("loads", ParamKind.STR, "tokens routed to each expert, comma-separated"),
            Param("probabilities", ParamKind.STR, "mean router probability per expert"),
            Param(
                "alpha",
                ParamKind.FLOAT,
                "loss coefficient α",
                minimum=1e-6,
                maximum=10,
                default=0.01,
            ),
        ],
        fields=[
            Field("loss", R, "α·E·Σ fᵢPᵢ"),
            Field("uniform_loss", R, "α (balanced)"),
            Field("collapsed_loss", R, "α·E (one expert)"),
            Field("imbalance", R, "loss / α"),
        ],
        explain=_explain_balance,
    )
