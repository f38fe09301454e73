"""Ring schedules (Patarasuk & Yuan 2009): reduce-scatter and all-gather around rings.

Several rings may run side by side (one per node in a hierarchical all-reduce). Ring
``i`` has members ``rings[i, p]``; member ``p`` owns the block group ``groups[i, p]``.
In reduce-scatter round ``s`` member ``p`` sends group ``(p − 1 − s) mod L`` to member
``p + 1``, which combines it, so after ``L − 1`` rounds member ``p`` holds group ``p``
fully reduced (the torch order: rank ``r`` gets chunk ``r``). In all-gather round ``s``
member ``p`` forwards group ``(p − s) mod L``. A ring phase is kept as its members and
groups (:class:`~quizcoll.collectives.structure.RingRounds`), O(N) numbers for its
(N − 1)·N transfers; rows are laid out only when a schedule is run or traced.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.structure import StructureBuilder


def flat_ring(ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """One ring over ranks ``0..N−1``; member ``p`` owns block ``p``."""
    return np.arange(ranks)[None, :], np.arange(ranks)[None, :, None]


def reduce_scatter_rounds(builder: StructureBuilder, rings: np.ndarray, groups: np.ndarray) -> None:
    """Append the ``L − 1`` reduce-scatter rounds of every ring."""
    builder.add_ring(rings, groups, reduce=True)


def all_gather_rounds(builder: StructureBuilder, rings: np.ndarray, groups: np.ndarray) -> None:
    """Append the ``L − 1`` all-gather rounds of every ring."""
    builder.add_ring(rings, groups, reduce=False)
