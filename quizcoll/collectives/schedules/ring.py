"""Ring schedules (Patarasuk & Yuan 2009): reduce-scatter and all-gather around rings.

Several rings may run side by side (one per node in a hierarchical all-reduce). Ring
``i`` has members ``rings[i, p]``; member ``p`` owns the block group ``groups[i, p]``.
In reduce-scatter round ``s`` member ``p`` sends group ``(p − 1 − s) mod L`` to member
``p + 1``, which combines it, so after ``L − 1`` rounds member ``p`` holds group ``p``
fully reduced (the torch order: rank ``r`` gets chunk ``r``). In all-gather round ``s``
member ``p`` forwards group ``(p − s) mod L``. Rounds are built as arrays, so a 1024-rank
ring costs a few numpy calls per round, not Python loops over ranks.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.schedule import ScheduleBuilder


def flat_ring(ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """One ring over ranks ``0..N−1``; member ``p`` owns block ``p``."""
    return np.arange(ranks)[None, :], np.arange(ranks)[None, :, None]


def _rounds(
    builder: ScheduleBuilder, rings: np.ndarray, groups: np.ndarray, *, reduce: bool
) -> None:
    count, length = rings.shape
    if length < 2:
        return
    width = groups.shape[-1]
    groups = np.broadcast_to(groups, (count, length, width))
    lag = 1 if reduce else 0
    rounds = np.arange(length - 1)[:, None]
    sent_group = (np.arange(length)[None, :] - lag - rounds) % length  # (rounds, length)
    # blocks[s, i, p, w]: block w of the group member p of ring i sends in round s
    blocks = groups[np.arange(count)[None, :, None], sent_group[:, None, :], :]
    src = np.repeat(rings, width, axis=1).reshape(1, -1)
    dst = np.repeat(np.roll(rings, -1, axis=1), width, axis=1).reshape(1, -1)
    builder.add_rounds(src, dst, blocks.reshape(length - 1, -1), reduce=reduce)


def reduce_scatter_rounds(builder: ScheduleBuilder, rings: np.ndarray, groups: np.ndarray) -> None:
    """Append the ``L − 1`` reduce-scatter rounds of every ring."""
    _rounds(builder, rings, groups, reduce=True)


def all_gather_rounds(builder: ScheduleBuilder, rings: np.ndarray, groups: np.ndarray) -> None:
    """Append the ``L − 1`` all-gather rounds of every ring."""
    _rounds(builder, rings, groups, reduce=False)
