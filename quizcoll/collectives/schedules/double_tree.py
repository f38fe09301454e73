"""NCCL's double binary tree for all-reduce: two trees, each carrying half of the data.

Tree one numbers ranks in order: a non-root rank ``r`` whose lowest set bit is ``b`` has
parent ``(r xor b) | 2b``, or ``r xor b`` when that is out of range; rank 0 is the root.
Tree two is its mirror image (``r → N − 1 − r``) for even N and its shift by one for odd
N, so most ranks that are inner nodes in one tree are leaves in the other. Each half is
reduced up its tree (a node sends once all its children have) and broadcast back down;
the two trees run in the same rounds. The model does not pipeline chunks (NCCL does), so
the rounds are the trees' heights plus depths.

:func:`nccl_tree_parents` builds the trees as NCCL itself does on ``nodes × gpus_per_node``
ranks (NVIDIA/nccl v2.30.7-1, ``src/graph/connect.cc``: ``connectTrees`` calls
``ncclGetDtree(nNodes, node, …)``, and ``setupChannel`` chains the GPUs of a node): the
double binary tree spans the *nodes*, and inside each node the GPUs form a chain, local
GPU 0 at its top. A child node hangs under its parent node's GPU 1 when it is the parent's
first child and under GPU 0 when it is the second (``child0Index = 1``, ``child1Index =
0`` for the balanced-tree pattern; both 0 with one GPU per node, the tree pattern).
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.structure import Spans, StructureBuilder


def tree_one_parents(ranks: int) -> np.ndarray:
    """Parent of every rank in tree one (−1 for the root, rank 0)."""
    r = np.arange(ranks, dtype=np.int64)
    bit = r & -r
    up = (r ^ bit) | (bit << 1)
    parent = np.where(up < ranks, up, r ^ bit)
    parent[:1] = -1
    return parent


def tree_two_parents(ranks: int) -> np.ndarray:
    """Parent of every rank in tree two: tree one mirrored (even N) or shifted (odd N)."""
    one = tree_one_parents(ranks)
    if ranks % 2 == 0:
        p = one[::-1]
        return np.where(p < 0, -1, ranks - 1 - p)
    p = np.roll(one, 1)  # one[(r − 1) mod N]
    return np.where(p < 0, -1, (p + 1) % ranks)


def depths_and_heights(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Depth (root 0) and height (leaf 0) of every node of a tree given by parents."""
    parent = np.asarray(parent, dtype=np.int64)
    n = len(parent)
    if n == 0 or np.count_nonzero(parent < 0) != 1 or (parent >= n).any():
        raise AssertionError("parents do not form one tree")
    # climb all nodes at once: depth = the number of steps until the root is passed
    depth = np.zeros(n, dtype=np.int64)
    above = parent.copy()
    for _ in range(n):
        climbing = above >= 0
        if not climbing.any():
            break
        depth += climbing
        above[climbing] = parent[above[climbing]]
    else:
        raise AssertionError("parents do not form one tree")  # a cycle never reaches it
    # heights level by level from the deepest: a parent is one above its highest child
    height = np.zeros(n, dtype=np.int64)
    for d in range(int(depth.max()), 0, -1):
        level = np.flatnonzero(depth == d)
        np.maximum.at(height, parent[level], height[level] + 1)
    return depth, height


def _child_types(parent_nodes: np.ndarray, mirror: str) -> np.ndarray:
    """``parentChildType`` of every node: 0 when it is its parent's first child (its index
    below the parent's, in the tree's own numbering: mirrored or shifted for tree two)."""
    n = len(parent_nodes)
    m = np.arange(n, dtype=np.int64)
    if mirror == "mirror":
        own, up = n - 1 - m, n - 1 - parent_nodes
    elif mirror == "shift":
        own, up = (m - 1) % n, (parent_nodes - 1) % n
    else:
        own, up = m, parent_nodes
    return np.where(own < up, 0, 1)


