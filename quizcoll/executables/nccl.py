"""NCCL's cost model and link figures for cards: what NCCL picks, how long it takes, and
line rate against the bandwidth NCCL assumes.

- ``nccl.choose``: the (algorithm, protocol) NCCL picks for a collective of S bytes on
  nodes × GPUs, its time and nccl-tests bandwidths, and the runner-up;
- ``nccl.time``: one forced pair (``NCCL_ALGO``/``NCCL_PROTO``): its latency, bandwidth
  and time;
- ``hardware.link``: a link's line rate, NCCL's figure for it and their ratio.

The model is imported when a card runs, never when the registry is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from deck.units import format_bytes, format_number, format_rate, format_seconds
from quizcoll.executables import refusals_as_argument_errors

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce")
GPUS = ("a100", "h100", "h200", "b200", "l40s")  # quizcoll.collectives.hardware.GPUS
NICS = ("hdr", "ndr", "xdr")
LINKS = ("v100", *GPUS, "gen3", "gen4", "gen5", "gen6", *NICS)  # v100: NVLINK_ONLY
ALGORITHMS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
PROTOCOLS = ("LL", "LL128", "Simple")
MAX_NODES = 131_072


def _refusal() -> type[Exception]:
    from quizcoll.collectives.nccl import NcclModelError  # numpy: only once a card runs

    return NcclModelError


def _guard(function: Any) -> Any:
    return refusals_as_argument_errors(function, _refusal)


def _topology(gpu: str, nodes: int, gpus_per_node: int, nic: str | None, sharp: bool) -> Any:
    from quizcoll.collectives import nccl

    return nccl.topology(gpu, nodes, gpus_per_node, nic=nic, sharp=sharp)


def _pair(e: Any) -> str:
    return f"{e.entry.algorithm.value}/{e.entry.protocol.value}"


def choose(
    collective: str,
    size: int,
    gpu: str,
    nodes: int,
    gpus_per_node: int,
    nic: str | None,
    sharp: bool,
) -> dict[str, Any]:
    """NCCL's pick of algorithm and protocol, its time and nccl-tests bandwidths."""
    from quizcoll.collectives import nccl

    c = nccl.choose(collective, size, _topology(gpu, nodes, gpus_per_node, nic, sharp))
    ranked = [e for e in c.candidates if e.entry.available]
    runner = ranked[1] if len(ranked) > 1 else ranked[0]
    return {
        "algorithm": c.best.entry.algorithm.value,
        "protocol": c.best.entry.protocol.value,
        "choice": _pair(c.best),
        "time_s": c.time_s,
        "algbw": c.algbw,
        "busbw": c.busbw,
        "latency_s": c.best.latency_us * 1e-6,
        "bandwidth": c.best.bandwidth * 1e9,
        "channels": c.best.entry.channels,
        "runner_up": _pair(runner),
        "runner_up_time_s": runner.time_us * 1e-6,
        "ranks": c.topology.ranks,
        "candidates": "; ".join(f"{_pair(e)} {format_seconds(e.time_us * 1e-6)}" for e in ranked),
    }


