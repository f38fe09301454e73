"""NCCL's double binary tree for all-reduce: two trees, each carrying half of the data.

Tree one numbers ranks in order: a non-root rank ``r`` whose lowest set bit is ``b`` has
parent ``(r xor b) | 2b``, or ``r xor b`` when that is out of range; rank 0 is the root.
Tree two is its mirror image (``r → N − 1 − r``) for even N and its shift by one for odd
N, so most ranks that are inner nodes in one tree are leaves in the other. Each half is
reduced up its tree (a node sends once all its children have) and broadcast back down;
the two trees run in the same rounds. The model does not pipeline chunks (NCCL does), so
the rounds are the trees' heights plus depths.
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


def double_tree_all_reduce(builder: StructureBuilder) -> None:
    """Append the reduce-up and broadcast-down rounds of both trees (block t on tree t)."""
    n = builder.ranks
    if n < 2:
        return
    trees = [tree_one_parents(n), tree_two_parents(n)]
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
