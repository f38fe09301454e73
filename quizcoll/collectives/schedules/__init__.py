"""The algorithm catalog: every (collective, algorithm) pair as a structure and a layout.

:func:`structure_for` lays an algorithm out for N ranks as phases
(:mod:`quizcoll.collectives.structure`), :func:`schedule_for` as transfer rows, and
:func:`block_elems` / :func:`layout_for` give the block sizes for a per-rank element
count; nothing here touches data. Algorithm families live in their own modules:
:mod:`.tree` (direct and binomial), :mod:`.ring`, :mod:`.recursive` (doubling, halving,
Rabenseifner), :mod:`.double_tree` and :mod:`.hierarchical`; the pairwise all-to-all is
one :class:`~quizcoll.collectives.structure.PairwiseRounds` phase.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from quizcoll.collectives.errors import CollectiveError, did_you_mean
from quizcoll.collectives.layout import Layout
from quizcoll.collectives.schedule import Schedule
from quizcoll.collectives.schedules import ring, tree
from quizcoll.collectives.schedules.double_tree import double_tree_all_reduce, nccl_tree_parents
from quizcoll.collectives.schedules.hierarchical import hierarchical_all_reduce
from quizcoll.collectives.schedules.layouts import block_count, layout_for, slot_count
from quizcoll.collectives.schedules.recursive import Fold, doubling_rounds, halving_rounds
from quizcoll.collectives.semantics import Collective
from quizcoll.collectives.structure import Spans, Structure, StructureBuilder, expand

C = Collective

# The first name of each tuple is the default algorithm.
ALGORITHMS: dict[Collective, tuple[str, ...]] = {
    C.BROADCAST: ("binomial", "direct", "scatter_allgather"),
    C.SCATTER: ("binomial", "direct"),
    C.GATHER: ("binomial", "direct"),
    C.REDUCE: ("binomial", "direct", "reduce_scatter_gather"),
    C.ALL_REDUCE: ("ring", "naive", "recursive_doubling", "rabenseifner", "double_binary_tree"),
    C.ALL_GATHER: ("ring", "recursive_doubling"),
    C.REDUCE_SCATTER: ("ring", "recursive_halving"),
    C.ALL_TO_ALL: ("pairwise",),
}
# Algorithms that need a node topology (nodes × GPUs per node) on top of the rank count:
# ``plan``/``run`` accept them only with ``gpus_per_node``, so they are not in ALGORITHMS.
TOPOLOGY_ALGORITHMS: dict[Collective, tuple[str, ...]] = {C.ALL_REDUCE: ("hierarchical",)}
# Accepted with ``gpus_per_node`` like those, but not listed by ``algorithms()`` (the labs
# offer the listed ones): NCCL's own trees, a double binary tree over the nodes with a
# chain of GPUs inside each node (:func:`.double_tree.nccl_tree_parents`).
UNLISTED_TOPOLOGY_ALGORITHMS: dict[Collective, tuple[str, ...]] = {C.ALL_REDUCE: ("nccl_tree",)}


def topology_algorithms(collective: Collective) -> tuple[str, ...]:
    """Every algorithm of ``collective`` that needs ``gpus_per_node``."""
    return TOPOLOGY_ALGORITHMS.get(collective, ()) + UNLISTED_TOPOLOGY_ALGORITHMS.get(
        collective, ()
    )


def normalise_algorithm(algorithm: str) -> str:
    return algorithm.strip().lower().replace("-", "_")


def check_algorithm(
    collective: Collective, algorithm: str | None, *, topology: bool = False
) -> str:
    """The algorithm name to use (the default when None), or a clear error. With
    ``topology`` the algorithms of :data:`TOPOLOGY_ALGORITHMS` are accepted too."""
    names = ALGORITHMS[collective]
    if algorithm is None:
        return names[0]
    key = normalise_algorithm(algorithm)
    extra = topology_algorithms(collective)
    if key in names or (topology and key in extra):
        return key
    if key in extra:
        raise CollectiveError(
            f"the {key} {collective.value} needs nodes × GPUs per node: "
            f"pass gpus_per_node (ranks = nodes × gpus_per_node)"
        )
    where = [c.value for c in TOPOLOGY_ALGORITHMS if key in topology_algorithms(c)]
    if where:
        raise CollectiveError(
            f"{key} is an algorithm of {', '.join(where)} only; for {collective.value} "
            f"choose one of {', '.join(names)}"
        )
    hint = f" (or {', '.join(extra)} with nodes × GPUs per node)" if extra else ""
    raise CollectiveError(
        f"unknown algorithm {algorithm!r} for {collective.value}; "
        f"choose one of {', '.join(names)}{hint}{did_you_mean(key, names + extra)}"
    )


# Card checks ask for the same algorithms again and again, sweeping N over small ranges:
# structures (O(N log N) numbers at most: a few KB at 64 ranks) are cached, many of them
# up to CACHE_MAX_RANKS ranks and the last 16 up to STRUCTURE_CACHE_MAX_RANKS; transfer
# rows (a ring over N ranks has 2(N−1)·N of them, ~4 MB with their keys at 256 ranks),
# the last 16 up to CACHE_MAX_RANKS. Larger ones are rebuilt on request.
CACHE_MAX_RANKS = 256
STRUCTURE_CACHE_MAX_RANKS = 4096
CACHE_SIZE = 16
SMALL_STRUCTURE_CACHE_SIZE = 1024


def structure_for(
    collective: Collective, algorithm: str, ranks: int, *, root: int = 0
) -> Structure:
    """The phases of ``algorithm`` for ``collective`` on ``ranks`` ranks. They depend on
    neither the element count nor the split sizes (the block sizes do), so one serves
    every size; small ones come from a bounded cache, shared between callers."""
    if ranks <= CACHE_MAX_RANKS:
        return _cached_small_structure(collective, algorithm, ranks, root)
    if ranks <= STRUCTURE_CACHE_MAX_RANKS:
        return _cached_structure(collective, algorithm, ranks, root)
    return build_structure(collective, algorithm, ranks, root)


def schedule_for(collective: Collective, algorithm: str, ranks: int, *, root: int = 0) -> Schedule:
    """The transfer rows of ``algorithm`` (see :func:`structure_for`)."""
    return rows_of(structure_for(collective, algorithm, ranks, root=root))


def rows_of(structure: Structure) -> Schedule:
    """The rows of ``structure``; up to ``CACHE_MAX_RANKS`` ranks from a bounded cache
    keyed by the (cached, shared) structure, so their arrays are read-only."""
    if structure.ranks <= CACHE_MAX_RANKS:
        return _cached_rows(structure)
    return expand(structure)


@lru_cache(maxsize=SMALL_STRUCTURE_CACHE_SIZE)
def _cached_small_structure(
    collective: Collective, algorithm: str, ranks: int, root: int
) -> Structure:
    return build_structure(collective, algorithm, ranks, root)


@lru_cache(maxsize=CACHE_SIZE)
def _cached_structure(collective: Collective, algorithm: str, ranks: int, root: int) -> Structure:
    return build_structure(collective, algorithm, ranks, root)


@lru_cache(maxsize=CACHE_SIZE)
def _cached_rows(structure: Structure) -> Schedule:
    return expand(structure)


def build_schedule(collective: Collective, algorithm: str, ranks: int, root: int) -> Schedule:
    """The transfer rows of ``algorithm`` for ``collective``, built afresh (uncached)."""
    return expand(build_structure(collective, algorithm, ranks, root))


def build(
    collective: Collective,
    algorithm: str,
    ranks: int,
    count: int,
    *,
    root: int = 0,
    split_sizes: np.ndarray | None = None,
) -> tuple[Schedule, Layout]:
    """The schedule and block layout of ``algorithm`` for ``collective`` on ``ranks`` ranks
    with ``count`` input elements per rank (``split_sizes`` for uneven all_to_all)."""
    layout = layout_for(collective, algorithm, ranks, count, root=root, split_sizes=split_sizes)
    return schedule_for(collective, algorithm, ranks, root=root), layout


def build_structure(collective: Collective, algorithm: str, ranks: int, root: int) -> Structure:
    """The phases of ``algorithm`` for ``collective``, built afresh (uncached)."""
    n = ranks
    fold = Fold(n)
    nblocks = block_count(collective, algorithm, n)
    b = StructureBuilder(n, slot_count(collective, algorithm, n))

    def rel_blocks(lo: np.ndarray, hi: np.ndarray) -> Spans:
        return Spans.rotated(lo, hi, root, n)

    def all_blocks(first: np.ndarray, *_: object) -> Spans:
        return Spans.whole(len(first), nblocks)

    def own_block(r: np.ndarray) -> Spans:
        return Spans.single(r)

    def all_but_own(r: np.ndarray) -> Spans:
        return Spans.all_but(r, n)

    key = (collective, algorithm)
    if key == (C.BROADCAST, "direct"):
        tree.direct_from_root(b, root, all_blocks)
    elif key == (C.BROADCAST, "binomial"):
        tree.binomial_down(b, root, all_blocks)
    elif key == (C.BROADCAST, "scatter_allgather"):
        tree.binomial_down(b, root, rel_blocks)
        ring.all_gather_rounds(b, *ring.flat_ring(n))
    elif key == (C.SCATTER, "direct"):
        tree.direct_from_root(b, root, own_block)
    elif key == (C.SCATTER, "binomial"):
        tree.binomial_down(b, root, rel_blocks)
    elif key == (C.GATHER, "direct"):
        tree.direct_to_root(b, root, own_block, reduce=False)
    elif key == (C.GATHER, "binomial"):
        tree.binomial_up(b, root, rel_blocks, reduce=False)
    elif key == (C.REDUCE, "direct"):
        tree.direct_to_root(b, root, all_blocks, reduce=True)
    elif key == (C.REDUCE, "binomial"):
        tree.binomial_up(b, root, all_blocks, reduce=True)
    elif key == (C.REDUCE, "reduce_scatter_gather"):
        ring.reduce_scatter_rounds(b, *ring.flat_ring(n))
        tree.binomial_up(b, root, rel_blocks, reduce=False)
    elif key == (C.ALL_REDUCE, "naive"):
        tree.direct_to_root(b, root, all_blocks, reduce=True)
        tree.direct_from_root(b, root, all_blocks)
    elif key in ((C.ALL_REDUCE, "ring"), (C.REDUCE_SCATTER, "ring")):
        ring.reduce_scatter_rounds(b, *ring.flat_ring(n))
        if collective is C.ALL_REDUCE:
            ring.all_gather_rounds(b, *ring.flat_ring(n))
    elif key == (C.ALL_GATHER, "ring"):
        ring.all_gather_rounds(b, *ring.flat_ring(n))
    elif key == (C.ALL_REDUCE, "recursive_doubling"):
        fold.fold_in(b, all_blocks, reduce=True)
        doubling_rounds(b, fold, all_blocks, reduce=True)
        fold.fold_out(b, all_blocks)
    elif key == (C.ALL_REDUCE, "rabenseifner"):
        # p′ blocks, new rank i owns block i.
        fold.fold_in(b, all_blocks, reduce=True)
        halving_rounds(b, fold, Spans.one)
        doubling_rounds(b, fold, Spans.one, reduce=False)
        fold.fold_out(b, all_blocks)
    elif key == (C.ALL_GATHER, "recursive_doubling"):
        fold.fold_in(b, own_block, reduce=False)
        doubling_rounds(b, fold, fold.represented_blocks, reduce=False)
        fold.fold_out(b, all_but_own)
    elif key == (C.REDUCE_SCATTER, "recursive_halving"):
        fold.fold_in(b, all_blocks, reduce=True)
        halving_rounds(b, fold, fold.represented_blocks)
        fold.fold_out(b, own_block)
    elif key == (C.ALL_REDUCE, "double_binary_tree"):
        double_tree_all_reduce(b)
    elif key == (C.ALL_TO_ALL, "pairwise"):
        b.add_pairwise()
    else:
        raise AssertionError(key)
    return b.build()


def hierarchical_structure(
    nodes: int, gpus_per_node: int, algorithm: str = "hierarchical"
) -> Structure:
    """The phases of a topology all-reduce: ``hierarchical`` (see :mod:`.hierarchical`) or
    ``nccl_tree`` (NCCL's double binary tree over nodes, chains inside them)."""
    n = nodes * gpus_per_node
    if n <= STRUCTURE_CACHE_MAX_RANKS:
        return _cached_hierarchical(nodes, gpus_per_node, algorithm)
    return _build_hierarchical(nodes, gpus_per_node, algorithm)


def build_hierarchical(nodes: int, gpus_per_node: int, count: int) -> tuple[Schedule, Layout]:
    """Schedule and layout of the hierarchical all-reduce."""
    n = nodes * gpus_per_node
    layout = layout_for(C.ALL_REDUCE, "hierarchical", n, count)
    return rows_of(hierarchical_structure(nodes, gpus_per_node)), layout


@lru_cache(maxsize=CACHE_SIZE)
def _cached_hierarchical(nodes: int, gpus_per_node: int, algorithm: str) -> Structure:
    return _build_hierarchical(nodes, gpus_per_node, algorithm)


def _build_hierarchical(nodes: int, gpus_per_node: int, algorithm: str) -> Structure:
    n = nodes * gpus_per_node
    if algorithm == "nccl_tree":
        b = StructureBuilder(n, 2)
        double_tree_all_reduce(b, nccl_tree_parents(nodes, gpus_per_node))
        return b.build()
    b = StructureBuilder(n, n)
    hierarchical_all_reduce(b, nodes, gpus_per_node)
    return b.build()
