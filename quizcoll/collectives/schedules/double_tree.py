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

from quizcoll.collectives.schedule import ScheduleBuilder


def tree_one_parents(ranks: int) -> np.ndarray:
    """Parent of every rank in tree one (−1 for the root, rank 0)."""
    parent = np.full(ranks, -1, dtype=np.int64)
    for r in range(1, ranks):
        bit = r & -r
        up = (r ^ bit) | (bit << 1)
        parent[r] = up if up < ranks else r ^ bit
    return parent


def tree_two_parents(ranks: int) -> np.ndarray:
    """Parent of every rank in tree two: tree one mirrored (even N) or shifted (odd N)."""
    one = tree_one_parents(ranks)
    two = np.full(ranks, -1, dtype=np.int64)
    for r in range(ranks):
        if ranks % 2 == 0:
            p = one[ranks - 1 - r]
            two[r] = -1 if p < 0 else ranks - 1 - p
        else:
            p = one[(r - 1) % ranks]
            two[r] = -1 if p < 0 else (p + 1) % ranks
    return two


def depths_and_heights(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Depth (root 0) and height (leaf 0) of every node of a tree given by parents."""
    n = len(parent)
    children: list[list[int]] = [[] for _ in range(n)]
    root = -1
    for v, p in enumerate(parent):
        if p < 0:
            root = v
        else:
            children[int(p)].append(v)
    depth = np.zeros(n, dtype=np.int64)
    order = [root]
    for v in order:
        for c in children[v]:
            depth[c] = depth[v] + 1
            order.append(c)
    if len(order) != n:
        raise AssertionError("parents do not form one tree")
    height = np.zeros(n, dtype=np.int64)
    for v in reversed(order):
        if children[v]:
            height[v] = 1 + max(height[c] for c in children[v])
    return depth, height


def double_tree_all_reduce(builder: ScheduleBuilder) -> None:
    """Append the reduce-up and broadcast-down rounds of both trees (block t on tree t)."""
    n = builder.ranks
    if n < 2:
        return
    trees = [tree_one_parents(n), tree_two_parents(n)]
    shapes = [depths_and_heights(p) for p in trees]
    up_rounds = max(int(h.max()) for _, h in shapes)
    down_rounds = max(int(d.max()) for d, _ in shapes)
    rounds: list[list[tuple[int, int, int, bool]]] = [[] for _ in range(up_rounds + down_rounds)]
    for block, (parent, (depth, height)) in enumerate(zip(trees, shapes, strict=True)):
        for v in range(n):
            p = int(parent[v])
            if p < 0:
                continue
            rounds[int(height[v])].append((v, p, block, True))
            rounds[up_rounds + int(depth[v]) - 1].append((p, v, block, False))
    for rows in rounds:
        builder.begin()
        for src, dst, block, reduce in rows:
            builder.send(src, dst, [block], reduce=reduce)
