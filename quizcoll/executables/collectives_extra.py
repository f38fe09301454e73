"""More collective algorithms for cards, each counted on its own schedule: Bruck's all-gather
and all-to-all, the pipelined chain broadcast, in-network (switch) reduction and the depth of
NCCL's trees (gradient compression, nccl-tests figures and stragglers are in
:mod:`.collectives_practice`).

- ``collectives.bruck``: Bruck et al. (1997): ⌈log₂N⌉ rounds; all-gather sends the same
  (N−1)·s as a ring, all-to-all sends more bytes than pairwise but in far fewer rounds;
- ``collectives.chain_broadcast``: the root's buffer cut into k chunks forwarded down a
  chain of N ranks (NCCL's ring broadcast): rounds counted by a per-rank recurrence;
- ``collectives.in_network``: every GPU sends S to the switch and receives the reduced S
  (IB SHARP, NVLink SHARP) against a ring's 2(N−1)/N·S;
- ``collectives.nccl_tree``: NCCL's two trees on nodes × GPUs as the simulator builds them
  (a double binary tree over the nodes, a chain inside each node): depth, network hops,
  chain hops and simulated rounds, each counted by walking the trees;
- ``collectives.tree_depth``: the depth of NCCL's binary tree (its root has one child, so
  ⌈log₂N⌉) against a balanced binary tree's ⌊log₂N⌋.

The schedules are pure functions of their sizes; :func:`run_bruck` moves real blocks
through the same schedule, which the tests compare with the collective's definition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from deck.units import format_bytes, format_rate, format_seconds
from quizcoll.executables.collectives import MAX_RANKS, _guard, _model, cost

BRUCK_COLLECTIVES = ("all_gather", "all_to_all")
MAX_CHUNKS = 4096
SEARCH_CHUNKS = 256  # chunk counts the best-chunks search tries (more when asked for)
B, C, R, S, T = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.SECONDS, Dimension.TEXT


# ----------------------------------------------------------------------------- Bruck


@dataclass(frozen=True)
class BruckStep:
    """One round of a Bruck schedule: every rank r sends the blocks at ``positions`` of its
    local buffer to rank r + ``offset`` (mod N) and receives the same positions from
    r − ``offset``. All-gather appends them at ``receive_at`` instead."""

    offset: int
    positions: tuple[int, ...]
    receive_at: int = -1  # all-gather: where the received blocks land; -1: same positions


def bruck_schedule(collective: str, ranks: int) -> tuple[BruckStep, ...]:
    """The rounds of Bruck's all-gather or all-to-all on ``ranks`` ranks.

    All-gather: rank r starts with its block at local position 0; in round k (d = 2^k) it
    sends its first min(d, N − d) blocks to r − d and appends what r + d sends. All-to-all:
    after a local rotation (position i holds the block for rank r + i), round k sends every
    position whose bit k is set to rank r + 2^k, which puts it in place for the next round.
    """
    if collective not in BRUCK_COLLECTIVES:
        raise ArgumentError(f"Bruck's algorithm runs {' and '.join(BRUCK_COLLECTIVES)} here")
    steps: list[BruckStep] = []
    d = 1
    while d < ranks:
        if collective == "all_gather":
            count = min(d, ranks - d)
            steps.append(BruckStep(-d, tuple(range(count)), receive_at=d))
        else:
            steps.append(BruckStep(d, tuple(i for i in range(ranks) if i & d)))
        d *= 2
    return tuple(steps)


def run_bruck(collective: str, blocks: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Move real blocks through :func:`bruck_schedule`. ``blocks[r]`` is rank r's input:
    one block (all-gather) or N blocks, block j for rank j (all-to-all). Returns each rank's
    output in rank order, as the collective defines it."""
    n = len(blocks)
    if collective == "all_gather":
        local = [[blocks[r][0]] + [None] * (n - 1) for r in range(n)]
    else:
        local = [[blocks[r][(r + i) % n] for i in range(n)] for r in range(n)]
    for step in bruck_schedule(collective, n):
        sent = [[local[r][p] for p in step.positions] for r in range(n)]
        for r in range(n):
            src = (r - step.offset) % n
            start = step.receive_at if step.receive_at >= 0 else None
            for i, p in enumerate(step.positions):
                local[r][p if start is None else start + i] = sent[src][i]
    if collective == "all_gather":  # local position i holds rank r + i's block
        return [[local[r][(j - r) % n] for j in range(n)] for r in range(n)]
    # all-to-all: local position i now holds the block that rank r − i sent to r
    return [[local[r][(r - j) % n] for j in range(n)] for r in range(n)]


