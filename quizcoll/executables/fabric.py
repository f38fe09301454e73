"""Fabric, routing and reduction numerics as executables: a leaf–spine's cross-leaf rate
(``fabric.bisection``), ECMP's and top-k routing's collisions (``occupancy.expected``),
expert-parallel dispatch over NICs (``ep.dispatch``) and low-precision sums
(``summation.*``).

The figures come from water-filling over the fabric's links, an exact Markov chain, an
enumeration of expert placements and an addition-by-addition emulation of the formats'
rounding; the cards hold them to closed forms that share none of that code.
"""

from __future__ import annotations

from typing import Any

from deck.cards.registry import Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables.common import B, C, R, S, count_param, guard
from quizcoll.systems import ep_dispatch as epd
from quizcoll.systems import fabric as fab
from quizcoll.systems import occupancy as occ
from quizcoll.systems import summation as sm

VALUE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


def bisection(leaves: int, hosts: int, uplinks: int, link: float) -> dict[str, Any]:
    """Cross-leaf rate per host of the bisection permutation, by max–min water-filling."""
    rates = fab.permutation_rates(leaves, hosts, uplinks, link)
    return {
        "host_rate": min(rates),
        "aggregate": sum(rates),
        "fraction_of_line": min(rates) / link,
        "oversubscription": hosts / uplinks,
    }


def expected(bins: int, k: int, draws: int, item_bytes: float = 0) -> dict[str, Any]:
    """Expected distinct bins ``draws`` picks of ``k`` distinct bins reach (exact chain)."""
    mean = occ.expected_reached(bins, k, draws)
    return {
        "reached": mean,
        "fraction": mean / bins,
        "idle": bins - mean,
        "missed_fraction": (bins - mean) / bins,
        "reached_bytes": mean * item_bytes,
    }


def draws_for(bins: int, k: int, fraction: float) -> dict[str, Any]:
    """Fewest picks whose expected reach is at least ``fraction`` of the bins (chain steps)."""
    return {"draws": occ.draws_for(bins, k, fraction)}


def ep_dispatch(
    tokens: int,
    top_k: int,
    hidden: int,
    experts: int,
    nodes: int,
    gpus_per_node: int,
    nic_bandwidth: float,
    value_bytes: float = 2,
) -> dict[str, Any]:
    """One GPU's expected dispatch bytes by destination and the NIC time of the off-node part."""
    d = epd.dispatch(
        tokens, top_k, hidden, value_bytes, experts, nodes, gpus_per_node, nic_bandwidth
    )
    return {
        "local_bytes": d.local_bytes,
        "node_bytes": d.node_bytes,
        "offnode_bytes": d.offnode_bytes,
        "nic_s": d.nic_s,
        "offnode_fraction": d.offnode_bytes / (d.local_bytes + d.node_bytes + d.offnode_bytes),
    }


def repeated(
    value: float, count: int, accumulator: str, dtype: str = "", order: str = "sequential"
) -> dict[str, Any]:
    """``count`` copies of ``value`` summed with every partial sum rounded to ``accumulator``."""
    s = sm.repeated(value, count, dtype or accumulator, accumulator, order)
    return {"result": s.result, "exact": s.exact, "relative_error": s.relative_error}


def order(big: float, small: float, count: int, accumulator: str) -> dict[str, Any]:
    """The same numbers summed with the big one first and last."""
    first, last = sm.big_then_small(big, small, count, accumulator)
    return {"big_first": first, "big_last": last, "difference": last - first}


