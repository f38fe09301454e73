"""Collective-communication answers for cards: traffic, steps, time, crossover, ZeRO volume.

Every number comes from the real schedule of the algorithm, laid out for the asked rank
count and size (:func:`quizcoll.collectives.plan`): its structure is built once, each
block's size follows from the element count, and bytes are counted from its rounds.
No data is moved, so a 1 GiB question costs the same few milliseconds as a 1 KiB one,
and the counts are exact (the simulator's own tests check that executing the same
schedules on data gives the collective's definition, and that the counts equal the sums
over their transfers).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from deck.units import format_bytes, format_number, format_rate, format_seconds
from quizcoll.executables import refusals_as_argument_errors

COLLECTIVES = (
    "broadcast",
    "scatter",
    "gather",
    "reduce",
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "all_to_all",
)
ALGORITHMS = (
    "default",
    "ring",
    "naive",
    "direct",
    "binomial",
    "recursive_doubling",
    "recursive_halving",
    "rabenseifner",
    "double_binary_tree",
    "scatter_allgather",
    "reduce_scatter_gather",
    "pairwise",
)
DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int32", "int64")
# Checking an answer must stay interactive (well under 100 ms, DESIGN.md): counting any
# algorithm's structure takes about 20 ms at 1,024 ranks and grows like N log N (80 ms at
# 4,096 for Rabenseifner). `quizcoll sim` takes up to 131,072. The crossover re-prices two
# algorithms dozens of times, so it keeps 256.
MAX_RANKS = 1024
CROSSOVER_MAX_RANKS = 256


def _guard(function: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Report the simulator's refusals as argument errors (one line, no traceback)."""
    return refusals_as_argument_errors(function, _collective_error)


def _collective_error() -> type[Exception]:
    from quizcoll.collectives import CollectiveError  # numpy: only once a card runs

    return CollectiveError


def _model(link: str, latency: float | None, bandwidth: float | None) -> Any:
    from quizcoll.collectives import CostModel, with_overrides

    return CostModel(with_overrides(link, latency, bandwidth))


def _count(size: int, dtype: str) -> int:
    from quizcoll.collectives import get_dtype

    itemsize = get_dtype(dtype).itemsize
    if size % itemsize:
        raise ArgumentError(f"size: {size} bytes is not a whole number of {dtype} elements")
    return size // itemsize


def cost(
    collective: str,
    algorithm: str,
    ranks: int,
    size: int,
    dtype: str,
    root: int,
    link: str,
    latency: float | None,
    bandwidth: float | None,
) -> dict[str, Any]:
    """Steps, bytes per rank, modelled time and nccl-tests bandwidths of one collective."""
    from quizcoll import collectives as co

    p = co.plan(
        collective,
        ranks,
        _count(size, dtype),
        algorithm=None if algorithm == "default" else algorithm,
        dtype=dtype,
        root=root,
    )
    model = _model(link, latency, bandwidth)
    time_s = p.time(model)
    algbw, busbw = co.bandwidths(p.collective, ranks, p.input_bytes, time_s)
    message = co.message_bytes(p.collective, ranks, p.input_bytes)
    max_sent = int(p.bytes_sent.max())
    return {
        "collective": p.collective.value,
        "algorithm": p.algorithm,
        "ranks": ranks,
        "size_bytes": p.input_bytes,
        "message_bytes": message,
        "steps": p.steps,
        "max_bytes_sent": max_sent,
        "max_bytes_received": int(p.bytes_received.max()),
        "total_bytes": int(p.bytes_sent.sum()),
        "traffic_factor": max_sent / message,
        "time_s": time_s,
        "algbw": algbw or 0.0,
        "busbw": busbw or 0.0,
        "busbw_factor": co.busbw_factor(p.collective, ranks),
        "latency_s": model.link.latency_s,
        "bandwidth": model.link.bandwidth,
        "bytes_sent": p.bytes_sent.tolist(),
    }