def nccl_tree_parents(nodes: int, gpus_per_node: int) -> tuple[np.ndarray, np.ndarray]:
    """Parents of every rank (``node · gpus_per_node + local GPU``) in NCCL's two trees:
    the double binary tree over nodes, a chain of GPUs inside each node (see the module
    docstring); −1 for the root (node 0's GPU 0 in tree one)."""
    a = gpus_per_node
    child_index = (0, 0) if a == 1 else (1, 0)  # GPU a first / second child hangs under
    trees = []
    kinds = ("none", "mirror" if nodes % 2 == 0 else "shift")
    pairs = zip((tree_one_parents(nodes), tree_two_parents(nodes)), kinds, strict=True)
    for node_parent, kind in pairs:
        types = _child_types(node_parent, kind)
        parent = np.arange(nodes * a, dtype=np.int64) - 1  # the chain: local i under i − 1
        heads = np.arange(nodes, dtype=np.int64) * a
        attach = np.where(types == 0, child_index[0], child_index[1])
        parent[heads] = np.where(node_parent < 0, -1, node_parent * a + attach)
        trees.append(parent)
    return trees[0], trees[1]


def double_tree_all_reduce(
    builder: StructureBuilder, parents: tuple[np.ndarray, np.ndarray] | None = None
) -> None:
    """Append the reduce-up and broadcast-down rounds of both trees (block t on tree t);
    ``parents``: the two trees (by default the binary trees over all ranks)."""
    n = builder.ranks
    if n < 2:
        return
    trees = list(parents) if parents is not None else [tree_one_parents(n), tree_two_parents(n)]
    shapes = [depths_and_heights(p) for p in trees]
    up_rounds = max(int(h.max()) for _, h in shapes)
    # every non-root v of tree t: up in round height[v], down in round up + depth[v] − 1;
    # within a round, tree one's rows come first, each tree's in rank order
    rounds, ranks, trees_of, src, dst, reduce = [], [], [], [], [], []
    for block, (parent, (depth, height)) in enumerate(zip(trees, shapes, strict=True)):
        v = np.flatnonzero(parent >= 0)
        p = parent[v]
        for rnd, a, b, red in (
            (height[v], v, p, True),
            (up_rounds + depth[v] - 1, p, v, False),
        ):
            rounds.append(rnd)
            ranks.append(v)
            trees_of.append(np.full(len(v), block))
            src.append(a)
            dst.append(b)
            reduce.append(np.full(len(v), red))
    rnd, block = np.concatenate(rounds), np.concatenate(trees_of)
    order = np.lexsort((np.concatenate(ranks), block, rnd))  # by round, tree, then rank v
    builder.add_message_rounds(
        rnd[order],
        np.concatenate(src)[order],
        np.concatenate(dst)[order],
        Spans.single(block[order]),
        np.concatenate(reduce)[order],
    )


def root_path_hops(parent: np.ndarray, gpus_per_node: int) -> tuple[np.ndarray, np.ndarray]:
    """For every rank of a tree given by parents: the hops on its path to the root, and
    how many of them cross between nodes (ranks ``node · gpus_per_node + local``)."""
    parent = np.asarray(parent, dtype=np.int64)
    n = len(parent)
    hops = np.zeros(n, dtype=np.int64)
    network = np.zeros(n, dtype=np.int64)
    here = np.arange(n, dtype=np.int64)
    for _ in range(n):
        up = parent[here]
        climbing = up >= 0
        if not climbing.any():
            return hops, network
        hops += climbing
        crossing = climbing & (up // gpus_per_node != here // gpus_per_node)
        network += crossing
        here = np.where(climbing, up, here)
    raise AssertionError("parents do not form one tree")


def chain_edges_per_node(parent: np.ndarray, gpus_per_node: int) -> np.ndarray:
    """Tree edges that stay inside each node (one count per node)."""
    parent = np.asarray(parent, dtype=np.int64)
    child = np.flatnonzero(parent >= 0)
    inside = parent[child] // gpus_per_node == child // gpus_per_node
    nodes = len(parent) // gpus_per_node
    return np.bincount(child[inside] // gpus_per_node, minlength=nodes)