def register(registry: Registry) -> None:
    registry.add_function(
        "fabric.bisection",
        guard(bisection),
        params=[
            count_param("leaves", "leaf switches (even)", 64, minimum=2),
            count_param("hosts", "host ports per leaf", fab.MAX_HOSTS),
            count_param("uplinks", "uplinks per leaf (one per spine)", fab.MAX_UPLINKS),
            Param(
                "link",
                ParamKind.RATE,
                "every link's rate, one direction",
                minimum=1e6,
                maximum=1e13,
            ),
        ],
        fields=[
            Field("host_rate", Dimension.RATE, "slowest host's cross-leaf rate"),
            Field("aggregate", Dimension.RATE, "sum of all hosts' rates"),
            Field("fraction_of_line", R, "host rate over the link rate"),
            Field("oversubscription", R, "host ports over uplinks"),
        ],
    )
    registry.add_function(
        "occupancy.expected",
        guard(expected),
        params=[
            count_param("bins", "experts or uplinks", occ.MAX_BINS),
            count_param("k", "distinct bins per pick (top-k)", occ.MAX_K),
            count_param("draws", "picks (tokens, flows)", occ.MAX_DRAWS, minimum=0),
            Param(
                "item_bytes",
                ParamKind.BYTES,
                "bytes of one bin (an expert's weights)",
                minimum=0,
                maximum=2**50,
                default=0,
            ),
        ],
        fields=[
            Field("reached", C, "expected distinct bins reached"),
            Field("fraction", R, "reached over bins"),
            Field("idle", C, "expected bins never picked"),
            Field("missed_fraction", R, "expected share of the bins never picked"),
            Field("reached_bytes", B, "reached × item_bytes: the experts' weights a step reads"),
        ],
    )
    registry.add_function(
        "occupancy.draws_for",
        guard(draws_for),
        params=[
            count_param("bins", "experts or uplinks", occ.MAX_BINS),
            count_param("k", "distinct bins per pick (top-k)", occ.MAX_K),
            Param(
                "fraction",
                ParamKind.FLOAT,
                "share of the bins to reach",
                minimum=1e-6,
                maximum=0.999999,
            ),
        ],
        fields=[Field("draws", C, "fewest picks reaching that share on average (0: none)")],
    )
    registry.add_function(
        "ep.dispatch",
        guard(ep_dispatch),
        params=[
            count_param("tokens", "tokens on one GPU", 1 << 24),
            count_param("top_k", "experts per token", 64),
            count_param("hidden", "hidden size", 1 << 16),
            count_param("experts", "routed experts", epd.MAX_EXPERTS),
            count_param("nodes", "nodes", 1024),
            count_param("gpus_per_node", "GPUs per node", 72),
            Param(
                "nic_bandwidth", ParamKind.RATE, "one NIC, one direction", minimum=1e6, maximum=1e13
            ),
            Param(
                "value_bytes",
                ParamKind.BYTES,
                "bytes per dispatched value (bf16: 2, fp8: 1)",
                minimum=0.5,
                maximum=8,
                default=2,
            ),
        ],
        fields=[
            Field("local_bytes", B, "to experts on the same GPU"),
            Field("node_bytes", B, "to the node's other GPUs (NVLink)"),
            Field("offnode_bytes", B, "to other nodes (the NIC)"),
            Field("nic_s", S, "off-node bytes over one NIC"),
            Field("offnode_fraction", R, "share of the bytes that leave the node"),
        ],
    )
    acc = Param(
        "accumulator", ParamKind.STR, "format of every partial sum", choices=sm.FORMAT_NAMES
    )
    registry.add_function(
        "summation.repeated",
        guard(repeated),
        params=[
            Param("value", ParamKind.FLOAT, "the value added", minimum=1e-30, maximum=1e30),
            count_param("count", "copies", sm.MAX_COUNT),
            acc,
            Param(
                "dtype",
                ParamKind.STR,
                "format of the inputs (default: the accumulator's)",
                choices=("", *sm.FORMAT_NAMES),
                default="",
            ),
            Param(
                "order",
                ParamKind.STR,
                "sequential or pairwise",
                choices=sm.ORDERS,
                default="sequential",
            ),
        ],
        fields=[
            Field("result", R, "the rounded sum"),
            Field("exact", R, "the exact sum of the stored inputs"),
            Field("relative_error", R, "|result − exact| / exact"),
        ],
    )
    registry.add_function(
        "summation.order",
        guard(order),
        params=[
            Param("big", ParamKind.FLOAT, "the one large value", minimum=1e-30, maximum=1e30),
            Param("small", ParamKind.FLOAT, "the small value", minimum=1e-30, maximum=1e30),
            count_param("count", "copies of the small value", sm.MAX_COUNT),
            acc,
        ],
        fields=[
            Field("big_first", R, "big value first, then the small ones"),
            Field("big_last", R, "the small ones first, then the big value"),
            Field("difference", R, "big_last − big_first"),
        ],
    )
