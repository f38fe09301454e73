"""Hierarchical all-reduce over ``nodes × gpus_per_node`` ranks (rank = node·g + local).

1. Inside every node, a ring reduce-scatter over the g GPUs: local GPU j ends with the
   node's sum of group j (1/g of the buffer).
2. Across nodes, g rings in parallel (one per local index j) all-reduce group j, itself
   cut into one block per node: the only inter-node traffic, 2(b − 1)/b · S/g per GPU
   for b nodes.
3. Inside every node, a ring all-gather of the groups.

The data is cut into g·b blocks; group j is blocks ``j·b … j·b + b − 1``.
:func:`phase_rounds` gives the rounds of each phase: g − 1, 2(b − 1), g − 1.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.schedules.ring import all_gather_rounds, reduce_scatter_rounds
from quizcoll.collectives.structure import StructureBuilder


def hierarchical_all_reduce(builder: StructureBuilder, nodes: int, gpus_per_node: int) -> None:
    g, b = gpus_per_node, nodes
    rank = np.arange(b)[:, None] * g + np.arange(g)[None, :]  # (node, local)
    intra_groups = (np.arange(g)[:, None] * b + np.arange(b)[None, :])[None, :, :]
    inter_rings = rank.T  # ring j over the nodes' local GPU j
    inter_groups = (np.arange(g)[:, None] * b + np.arange(b)[None, :])[:, :, None]
    reduce_scatter_rounds(builder, rank, intra_groups)
    reduce_scatter_rounds(builder, inter_rings, inter_groups)
    all_gather_rounds(builder, inter_rings, inter_groups)
    all_gather_rounds(builder, rank, intra_groups)


PHASES = ("intra-node reduce-scatter", "inter-node all-reduce", "intra-node all-gather")


def phase_rounds(nodes: int, gpus_per_node: int) -> tuple[tuple[str, int], ...]:
    """``(phase, rounds)`` for the three phases in schedule order (a ring of one member
    adds no rounds)."""
    g, b = gpus_per_node, nodes
    return tuple(zip(PHASES, (g - 1, 2 * (b - 1), g - 1), strict=True))
