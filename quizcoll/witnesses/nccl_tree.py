"""NCCL's tree all-reduce latency, reached by building the tree and walking it.

NCCL's cost model prices a Tree all-reduce's latency as the time one chunk takes to climb
from the deepest GPU to the root (the reduce) and come back down (the broadcast). This
module builds that structure explicitly: inside each node the GPUs form a chain from the
node's head, and the node heads form a balanced binary tree (heap order, node ``k``'s
parent is node ``(k - 1) // 2``: the tree whose depth NCCL's model uses). Every GPU's
parent link is followed to the root, each hop priced by its link class (NVLink inside a
node, the network between nodes), and the slowest climb is the critical path.

It shares nothing with the tuner: no log2, no count of levels, only parent links walked.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_GPUS = 1 << 20


@dataclass(frozen=True)
class TreeWalk:
    """The critical path of a tree all-reduce: hops up and back down, and their latency."""

    intra_hops: int  # NVLink hops, up and back down
    inter_hops: int  # network hops, up and back down
    latency_s: float  # the hops' latencies, up and back down
    gpus: int  # GPUs walked to the root


def _parent(node: int, local: int) -> tuple[int, int] | None:
    """The GPU one hop closer to the root: up the node's chain, then up the node tree."""
    if local > 0:
        return node, local - 1
    if node > 0:
        return (node - 1) // 2, 0
    return None


def tree_walk(
    nodes: int, gpus_per_node: int, intra_latency: float, inter_latency: float
) -> TreeWalk:
    """Walk every GPU's parent links to the root; the slowest climb, up and down."""
    if nodes < 1 or gpus_per_node < 1:
        raise ValueError("nodes and gpus_per_node must be at least 1")
    if nodes * gpus_per_node > MAX_GPUS:
        raise ValueError(f"at most {MAX_GPUS:,} GPUs")
    if intra_latency < 0 or inter_latency < 0:
        raise ValueError("latencies must not be negative")
    best: tuple[float, list[bool]] = (-1.0, [])  # the slowest climb: latency, hops (inter?)
    walked = 0
    # Only chain ends can be deepest, but walking every GPU keeps the witness blind to that.
    for node in range(nodes):
        for local in range(gpus_per_node):
            walked += 1
            hops: list[bool] = []
            here = (node, local)
            up = _parent(*here)
            while up is not None:
                hops.append(up[0] != here[0])  # a hop to another node crosses the network
                here, up = up, _parent(*up)
            climb = sum(inter_latency if inter else intra_latency for inter in hops)
            if (climb, len(hops)) > (best[0], len(best[1])):
                best = (climb, hops)
    # The reduce climbs the path; the broadcast comes back down the same links.
    path = best[1] + best[1][::-1]
    inter = sum(path)
    intra = len(path) - inter
    return TreeWalk(intra, inter, intra * intra_latency + inter * inter_latency, walked)