def bruck(
    collective: str,
    ranks: int,
    size: int,
    link: str,
    latency: float | None,
    bandwidth: float | None,
) -> dict[str, Any]:
    """Bruck's all-gather (size: each rank's block) or all-to-all (size: each rank's buffer
    of N blocks): rounds, bytes and α-β time, beside the ring (pairwise) algorithm."""
    if collective == "all_to_all" and size % ranks:
        raise ArgumentError(f"size: {size} bytes do not split into {ranks} equal blocks")
    block = size if collective == "all_gather" else size // ranks
    model = _model(link, latency, bandwidth).link
    steps = bruck_schedule(collective, ranks)
    sent = [len(s.positions) * block for s in steps]
    time_s = sum(model.latency_s + b / model.bandwidth for b in sent)
    baseline = "ring" if collective == "all_gather" else "pairwise"
    base = cost(collective, baseline, ranks, size, "int8", 0, link, latency, bandwidth)
    return {
        "steps": len(steps),
        "block_bytes": block,
        "max_bytes_sent": sum(sent),
        "time_s": time_s,
        "baseline": baseline,
        "baseline_steps": base["steps"],
        "baseline_bytes_sent": base["max_bytes_sent"],
        "baseline_time_s": base["time_s"],
        "speedup": base["time_s"] / time_s,
        "bytes_ratio": sum(sent) / base["max_bytes_sent"],
    }


def explain_bruck(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**Bruck {args['collective']} on {args['ranks']} ranks:** {result['steps']} rounds "
        f"(⌈log₂N⌉), {format_bytes(result['max_bytes_sent'])} sent per rank, "
        f"{format_seconds(result['time_s'])}; {result['baseline']}: "
        f"{result['baseline_steps']} rounds, {format_bytes(result['baseline_bytes_sent'])}, "
        f"{format_seconds(result['baseline_time_s'])}."
    )


# ----------------------------------------------------------------------------- chain broadcast


def chain_rounds(ranks: int, chunks: int) -> list[int]:
    """Rounds until the last rank of a chain holds chunks 0..c, for every c < ``chunks``.

    F[r][c] — the round in which rank r has received chunk c — is
    max(F[r−1][c], F[r][c−1]) + 1: a chunk is forwarded once it has arrived and the link has
    sent the chunk before it. A chunk never waits for a later one, so the first k entries
    are the rounds of a k-chunk broadcast.
    """
    import numpy as np

    positions = np.arange(chunks)
    f = np.zeros(chunks, dtype=np.int64)  # the root holds every chunk at round 0
    for _ in range(1, ranks):
        # F[r][c] = c + 1 + max over c' ≤ c of (F[r−1][c'] − c')
        f = positions + 1 + np.maximum.accumulate(f - positions)
    return [int(x) for x in f]


def chain_broadcast(
    ranks: int,
    size: int,
    chunks: int,
    link: str,
    latency: float | None,
    bandwidth: float | None,
) -> dict[str, Any]:
    """A pipelined chain broadcast of ``size`` bytes cut into ``chunks`` pieces."""
    model = _model(link, latency, bandwidth).link
    # one recurrence gives every chunk count up to its width: search the best among them
    width = max(chunks, SEARCH_CHUNKS)
    rounds = chain_rounds(ranks, width)

    def time_of(k: int) -> float:
        return rounds[k - 1] * (model.latency_s + size / k / model.bandwidth)

    best = min(range(1, width + 1), key=time_of)
    return {
        "steps": rounds[chunks - 1],
        "chunk_bytes": size / chunks,
        "time_s": time_of(chunks),
        "max_bytes_sent": size,
        "total_bytes": (ranks - 1) * size,
        "unpipelined_time_s": time_of(1),
        "best_chunks": best,
        "best_time_s": time_of(best),
    }


def explain_chain(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**Chain broadcast of {format_bytes(args['size'])} over {args['ranks']} ranks in "
        f"{args['chunks']} chunks:** {result['steps']} rounds of α + "
        f"{format_bytes(result['chunk_bytes'])}/B = **{format_seconds(result['time_s'])}** "
        f"(one chunk: {format_seconds(result['unpipelined_time_s'])}; best with "
        f"{result['best_chunks']} chunks: {format_seconds(result['best_time_s'])})."
    )


# ----------------------------------------------------------------------------- in-network


def in_network(
    ranks: int,
    size: int,
    link: str,
    latency: float | None,
    bandwidth: float | None,
) -> dict[str, Any]:
    """An all-reduce reduced inside the switch (SHARP): each GPU streams its S up and gets
    the reduced S back down, both directions at once, against a ring on the same links."""
    model = _model(link, latency, bandwidth).link
    ring = cost("all_reduce", "ring", ranks, size, "int8", 0, link, latency, bandwidth)
    # one message up, one down; the two directions of a full-duplex port overlap
    time_s = 2 * model.latency_s + size / model.bandwidth
    factor = ring["busbw_factor"]
    return {
        "bytes_sent_per_gpu": size,
        "bytes_received_per_gpu": size,
        "ring_bytes_sent_per_gpu": ring["max_bytes_sent"],
        "traffic_ratio": size / ring["max_bytes_sent"],
        "time_s": time_s,
        "algbw": size / time_s,
        "busbw": size / time_s * factor,
        "ring_time_s": ring["time_s"],
        "ring_busbw": ring["busbw"],
    }