# Closed forms of the busiest rank's bytes, in units of S (the nccl-tests message size),
# for a power-of-two N and a size every block divides; used to explain, never to compute.
_CLOSED_FORMS: dict[tuple[str, str], tuple[str, Callable[[int], float]]] = {
    ("all_reduce", "ring"): ("2(N−1)/N · S", lambda n: 2 * (n - 1) / n),
    ("all_reduce", "rabenseifner"): ("2(N−1)/N · S", lambda n: 2 * (n - 1) / n),
    ("all_reduce", "recursive_doubling"): ("log2(N) · S", lambda n: math.log2(n)),
    ("all_reduce", "naive"): ("(N−1) · S (the root sends the result to everyone)", lambda n: n - 1),
    ("reduce_scatter", "ring"): ("(N−1)/N · S", lambda n: (n - 1) / n),
    ("reduce_scatter", "recursive_halving"): ("(N−1)/N · S", lambda n: (n - 1) / n),
    ("all_gather", "ring"): ("(N−1)/N · S", lambda n: (n - 1) / n),
    ("all_gather", "recursive_doubling"): ("(N−1)/N · S", lambda n: (n - 1) / n),
    ("all_to_all", "pairwise"): ("(N−1)/N · S", lambda n: (n - 1) / n),
    ("broadcast", "direct"): ("(N−1) · S", lambda n: n - 1),
    ("broadcast", "binomial"): ("log2(N) · S (the root sends every round)", lambda n: math.log2(n)),
    ("broadcast", "scatter_allgather"): ("2(N−1)/N · S", lambda n: 2 * (n - 1) / n),
    ("scatter", "direct"): ("(N−1)/N · S", lambda n: (n - 1) / n),
    ("scatter", "binomial"): ("(N−1)/N · S", lambda n: (n - 1) / n),
    ("reduce", "binomial"): ("S", lambda n: 1.0),
    ("reduce", "direct"): ("S", lambda n: 1.0),
}

_STEP_FORMS: dict[tuple[str, str], str] = {
    ("all_reduce", "ring"): "2(N−1)",
    ("all_reduce", "rabenseifner"): "2·log2(N)",
    ("all_reduce", "recursive_doubling"): "log2(N)",
    ("reduce_scatter", "ring"): "N−1",
    ("all_gather", "ring"): "N−1",
    ("all_to_all", "pairwise"): "N−1",
    ("broadcast", "binomial"): "⌈log2 N⌉",
}


def _form_holds(key: tuple[str, str], n: int) -> bool:
    """The log2(N) step forms hold for powers of two; MPICH's fold adds two steps otherwise."""
    return "log2(N)" not in _STEP_FORMS[key] or n & (n - 1) == 0


