"""The stepped collectives (:mod:`quizcoll.witnesses.nccl_steps`) as ``witness.*``
executables, each with how it reaches its result:

- ``witness.ring_reduce_scatter``: a ring reduce-scatter stepped chunk by chunk, partial
  sums tracked by the ranks they hold; the busiest rank's inbound bytes over a time;
- ``witness.rail_rings``: a large all-reduce clocked over one ring per NIC across nodes,
  every hop loading the NVLink, PCIe and NIC links it crosses;
- ``witness.double_tree_rounds``: the non-pipelined double binary tree all-reduce, built
  top down, reduced up and broadcast down, priced round by round.

Every size, time and link rate arrives as an argument (cited constants in the card).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from deck.cards.registry import Derivation, Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables import refusals_as_argument_errors

# a witness's link figures are formulas over cited constants, read as the network witnesses
# read theirs
from quizcoll.executables.witness_net import _figure, _figures
from quizcoll.witnesses import nccl_steps as ns
from quizcoll.witnesses.net_errors import NetWitnessError

B, C, S = Dimension.BYTES, Dimension.COUNT, Dimension.SECONDS
RATE = Dimension.RATE
MAX_SIZE = 2**50
RAIL_FIGURES = ("nic_bandwidth", "pcie_bandwidth", "nvlink_bandwidth")
TREE_FIGURES = ("latency", "bandwidth")


def _guard(function: Any) -> Any:
    return refusals_as_argument_errors(function, lambda: NetWitnessError)


def ring_reduce_scatter(ranks: int, size: int, time: float) -> dict[str, Any]:
    return dataclasses.asdict(ns.ring_reduce_scatter(ranks, size, time))


def rail_rings(
    nodes: int,
    gpus_per_node: int,
    size: int,
    nic_bandwidth: float,
    pcie_bandwidth: float,
    nvlink_bandwidth: float,
) -> dict[str, Any]:
    run = ns.rail_rings(nodes, gpus_per_node, size, nic_bandwidth, pcie_bandwidth, nvlink_bandwidth)
    return dataclasses.asdict(run)


def double_tree_rounds(ranks: int, size: int, latency: float, bandwidth: float) -> dict[str, Any]:
    return dataclasses.asdict(ns.double_tree_rounds(ranks, size, latency, bandwidth))


def register(registry: Registry) -> None:
    add, declare = registry.add_function, registry.declare_derivation
    size = Param("size", ParamKind.BYTES, "bytes per rank", minimum=1, maximum=MAX_SIZE)
    add(
        "witness.ring_reduce_scatter",
        _guard(ring_reduce_scatter),
        params=[
            Param("ranks", ParamKind.INT, "ranks", minimum=2, maximum=ns.MAX_RING_RANKS),
            size,
            Param("time", ParamKind.SECONDS, "measured time", minimum=0, maximum=1e6),
        ],
        fields=[
            Field("steps", C, "steps until every rank holds its full sum"),
            Field("max_bytes_received", B, "the busiest rank's inbound bytes"),
            Field("link_rate", RATE, "those bytes over the measured time"),
        ],
    )
    declare(
        "witness.ring_reduce_scatter",
        Derivation.SIMULATED,
        "steps the ring chunk by chunk, tracking each partial sum's ranks and counting the "
        "bytes each rank receives (quizcoll.witnesses.nccl_steps)",
    )
    add(
        "witness.rail_rings",
        _figures(registry, _guard(rail_rings), RAIL_FIGURES),
        params=[
            Param("nodes", ParamKind.INT, "nodes", minimum=2, maximum=ns.MAX_RAIL_GPUS),
            Param(
                "gpus_per_node", ParamKind.INT, "GPUs (and NICs) per node", minimum=1, maximum=64
            ),
            size,
            _figure("nic_bandwidth", "one NIC, bytes/s per direction"),
            _figure("pcie_bandwidth", "a GPU's PCIe path to its NIC, bytes/s per direction"),
            _figure("nvlink_bandwidth", "a GPU's NVLink, bytes/s out"),
        ],
        fields=[
            Field("rings", C, "rings laid, one per NIC"),
            Field("steps", C, "steps of each ring"),
            Field("time_s", S, "the steps' clocked durations, summed"),
            Field("busbw", RATE, "2(N − 1)/N · S over that time"),
            Field("nic_bytes", B, "bytes the busiest NIC sent"),
        ],
    )
    declare(
        "witness.rail_rings",
        Derivation.SIMULATED,
        "lays a ring per NIC over the GPUs and clocks its steps on the loads of the links "
        "each hop crosses (quizcoll.witnesses.nccl_steps)",
    )
    add(
        "witness.double_tree_rounds",
        _figures(registry, _guard(double_tree_rounds), TREE_FIGURES),
        params=[
            Param("ranks", ParamKind.INT, "ranks", minimum=2, maximum=ns.MAX_TREE_RANKS),
            size,
            _figure("latency", "α per message, seconds"),
            _figure("bandwidth", "bytes/s per direction"),
        ],
        fields=[
            Field("rounds", C, "rounds up and down"),
            Field("time_s", S, "the rounds' busiest ranks, summed"),
            Field("max_bytes_sent", B, "the busiest rank's outbound bytes"),
            Field("messages", C, "per round, the most peers a rank talks to one way, summed"),
        ],
    )
    declare(
        "witness.double_tree_rounds",
        Derivation.SIMULATED,
        "builds both trees top down, steps the reduce up and the broadcast down and prices "
        "each round's busiest rank (quizcoll.witnesses.nccl_steps)",
    )
