"""Second methods for the NCCL, tensor-parallel, expert-parallel and GEMM-wave cards
(``witness.*``, see :mod:`quizcoll.witnesses`): each reaches its figure by walking a tree,
dispatching tiles, listing transfers or routing tokens, never by the calculators' formulas.

- ``witness.nccl_tree``: NCCL's tree built (chains in nodes, a balanced tree of nodes) and
  walked GPU by GPU; the critical climb up and down, hop by hop;
- ``witness.gemm_dispatch``: a GEMM's tiles handed one by one to the earliest-free SM;
- ``witness.gemm_free_channels``: bisection on that dispatch for the SMs NCCL can take free;
- ``witness.custom_allreduce`` / ``witness.custom_allreduce_min_ranks``: one-shot and
  two-shot all-reduces as lists of transfers per phase, timed phase by phase; the fewest
  GPUs where two-shot wins, searched;
- ``witness.ep_route`` / ``witness.moe_layer_traffic``: uniform routing walked expert by
  expert over the GPUs' expert blocks; the MoE layer's all-to-alls listed and summed.

Model figures (latencies, bandwidths, SM counts) come in as arguments from the cards.
"""

from __future__ import annotations

from collections.abc import Callable
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
from quizcoll.witnesses import nccl_custom_allreduce as car
from quizcoll.witnesses import nccl_gemm, nccl_routing, nccl_tree

B, C, R, S = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.SECONDS


def _one_line(function: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """A witness's refusal (ValueError) as the registry's one-line argument error."""

    def wrapped(**kwargs: Any) -> dict[str, Any]:
        try:
            return function(**kwargs)
        except ValueError as exc:
            raise ArgumentError(str(exc)) from None

    wrapped.__doc__ = function.__doc__
    return wrapped


def _count(name: str, help: str, maximum: int, minimum: int = 1, **kw: Any) -> Param:
    return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum, **kw)


def tree_walk(
    nodes: int, gpus_per_node: int, intra_latency: float, inter_latency: float
) -> dict[str, Any]:
    """The tree all-reduce's critical path, walked up and down NCCL's tree."""
    w = nccl_tree.tree_walk(nodes, gpus_per_node, intra_latency, inter_latency)
    return {
        "latency_s": w.latency_s,
        "intra_hops": w.intra_hops,
        "inter_hops": w.inter_hops,
        "gpus": w.gpus,
    }


def gemm_dispatch(
    m: int, n: int, sms: int, channels: int = 0, tile_m: int = 128, tile_n: int = 256
) -> dict[str, Any]:
    """A GEMM's tiles dispatched to SMs, alone and beside ``channels`` NCCL CTAs."""
    if not 0 <= channels < sms:
        raise ValueError(f"channels must leave at least one of the {sms} SMs, got {channels}")
    alone = nccl_gemm.dispatch(m, n, tile_m, tile_n, sms)
    shared = nccl_gemm.dispatch(m, n, tile_m, tile_n, sms - channels)
    return {
        "tiles": alone.tiles,
        "waves_alone": alone.makespan,
        "waves_shared": shared.makespan,
        "utilisation": alone.utilisation,
        "last_wave_tiles": alone.last_wave_tiles,
        "slowdown": shared.makespan / alone.makespan,
    }


def gemm_free_channels(
    m: int, n: int, sms: int, tile_m: int = 128, tile_n: int = 256
) -> dict[str, Any]:
    """The most SMs an overlapped NCCL kernel can take before the GEMM needs another wave."""
    return {"free_channels": nccl_gemm.free_channels(m, n, tile_m, tile_n, sms)}


def custom_allreduce(
    shot: str, ranks: int, size: int, latency: float, bandwidth: float
) -> dict[str, Any]:
    """One-shot or two-shot custom all-reduce, transfer by transfer, phase by phase."""
    r = car.run(shot, ranks, size, latency, bandwidth)
    other = car.run(car.SHOTS[1 - car.SHOTS.index(shot)], ranks, size, latency, bandwidth)
    return {
        "time_s": r.time_s,
        "bytes_in": r.bytes_in,
        "phases": r.phases,
        "speedup_over_other": other.time_s / r.time_s,
    }