def explain_in_network(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**In-network all-reduce of {format_bytes(args['size'])} on {args['ranks']} GPUs:** "
        f"each GPU sends {format_bytes(result['bytes_sent_per_gpu'])} (a ring: "
        f"{format_bytes(result['ring_bytes_sent_per_gpu'])}); busbw "
        f"{format_rate(result['busbw'])} against the ring's {format_rate(result['ring_busbw'])}."
    )


# ----------------------------------------------------------------------------- trees


def nccl_tree_parent(rank: int, ranks: int) -> int:
    """The parent of ``rank`` in NCCL's binary tree (``ncclGetBtree``, trees.cc), −1 for
    the root: a rank's lowest set bit marks its level; its parent clears that bit and sets
    the next one, or only clears it when that rank does not exist. Rank 0 is the root and
    has a single child, the highest power of two below ``ranks``."""
    if rank == 0:
        return -1
    bit = rank & -rank
    up = (rank ^ bit) | (bit << 1)
    return up if up < ranks else rank ^ bit


def _depth(parent: list[int]) -> int:
    """The longest path to the root of a tree given as parent indices (−1: the root)."""
    deepest = 0
    for rank in range(len(parent)):
        steps = 0
        while parent[rank] >= 0:
            rank, steps = parent[rank], steps + 1
        deepest = max(deepest, steps)
    return deepest