def explain_cost(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    n = int(result["ranks"])
    key = (result["collective"], result["algorithm"])
    s = result["message_bytes"]
    lines = [
        f"**{result['collective']} · {result['algorithm']} on N = {n} ranks**, "
        f"S = {format_bytes(s)} (nccl-tests message size).",
        "",
        f"- Rounds: **{result['steps']}**"
        + (f" = {_STEP_FORMS[key]}" if key in _STEP_FORMS and _form_holds(key, n) else "")
        + ".",
    ]
    closed = _CLOSED_FORMS.get(key)
    sent = (
        f"{format_bytes(result['max_bytes_sent'])} = {format_number(result['traffic_factor'])} × S"
    )
    if closed and n & (n - 1) == 0:
        text, factor = closed
        lines.append(
            f"- Busiest rank sends {text} = {format_number(factor(n))} × {format_bytes(s)} "
            f"→ simulated: **{sent}**."
        )
    else:
        lines.append(f"- Busiest rank sends (counted on the schedule): **{sent}**.")
    lines += [
        f"- Time (α = {format_seconds(result['latency_s'])}, "
        f"{format_rate(result['bandwidth'])} per direction): sum over rounds of "
        f"α·messages + bytes/bandwidth = **{format_seconds(result['time_s'])}**.",
        f"- algbw = S / time = {format_rate(result['algbw'])}; busbw = algbw × "
        f"{format_number(result['busbw_factor'])} = **{format_rate(result['busbw'])}**.",
    ]
    return "\n".join(lines)


def crossover(
    ranks: int,
    other: str,
    dtype: str,
    link: str,
    latency: float | None,
    bandwidth: float | None,
) -> dict[str, Any]:
    """The all-reduce size at which ring becomes faster than ``other``."""
    from quizcoll import collectives as co

    c = co.crossover(ranks, other, _model(link, latency, bandwidth), dtype=dtype)
    return {
        "crossover_bytes": c.size_bytes,
        "ring_time_s": c.ring_time_s,
        "other_time_s": c.other_time_s,
        "below_bytes": c.below_size_bytes,
        "below_ring_time_s": c.below_ring_time_s,
        "below_other_time_s": c.below_other_time_s,
    }


def explain_crossover(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    # Four digits: at the crossover the two times agree to them (that is what a crossover
    # is); which one is smaller on either side is the sentence, not a seventh digit.
    def t(x: float) -> str:
        return format_seconds(x, 4)

    return "\n".join(
        [
            f"**Ring vs {args['other']} all-reduce on N = {args['ranks']} ranks.** Ring pays "
            f"2(N−1) latencies but sends only 2(N−1)/N · S; {args['other']} pays few "
            "latencies but sends more bytes per rank.",
            "",
            f"- Up to {format_bytes(result['below_bytes'], digits=4)} ring is the slower.",
            f"- At **{format_bytes(result['crossover_bytes'], digits=4)}** ring takes over, the "
            f"two times meeting: ring {t(result['ring_time_s'])} vs {t(result['other_time_s'])}.",
            "",
            "Times are the α-β model summed over each schedule's rounds.",
        ]
    )


def best_algorithm(
    collective: str,
    ranks: int,
    size: int,
    dtype: str,
    link: str,
    latency: float | None,
    bandwidth: float | None,
) -> dict[str, Any]:
    """The fastest algorithm for a collective at a size, with every algorithm's time."""
    from quizcoll import collectives as co

    best, times = co.best_algorithm(
        collective, ranks, size, _model(link, latency, bandwidth), dtype=dtype
    )
    return {"algorithm": best, "time_s": times[best], "times": times}


def explain_best(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    rows = [
        f"| {name} | {format_seconds(t)} |"
        for name, t in sorted(result["times"].items(), key=lambda kv: kv[1])
    ]
    return "\n".join(
        [
            f"**{args['collective']} of {format_bytes(args['size'])} on {args['ranks']} ranks:** "
            f"fastest is **{result['algorithm']}**.",
            "",
            "| algorithm | modelled time |",
            "|---|---|",
            *rows,
        ]
    )


def hierarchical(
    nodes: int,
    gpus_per_node: int,
    size: int,
    dtype: str,
    intra_latency: float | None,
    intra_bandwidth: float | None,
    inter_latency: float | None,
    inter_bandwidth: float | None,
) -> dict[str, Any]:
    """Hierarchical vs flat-ring all-reduce over nodes × GPUs with two link classes
    (NVLink-class inside a node, InfiniBand-class between nodes, unless overridden)."""
    from quizcoll import collectives as co
    from quizcoll.collectives.cost import per_nic_rings

    count = _count(size, dtype)
    model = co.CostModel(
        co.with_overrides("nvlink", intra_latency, intra_bandwidth),
        inter=co.with_overrides("infiniband", inter_latency, inter_bandwidth),
        gpus_per_node=gpus_per_node,
    )
    h = co.plan_hierarchical(nodes, gpus_per_node, count, dtype=dtype)
    flat = co.plan("all_reduce", nodes * gpus_per_node, count, algorithm="ring", dtype=dtype)
    intra, inter = h.bytes_by_link(gpus_per_node)
    _, flat_inter = flat.bytes_by_link(gpus_per_node)
    # the flat ring as NCCL runs it: one ring per NIC, the NICs' bandwidth adds up
    h_time, flat_time = h.time(model), flat.time(per_nic_rings(model))
    return {
        "steps": h.steps,
        "inter_bytes_per_gpu": int(inter.max()),
        "intra_bytes_per_gpu": int(intra.max()),
        "inter_factor": int(inter.max()) / size,
        "time_s": h_time,
        "flat_ring_steps": flat.steps,
        "flat_ring_inter_bytes_per_gpu": int(flat_inter.max()),
        "flat_ring_inter_bytes_per_nic": int(flat_inter.max()) / gpus_per_node,
        "flat_ring_time_s": flat_time,
        "speedup": flat_time / h_time if h_time > 0 else 1.0,
    }


def explain_hierarchical(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    a, b = args["gpus_per_node"], args["nodes"]
    s = args["size"]
    return "\n".join(
        [
            f"**Hierarchical all-reduce, b = {b} nodes of a = {a} GPUs, S = {format_bytes(s)}.**",
            "",
            "1. ring reduce-scatter inside each node (each GPU keeps S/a);",
            "2. ring all-reduce of that shard across the nodes (one ring per local GPU index);",
            "3. ring all-gather inside each node.",
            "",
            f"Inter-node bytes per GPU = 2(b−1)/(ab) · S = 2·{b - 1}/{a * b} · {format_bytes(s)}"
            f" = **{format_bytes(result['inter_bytes_per_gpu'])}** "
            f"(a flat ring through one NIC sends up to "
            f"{format_bytes(result['flat_ring_inter_bytes_per_gpu'])} across nodes; NCCL runs "
            f"one ring per NIC: {format_bytes(result['flat_ring_inter_bytes_per_nic'])} per NIC).",
            f"Modelled time {format_seconds(result['time_s'])} vs flat ring "
            f"{format_seconds(result['flat_ring_time_s'])} (×{format_number(result['speedup'])}).",
        ]
    )


def zero_volume(parameters: int, stage: int, gpus: int, dtype: str) -> dict[str, Any]:
    """Bytes each GPU sends per training step under plain DP (stage 0) or ZeRO-1/2/3."""
    from quizcoll import collectives as co

    v = co.zero_volume(parameters, stage, gpus, dtype=dtype)
    return {
        "bytes_per_gpu": v.bytes_per_gpu,
        "psi_multiple": v.psi_multiple,
        "large_n_multiple": {0: 2, 1: 2, 2: 2, 3: 3}[stage],
        "collectives": ", ".join(v.collectives),
    }


def explain_zero(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    n = args["gpus"]
    k = result["large_n_multiple"]
    label = "plain data parallelism" if args["stage"] == 0 else f"ZeRO-{args['stage']}"
    return (
        f"**{label}, N = {n} GPUs, Ψ = {format_number(args['parameters'])} parameters in "
        f"{args['dtype']}:** {result['collectives']} on rings. Each GPU sends "
        f"{k}·(N−1)/N · Ψ elements ≈ {k}Ψ: **{format_bytes(result['bytes_per_gpu'])}** "
        f"= {format_number(result['psi_multiple'])} × Ψ·bytes."
    )


def _common(*, collective: bool = True, algorithm: bool = True, min_ranks: int = 2) -> list[Param]:
    params = []
    if collective:
        params.append(Param("collective", ParamKind.STR, "the collective", choices=COLLECTIVES))
    if algorithm:
        params.append(
            Param(
                "algorithm",
                ParamKind.STR,
                "algorithm (default: the collective's usual one)",
                choices=ALGORITHMS,
                default="default",
            )
        )
    return [
        *params,
        Param("ranks", ParamKind.INT, "number of ranks N", minimum=min_ranks, maximum=MAX_RANKS),
        Param(
            "size",
            ParamKind.BYTES,
            "per-rank input buffer (all_gather, gather: each rank's piece)",
            minimum=1,
            maximum=2**50,
        ),
        Param("dtype", ParamKind.STR, "element type", choices=DTYPE_NAMES, default="float32"),
    ]


_LINK = [
    Param("link", ParamKind.STR, "cost preset", choices=("nvlink", "infiniband"), default="nvlink"),
    Param(
        "latency", ParamKind.SECONDS, "per-message latency α", minimum=0, maximum=1, default=None
    ),
    Param(
        "bandwidth",
        ParamKind.RATE,
        "bandwidth per direction",
        minimum=1,
        maximum=1e15,
        default=None,
    ),
]

_COST_FIELDS = [
    Field("steps", Dimension.COUNT, "communication rounds"),
    Field("max_bytes_sent", Dimension.BYTES, "bytes sent by the busiest rank"),
    Field("max_bytes_received", Dimension.BYTES, "bytes received by the busiest rank"),
    Field("total_bytes", Dimension.BYTES, "bytes sent by all ranks together"),
    Field("message_bytes", Dimension.BYTES, "S: the nccl-tests message size"),
    Field("traffic_factor", Dimension.RATIO, "max bytes sent ÷ S (e.g. 2(N−1)/N)"),
    Field("time_s", Dimension.SECONDS, "modelled time (alpha-beta)"),
    Field("algbw", Dimension.RATE, "S ÷ time"),
    Field("busbw", Dimension.RATE, "algbw × the nccl-tests factor"),
    Field("busbw_factor", Dimension.RATIO, "nccl-tests bus-bandwidth factor"),
]


def register(registry: Registry) -> None:
    root = Param("root", ParamKind.INT, "root rank", minimum=0, maximum=MAX_RANKS - 1, default=0)
    guarded_cost = _guard(cost)
    registry.add_function(
        "collectives.cost",
        guarded_cost,
        params=[*_common(), root, *_LINK],
        fields=_COST_FIELDS,
        explain=explain_cost,
    )
    for name in COLLECTIVES:

        def one(name: str = name, **kwargs: Any) -> dict[str, Any]:
            return guarded_cost(collective=name, **kwargs)

        registry.add_function(
            f"collectives.{name}",
            one,
            params=[*_common(collective=False), root, *_LINK],
            fields=_COST_FIELDS,
            summary=f"Steps, bytes per rank and modelled time of {name}.",
            explain=explain_cost,
        )
    registry.add_function(
        "collectives.crossover",
        _guard(crossover),
        params=[
            Param(
                "ranks", ParamKind.INT, "number of ranks N", minimum=3, maximum=CROSSOVER_MAX_RANKS
            ),
            Param(
                "other",
                ParamKind.STR,
                "the algorithm ring is compared with",
                choices=("double_binary_tree", "recursive_doubling", "naive"),
                default="double_binary_tree",
            ),
            Param("dtype", ParamKind.STR, "element type", choices=DTYPE_NAMES, default="float32"),
            *_LINK,
        ],
        fields=[
            Field("crossover_bytes", Dimension.BYTES, "smallest per-rank size where ring wins"),
            Field("ring_time_s", Dimension.SECONDS, "ring time at that size"),
            Field("other_time_s", Dimension.SECONDS, "the other algorithm's time there"),
            Field("below_bytes", Dimension.BYTES, "the size just below, where ring loses"),
        ],
        explain=explain_crossover,
    )
    registry.add_function(
        "collectives.best_algorithm",
        _guard(best_algorithm),
        params=[*_common(algorithm=False), *_LINK],
        fields=[
            Field("algorithm", Dimension.TEXT, "the fastest algorithm's name"),
            Field("time_s", Dimension.SECONDS, "its modelled time"),
        ],
        explain=explain_best,
    )
    registry.add_function(
        "collectives.hierarchical",
        _guard(hierarchical),
        params=[
            Param("nodes", ParamKind.INT, "nodes b", minimum=1, maximum=32),
            Param("gpus_per_node", ParamKind.INT, "GPUs per node a", minimum=1, maximum=16),
            Param("size", ParamKind.BYTES, "per-GPU buffer S", minimum=1, maximum=2**50),
            Param("dtype", ParamKind.STR, "element type", choices=DTYPE_NAMES, default="float32"),
            # Unset: the nvlink (inside a node) and infiniband (between nodes) presets.
            Param("intra_latency", ParamKind.SECONDS, "α inside a node", minimum=0, default=None),
            Param("intra_bandwidth", ParamKind.RATE, "inside a node", minimum=1, default=None),
            Param("inter_latency", ParamKind.SECONDS, "α between nodes", minimum=0, default=None),
            Param("inter_bandwidth", ParamKind.RATE, "between nodes", minimum=1, default=None),
        ],
        fields=[
            Field("inter_bytes_per_gpu", Dimension.BYTES, "bytes a GPU sends to other nodes"),
            Field("intra_bytes_per_gpu", Dimension.BYTES, "bytes a GPU sends inside its node"),
            Field("inter_factor", Dimension.RATIO, "inter-node bytes per GPU ÷ S"),
            Field("steps", Dimension.COUNT, "communication rounds"),
            Field("time_s", Dimension.SECONDS, "modelled time"),
            Field("flat_ring_time_s", Dimension.SECONDS, "a flat ring's modelled time"),
            Field(
                "flat_ring_inter_bytes_per_gpu",
                Dimension.BYTES,
                "inter-node bytes of the busiest GPU in one flat ring (one NIC)",
            ),
            Field(
                "flat_ring_inter_bytes_per_nic",
                Dimension.BYTES,
                "inter-node bytes per NIC when NCCL runs one flat ring per NIC",
            ),
            Field("speedup", Dimension.RATIO, "flat ring time ÷ hierarchical time"),
        ],
        explain=explain_hierarchical,
    )
    registry.add_function(
        "collectives.zero_volume",
        _guard(zero_volume),
        params=[
            Param("parameters", ParamKind.INT, "model parameters Ψ", minimum=1, maximum=1e13),
            Param("stage", ParamKind.INT, "ZeRO stage (0: plain DP)", minimum=0, maximum=3),
            Param("gpus", ParamKind.INT, "data-parallel GPUs N", minimum=2, maximum=MAX_RANKS),
            Param(
                "dtype",
                ParamKind.STR,
                "gradient/parameter type",
                choices=DTYPE_NAMES,
                default="bfloat16",
            ),
        ],
        fields=[
            Field("bytes_per_gpu", Dimension.BYTES, "bytes each GPU sends per training step"),
            Field("psi_multiple", Dimension.RATIO, "bytes per GPU ÷ (Ψ · bytes per element)"),
            Field("large_n_multiple", Dimension.RATIO, "the ZeRO paper's 2Ψ or 3Ψ"),
            Field("collectives", Dimension.TEXT, "the collectives of one step"),
        ],
        explain=explain_zero,
    )