def custom_allreduce_min_ranks(size: int, latency: float, bandwidth: float) -> dict[str, Any]:
    """The fewest GPUs on which two-shot beats one-shot, searched GPU count by GPU count."""
    return {"ranks": car.min_ranks(size, latency, bandwidth)}


def ep_route(
    tokens: int,
    top_k: int,
    hidden: int,
    experts: int,
    nodes: int,
    gpus_per_node: int,
    value_bytes: int = 2,
) -> dict[str, Any]:
    """One GPU's dispatch bytes by path, walked expert by expert."""
    r = nccl_routing.route(
        tokens, top_k, hidden, value_bytes, experts, nodes * gpus_per_node, gpus_per_node
    )
    return {
        "local_bytes": r.local_bytes,
        "node_bytes": r.node_bytes,
        "offnode_bytes": r.offnode_bytes,
    }


def moe_layer_traffic(
    tokens_per_gpu: int, hidden: int, top_k: int, ep: int, value_bytes: int = 2
) -> dict[str, Any]:
    """What one GPU sends per MoE layer, all-to-all by all-to-all."""
    t = nccl_routing.layer_traffic(tokens_per_gpu, top_k, hidden, value_bytes, ep)
    return {
        "dispatch_bytes": t.dispatch_bytes,
        "forward_bytes": t.forward_bytes,
        "step_bytes": t.step_bytes,
    }


_SECONDS = {"minimum": 0, "maximum": 1}
_RATE = {"minimum": 1, "maximum": 1e15}