def tree_depth(ranks: int) -> dict[str, Any]:
    """Depth of NCCL's binary tree over ``ranks`` ranks, and of a balanced (heap-ordered)
    binary tree of as many nodes, each counted by walking the tree's parent links."""
    nccl = [nccl_tree_parent(r, ranks) for r in range(ranks)]
    balanced = [(r - 1) // 2 if r else -1 for r in range(ranks)]
    return {
        "depth": _depth(nccl),
        "balanced_depth": _depth(balanced),
        "root_children": sum(1 for p in nccl if p == 0),
        "max_children": max(nccl.count(r) for r in range(ranks)),
    }


def nccl_tree(nodes: int, gpus_per_node: int) -> dict[str, Any]:
    """NCCL's two trees over ``nodes × gpus_per_node`` GPUs, as the simulator builds them
    (double binary tree over nodes, a chain inside each node), measured by walking them."""
    from quizcoll.collectives import plan
    from quizcoll.collectives.schedules.double_tree import (
        chain_edges_per_node,
        nccl_tree_parents,
        root_path_hops,
    )

    trees = nccl_tree_parents(nodes, gpus_per_node)
    paths = [root_path_hops(t, gpus_per_node) for t in trees]
    chains = [chain_edges_per_node(t, gpus_per_node) for t in trees]
    n = nodes * gpus_per_node
    p = plan("all_reduce", n, 2, algorithm="nccl_tree", gpus_per_node=gpus_per_node)
    return {
        "depth": int(max(h.max() for h, _ in paths)),
        "network_hops": int(max(net.max() for _, net in paths)),
        "chain_hops": int(max(c.max() for c in chains)),
        "shortest_chain": int(min(c.min() for c in chains)),
        "flat_depth": tree_depth(nodes * gpus_per_node)["depth"],
        "steps": int(p.steps),
    }


def explain_nccl_tree(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**NCCL's trees on {args['nodes']} nodes × {args['gpus_per_node']} GPUs** (connect.cc: "
        f"a double binary tree over the nodes, a chain inside each): the deepest GPU is "
        f"{result['depth']} hops below the root, {result['network_hops']} of them between "
        f"nodes; each node's chain has {result['chain_hops']} hops. A binary tree over all "
        f"{args['nodes'] * args['gpus_per_node']} GPUs would be {result['flat_depth']} deep."
    )


def explain_tree(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**NCCL's binary tree over {args['ranks']} ranks** (rank 0 on top with one child, "
        f"ncclGetBtree): {result['depth']} levels, ⌈log₂N⌉; a balanced binary tree of as "
        f"many nodes has {result['balanced_depth']}, ⌊log₂N⌋."
    )


# ----------------------------------------------------------------------------- registry


def _ranks(maximum: int = MAX_RANKS) -> Param:
    return Param("ranks", ParamKind.INT, "number of ranks N", minimum=2, maximum=maximum)


def _size(help: str) -> Param:
    return Param("size", ParamKind.BYTES, help, minimum=1, maximum=2**50)


_LINK = [
    Param("link", ParamKind.STR, "cost preset", choices=("nvlink", "infiniband"), default="nvlink"),
    Param("latency", ParamKind.SECONDS, "latency α", minimum=0, maximum=1, default=None),
    Param("bandwidth", ParamKind.RATE, "per direction", minimum=1, maximum=1e15, default=None),
]


def register(registry: Registry) -> None:
    registry.add_function(
        "collectives.bruck",
        _guard(bruck),
        params=[
            Param("collective", ParamKind.STR, "the collective", choices=BRUCK_COLLECTIVES),
            _ranks(),
            _size("all_gather: each rank's block; all_to_all: each rank's buffer of N blocks"),
            *_LINK,
        ],
        fields=[
            Field("steps", C, "rounds: ⌈log₂N⌉"),
            Field("block_bytes", B, "one block"),
            Field("max_bytes_sent", B, "bytes each rank sends"),
            Field("time_s", S, "α-β time"),
            Field("baseline", T, "ring (all_gather) or pairwise (all_to_all)"),
            Field("baseline_steps", C, "the baseline's rounds"),
            Field("baseline_bytes_sent", B, "bytes the baseline's busiest rank sends"),
            Field("baseline_time_s", S, "the baseline's α-β time"),
            Field("speedup", R, "baseline time ÷ Bruck time"),
            Field("bytes_ratio", R, "Bruck bytes ÷ baseline bytes"),
        ],
        explain=explain_bruck,
    )
    registry.add_function(
        "collectives.chain_broadcast",
        _guard(chain_broadcast),
        params=[
            _ranks(),
            _size("the root's buffer S"),
            Param("chunks", ParamKind.INT, "pipeline chunks k", minimum=1, maximum=MAX_CHUNKS),
            *_LINK,
        ],
        fields=[
            Field("steps", C, "rounds until the last rank has every chunk"),
            Field("chunk_bytes", B, "S / k"),
            Field("time_s", S, "rounds × (α + chunk / bandwidth)"),
            Field("max_bytes_sent", B, "bytes a forwarding rank sends"),
            Field("total_bytes", B, "bytes sent by all ranks"),
            Field("unpipelined_time_s", S, "the same with one chunk"),
            Field("best_chunks", C, "the chunk count with the smallest time (up to 256)"),
            Field("best_time_s", S, "that time"),
        ],
        explain=explain_chain,
    )
    registry.add_function(
        "collectives.in_network",
        _guard(in_network),
        params=[_ranks(), _size("each GPU's buffer S"), *_LINK],
        fields=[
            Field("bytes_sent_per_gpu", B, "to the switch"),
            Field("bytes_received_per_gpu", B, "from the switch"),
            Field("ring_bytes_sent_per_gpu", B, "a ring all-reduce on the same GPUs"),
            Field("traffic_ratio", R, "in-network bytes ÷ ring bytes"),
            Field("time_s", S, "2α + S / bandwidth"),
            Field("algbw", Dimension.RATE, "S ÷ time"),
            Field("busbw", Dimension.RATE, "algbw × 2(N−1)/N, as nccl-tests reports it"),
            Field("ring_time_s", S, "the ring's α-β time"),
            Field("ring_busbw", Dimension.RATE, "the ring's busbw"),
        ],
        explain=explain_in_network,
    )
    registry.add_function(
        "collectives.tree_depth",
        tree_depth,
        params=[_ranks()],
        fields=[
            Field("depth", C, "levels of NCCL's binary tree: ⌈log₂N⌉"),
            Field("balanced_depth", C, "levels of a balanced binary tree of N nodes: ⌊log₂N⌋"),
            Field("root_children", C, "children of NCCL's root (one)"),
            Field("max_children", C, "most children of any rank (two)"),
        ],
        explain=explain_tree,
    )
    registry.add_function(
        "collectives.nccl_tree",
        _guard(nccl_tree),
        params=[
            Param("nodes", ParamKind.INT, "nodes", minimum=1, maximum=4096),
            Param("gpus_per_node", ParamKind.INT, "GPUs per node", minimum=1, maximum=72),
        ],
        fields=[
            Field("depth", C, "hops from the root GPU to the deepest GPU (either tree)"),
            Field("network_hops", C, "hops between nodes on the longest such path"),
            Field("chain_hops", C, "tree edges inside one node: its GPU chain"),
            Field("shortest_chain", C, "the fewest tree edges inside any node"),
            Field("flat_depth", C, "depth of NCCL's binary tree over all the GPUs instead"),
            Field("steps", C, "rounds of the simulated (non-pipelined) all-reduce on these trees"),
        ],
        explain=explain_nccl_tree,
    )
