"""Direct (linear) and binomial-tree schedules for the rooted collectives.

Direct: the root exchanges with every other rank in one round, so its port carries
N − 1 messages. Binomial tree (MPICH, Thakur et al. 2005): ranks are numbered relative to
the root; broadcast and scatter halve the distance every round (``⌈log2 N⌉`` rounds),
gather and reduce run the same tree bottom-up. Any N works, power of two or not. Each
round is laid out for all its senders at once (relative ranks ``0, 2·mask, 4·mask …``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from quizcoll.collectives.structure import Spans, StructureBuilder

# Blocks that messages carry, given the rank each message goes to or comes from.
RankBlocks = Callable[[np.ndarray], Spans]
# Blocks that messages carry, given the subtrees ``lo[k] … hi[k] − 1`` (relative ranks).
SubtreeBlocks = Callable[[np.ndarray, np.ndarray], Spans]


def _levels(ranks: int) -> int:
    return (ranks - 1).bit_length()


def _others(ranks: int, root: int) -> np.ndarray:
    """Every rank but the root, ascending."""
    r = np.arange(ranks - 1, dtype=np.int64)
    return r + (r >= root)


def direct_from_root(builder: StructureBuilder, root: int, blocks_for: RankBlocks) -> None:
    """One round: the root sends ``blocks_for(r)`` to every other rank ``r``."""
    if builder.ranks < 2:
        return
    others = _others(builder.ranks, root)
    builder.add_messages(np.full_like(others, root), others, blocks_for(others), reduce=False)


def direct_to_root(
    builder: StructureBuilder, root: int, blocks_for: RankBlocks, *, reduce: bool
) -> None:
    """One round: every other rank ``r`` sends ``blocks_for(r)`` to the root."""
    if builder.ranks < 2:
        return
    others = _others(builder.ranks, root)
    builder.add_messages(others, np.full_like(others, root), blocks_for(others), reduce=reduce)


def binomial_down(builder: StructureBuilder, root: int, blocks_for_subtree: SubtreeBlocks) -> None:
    """Root-down binomial rounds; ``blocks_for_subtree(lo, hi)`` names the blocks sent
    to the subtrees of relative ranks ``lo..hi−1`` (all blocks for broadcast, that
    subtree's own blocks for scatter)."""
    n = builder.ranks
    for level in reversed(range(_levels(n))):
        mask = 1 << level
        rel = np.arange(0, n - mask, 2 * mask, dtype=np.int64)  # those with rel + mask < n
        lo = rel + mask
        hi = np.minimum(rel + 2 * mask, n)
        builder.add_messages(
            (rel + root) % n, (lo + root) % n, blocks_for_subtree(lo, hi), reduce=False
        )


def binomial_up(
    builder: StructureBuilder, root: int, blocks_for_subtree: SubtreeBlocks, *, reduce: bool
) -> None:
    """Leaves-up binomial rounds; a subtree of relative ranks ``lo..hi−1`` sends
    ``blocks_for_subtree(lo, hi)`` to its parent (copy for gather, combine for reduce)."""
    n = builder.ranks
    for level in range(_levels(n)):
        mask = 1 << level
        rel = np.arange(mask, n, 2 * mask, dtype=np.int64)
        hi = np.minimum(rel + mask, n)
        builder.add_messages(
            (rel + root) % n,
            (rel - mask + root) % n,
            blocks_for_subtree(rel, hi),
            reduce=reduce,
        )