def explain_choose(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return "\n".join(
        [
            f"**{args['collective']} of S = {format_bytes(args['size'])} on {args['nodes']} × "
            f"{args['gpus_per_node']} {args['gpu'].upper()}:** NCCL prices every "
            f"(algorithm, protocol) pair as latency + S / bandwidth and keeps the cheapest.",
            "",
            f"- Chosen **{result['choice']}**: {format_seconds(result['latency_s'])} + "
            f"S / {format_rate(result['bandwidth'])} = **{format_seconds(result['time_s'])}** "
            f"({result['channels']} channels).",
            # The pick and its figures, each a fact of the cards; the rivals' times are
            # results (runner_up_time_s, candidates) a card proves only where it asks.
            f"- Next cheapest: {result['runner_up']}.",
            f"- busbw = S / time × the nccl-tests factor = **{format_rate(result['busbw'])}**.",
        ]
    )


def time(
    collective: str,
    size: int,
    gpu: str,
    nodes: int,
    gpus_per_node: int,
    nic: str | None,
    sharp: bool,
    algorithm: str,
    protocol: str,
) -> dict[str, Any]:
    """One (algorithm, protocol) pair forced, as NCCL_ALGO/NCCL_PROTO would."""
    from quizcoll.collectives import nccl

    topo = _topology(gpu, nodes, gpus_per_node, nic, sharp)
    algo, proto = nccl.algorithm(algorithm), nccl.protocol(protocol)
    c = nccl.choose(collective, size, topo, algo=algo, proto=proto)
    return {
        "time_s": c.time_s,
        "latency_s": c.best.latency_us * 1e-6,
        "bandwidth": c.best.bandwidth * 1e9,
        "bus_bandwidth": c.best.entry.bus_bandwidth * 1e9,
        "algbw": c.algbw,
        "busbw": c.busbw,
        "channels": c.best.entry.channels,
        "ranks": topo.ranks,
        "corrections": "; ".join(c.best.corrections) or "none",
    }


def explain_time(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**{args['algorithm']}/{args['protocol']} for {args['collective']} of "
        f"{format_bytes(args['size'])} on {format_number(result['ranks'])} ranks:** "
        f"latency {format_seconds(result['latency_s'])} + S / "
        f"{format_rate(result['bandwidth'])} = **{format_seconds(result['time_s'])}**; "
        f"busbw {format_rate(result['busbw'])} (corrections: {result['corrections']})."
    )


def link(link: str) -> dict[str, Any]:
    """A link's line rate per direction against the bandwidth NCCL assumes for it."""
    from quizcoll.collectives import hardware
    from quizcoll.collectives.nccl.report import link_doc

    try:
        doc = link_doc(link)
    except hardware.HardwareError as exc:
        raise ArgumentError(str(exc)) from None
    return {**doc, "bidirectional_line_rate": 2 * doc["line_rate"]}


def explain_link(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**{args['link']} ({result['kind']}):** line rate "
        f"{format_rate(result['line_rate'])} per direction "
        f"({format_rate(result['bidirectional_line_rate'])} both ways); NCCL counts "
        f"**{format_rate(result['nccl_bw'])}** (×{format_number(result['nccl_over_line'], 3)}). "
        f"Source: {result['source']}."
    )


def _cluster() -> list[Param]:
    return [
        Param("gpu", ParamKind.STR, "GPU preset", choices=GPUS, default="h100"),
        Param("nodes", ParamKind.INT, "nodes", minimum=1, maximum=MAX_NODES, default=1),
        Param("gpus_per_node", ParamKind.INT, "GPUs per node", minimum=1, maximum=8, default=8),
        Param("nic", ParamKind.STR, "NIC (default: the server's)", choices=NICS, default=None),
        Param("sharp", ParamKind.BOOL, "IB SHARP (CollNet) enabled", default=False),
    ]


def _call() -> list[Param]:
    return [
        Param("collective", ParamKind.STR, "the collective", choices=COLLECTIVES),
        Param(
            "size",
            ParamKind.BYTES,
            "nccl-tests message size S (all_gather: the gathered output)",
            minimum=1,
            maximum=2**50,
        ),
    ]


_TIMES = [
    Field("time_s", Dimension.SECONDS, "NCCL's modelled time"),
    Field("latency_s", Dimension.SECONDS, "the pair's latency term"),
    Field("bandwidth", Dimension.RATE, "the pair's algorithm bandwidth (S / bandwidth)"),
    Field("algbw", Dimension.RATE, "S / time (nccl-tests)"),
    Field("busbw", Dimension.RATE, "algbw × the nccl-tests factor"),
    Field("channels", Dimension.COUNT, "channels of the searched graph"),
    Field("ranks", Dimension.COUNT, "nodes × GPUs per node"),
]


def register(registry: Registry) -> None:
    registry.add_function(
        "nccl.choose",
        _guard(choose),
        params=[*_call(), *_cluster()],
        fields=[
            Field("algorithm", Dimension.TEXT, "the algorithm NCCL picks (Ring, NVLS …)"),
            Field("protocol", Dimension.TEXT, "the protocol NCCL picks (LL, LL128, Simple)"),
            Field("choice", Dimension.TEXT, "algorithm/protocol"),
            *_TIMES,
            Field("runner_up", Dimension.TEXT, "the second-cheapest pair"),
            Field("runner_up_time_s", Dimension.SECONDS, "its time"),
            Field("candidates", Dimension.TEXT, "every available pair with its time"),
        ],
        explain=explain_choose,
    )
    registry.add_function(
        "nccl.time",
        _guard(time),
        params=[
            *_call(),
            *_cluster(),
            Param("algorithm", ParamKind.STR, "NCCL algorithm", choices=ALGORITHMS),
            Param("protocol", ParamKind.STR, "NCCL protocol", choices=PROTOCOLS),
        ],
        fields=[
            *_TIMES,
            Field("bus_bandwidth", Dimension.RATE, "the tuner's bus bandwidth"),
            Field("corrections", Dimension.TEXT, "size-dependent corrections applied"),
        ],
        explain=explain_time,
    )
    registry.add_function(
        "hardware.link",
        link,
        params=[Param("link", ParamKind.STR, "GPU NVLink, PCIe generation or NIC", choices=LINKS)],
        fields=[
            Field("kind", Dimension.TEXT, "nvlink, pcie or nic"),
            Field("line_rate", Dimension.RATE, "line rate per direction"),
            Field("bidirectional_line_rate", Dimension.RATE, "both directions added"),
            Field("nccl_bw", Dimension.RATE, "the bandwidth NCCL assumes"),
            Field("nccl_over_line", Dimension.RATIO, "NCCL's figure ÷ line rate"),
            Field("source", Dimension.TEXT, "where the figures come from"),
            Field("generation", Dimension.TEXT, "nvlink2…nvlink5, gen3…gen6, hdr/ndr/xdr"),
            Field("lanes", Dimension.COUNT, "NVLink links per GPU, PCIe lanes (16), NIC ports"),
            Field("lane_line_rate", Dimension.RATE, "line rate of one link or lane"),
            Field("lane_nccl_bw", Dimension.RATE, "NCCL's figure for one link or lane"),
            Field("raw_rate", Dimension.RATE, "per direction before line encoding (PCIe)"),
            Field("pcie_nccl_bw", Dimension.RATE, "NCCL's figure for the device's PCIe x16 link"),
            Field("measured_low", Dimension.RATE, "published nccl-tests figure, low end"),
            Field("measured_high", Dimension.RATE, "published nccl-tests figure, high end"),
        ],
        explain=explain_link,
    )
