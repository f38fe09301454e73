"""Direct (linear) and binomial-tree schedules for the rooted collectives.

Direct: the root exchanges with every other rank in one round, so its port carries
N − 1 messages. Binomial tree (MPICH, Thakur et al. 2005): ranks are numbered relative to
the root; broadcast and scatter halve the distance every round (``⌈log2 N⌉`` rounds),
gather and reduce run the same tree bottom-up. Any N works, power of two or not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from quizcoll.collectives.schedule import ScheduleBuilder


def _levels(ranks: int) -> int:
    return (ranks - 1).bit_length()


def direct_from_root(
    builder: ScheduleBuilder, root: int, blocks_for: Callable[[int], Sequence[int]]
) -> None:
    """One round: the root sends ``blocks_for(r)`` to every other rank ``r``."""
    if builder.ranks < 2:
        return
    builder.begin()
    for r in range(builder.ranks):
        if r != root:
            builder.send(root, r, blocks_for(r), reduce=False)


def direct_to_root(
    builder: ScheduleBuilder,
    root: int,
    blocks_for: Callable[[int], Sequence[int]],
    *,
    reduce: bool,
) -> None:
    """One round: every other rank ``r`` sends ``blocks_for(r)`` to the root."""
    if builder.ranks < 2:
        return
    builder.begin()
    for r in range(builder.ranks):
        if r != root:
            builder.send(r, root, blocks_for(r), reduce=reduce)


def binomial_down(
    builder: ScheduleBuilder,
    root: int,
    blocks_for_subtree: Callable[[int, int], Sequence[int]],
) -> None:
    """Root-down binomial rounds; ``blocks_for_subtree(lo, hi)`` names the blocks sent
    to the subtree of relative ranks ``lo..hi−1`` (all blocks for broadcast, that
    subtree's own blocks for scatter)."""
    n = builder.ranks
    for level in reversed(range(_levels(n))):
        mask = 1 << level
        builder.begin()
        for rel in range(0, n, 2 * mask):
            if rel + mask < n:
                lo, hi = rel + mask, min(rel + 2 * mask, n)
                builder.send(
                    (rel + root) % n, (lo + root) % n, blocks_for_subtree(lo, hi), reduce=False
                )


def binomial_up(
    builder: ScheduleBuilder,
    root: int,
    blocks_for_subtree: Callable[[int, int], Sequence[int]],
    *,
    reduce: bool,
) -> None:
    """Leaves-up binomial rounds; a subtree of relative ranks ``lo..hi−1`` sends
    ``blocks_for_subtree(lo, hi)`` to its parent (copy for gather, combine for reduce)."""
    n = builder.ranks
    for level in range(_levels(n)):
        mask = 1 << level
        builder.begin()
        for rel in range(mask, n, 2 * mask):
            hi = min(rel + mask, n)
            builder.send(
                (rel + root) % n,
                (rel - mask + root) % n,
                blocks_for_subtree(rel, hi),
                reduce=reduce,
            )