def register(registry: Registry) -> None:
    add, declare = registry.add_function, registry.declare_derivation
    add(
        "witness.nccl_tree",
        _one_line(tree_walk),
        params=[
            _count("nodes", "nodes", 1 << 17),
            _count("gpus_per_node", "GPUs per node", 64),
            Param("intra_latency", ParamKind.SECONDS, "latency of an NVLink hop", **_SECONDS),
            Param("inter_latency", ParamKind.SECONDS, "latency of a network hop", **_SECONDS),
        ],
        fields=[
            Field("latency_s", S, "the slowest climb to the root and back down"),
            Field("intra_hops", C, "NVLink hops on that path, up and down"),
            Field("inter_hops", C, "network hops on that path, up and down"),
            Field("gpus", C, "GPUs walked to the root"),
        ],
    )
    declare(
        "witness.nccl_tree",
        Derivation.ENUMERATED,
        "builds the tree's parent links and walks every GPU to the root "
        "(quizcoll.witnesses.nccl_tree)",
    )
    gemm = [
        _count("m", "output rows", 1 << 20),
        _count("n", "output columns", 1 << 20),
        _count("sms", "SMs of the GPU", 1024),
    ]
    tiles = [
        _count("tile_m", "tile rows", 4096, default=128),
        _count("tile_n", "tile columns", 4096, default=256),
    ]
    add(
        "witness.gemm_dispatch",
        _one_line(gemm_dispatch),
        params=[*gemm, _count("channels", "SMs NCCL holds", 1023, minimum=0, default=0), *tiles],
        fields=[
            Field("tiles", C, "tiles enumerated on the output"),
            Field("waves_alone", C, "makespan in tile times, all SMs"),
            Field("waves_shared", C, "makespan beside the NCCL CTAs"),
            Field("utilisation", R, "busy SM-time ÷ SM-time, alone"),
            Field("last_wave_tiles", C, "tiles starting in the last slot, alone"),
            Field("slowdown", R, "shared makespan ÷ makespan alone"),
        ],
    )
    declare(
        "witness.gemm_dispatch",
        Derivation.SIMULATED,
        "hands each enumerated tile to the earliest-free SM on a clock "
        "(quizcoll.witnesses.nccl_gemm)",
    )
    add(
        "witness.gemm_free_channels",
        _one_line(gemm_free_channels),
        params=[*gemm, *tiles],
        fields=[Field("free_channels", C, "SMs NCCL can take with no extra wave")],
    )
    declare(
        "witness.gemm_free_channels",
        Derivation.SEARCHED,
        "bisects the SMs taken on the tile dispatch's makespan (quizcoll.witnesses.nccl_gemm)",
    )
    ar = [
        Param("size", ParamKind.BYTES, "buffer S", minimum=1, maximum=2**34),
        Param("latency", ParamKind.SECONDS, "α per synchronisation", **_SECONDS),
        Param("bandwidth", ParamKind.RATE, "bandwidth into each GPU", **_RATE),
    ]
    add(
        "witness.custom_allreduce",
        _one_line(custom_allreduce),
        params=[
            Param("shot", ParamKind.STR, "one-shot or two-shot", choices=car.SHOTS),
            _count("ranks", "GPUs", car.MAX_RANKS, minimum=2),
            *ar,
        ],
        fields=[
            Field("time_s", S, "phase by phase: α + busiest GPU's inbound bytes ÷ B"),
            Field("bytes_in", B, "bytes the busiest GPU pulls in"),
            Field("phases", C, "synchronised phases"),
            Field("speedup_over_other", R, "the other shot's time ÷ this one's"),
        ],
    )
    declare(
        "witness.custom_allreduce",
        Derivation.ENUMERATED,
        "lists every phase's transfers, checks they all-reduce, times them "
        "(quizcoll.witnesses.nccl_custom_allreduce)",
    )
    add(
        "witness.custom_allreduce_min_ranks",
        _one_line(custom_allreduce_min_ranks),
        params=ar,
        fields=[Field("ranks", C, "fewest GPUs where two-shot is faster")],
    )
    declare(
        "witness.custom_allreduce_min_ranks",
        Derivation.SEARCHED,
        "tries GPU counts upward on the enumerated schedules "
        "(quizcoll.witnesses.nccl_custom_allreduce)",
    )
    route = [
        _count("top_k", "experts per token", 64),
        _count("hidden", "hidden size", 1 << 17),
    ]
    add(
        "witness.ep_route",
        _one_line(ep_route),
        params=[
            _count("tokens", "tokens on the GPU", 1 << 24),
            *route,
            _count("experts", "experts", nccl_routing.MAX_EXPERTS),
            _count("nodes", "nodes", 4096),
            _count("gpus_per_node", "GPUs per node", 64),
            _count("value_bytes", "bytes per value", 8, default=2),
        ],
        fields=[
            Field("local_bytes", B, "to experts on the GPU itself"),
            Field("node_bytes", B, "to the node's other GPUs"),
            Field("offnode_bytes", B, "to other nodes"),
        ],
    )
    declare(
        "witness.ep_route",
        Derivation.ENUMERATED,
        "walks the experts one by one to their GPU and node (quizcoll.witnesses.nccl_routing)",
    )
    add(
        "witness.moe_layer_traffic",
        _one_line(moe_layer_traffic),
        params=[
            _count("tokens_per_gpu", "tokens per GPU", 1 << 24),
            _count("hidden", "hidden size", 1 << 17),
            _count("top_k", "experts per token", 64),
            _count("ep", "expert-parallel GPUs", 4096),
            _count("value_bytes", "bytes per value", 8, default=2),
        ],
        fields=[
            Field("dispatch_bytes", B, "one all-to-all"),
            Field("forward_bytes", B, "the forward all-to-alls"),
            Field("step_bytes", B, "forward and backward"),
        ],
    )
    declare(
        "witness.moe_layer_traffic",
        Derivation.ENUMERATED,
        "routes expert by expert and sums the layer's listed all-to-alls "
        "(quizcoll.witnesses.nccl_routing)",
    )
