"""The algorithm catalog: every (collective, algorithm) pair as a schedule and a layout.

:func:`build` lays an algorithm out for N ranks and a per-rank element count; nothing
here touches data. Algorithm families live in their own modules: :mod:`.tree` (direct
and binomial), :mod:`.ring`, :mod:`.recursive` (doubling, halving, Rabenseifner),
:mod:`.double_tree`, :mod:`.pairwise` and :mod:`.hierarchical`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from quizcoll.collectives.errors import CollectiveError, did_you_mean
from quizcoll.collectives.layout import Layout, balanced, uniform
from quizcoll.collectives.schedule import (
    BlockLists,
    Schedule,
    ScheduleBuilder,
    rows_of,
    same_blocks,
    spans,
)
from quizcoll.collectives.schedules import ring, tree
from quizcoll.collectives.schedules.double_tree import double_tree_all_reduce
from quizcoll.collectives.schedules.hierarchical import hierarchical_all_reduce
from quizcoll.collectives.schedules.pairwise import pairwise_rounds
from quizcoll.collectives.schedules.recursive import Fold, doubling_rounds, halving_rounds
from quizcoll.collectives.semantics import Collective, even_splits

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
    extra = TOPOLOGY_ALGORITHMS.get(collective, ())
    if key in names or (topology and key in extra):
        return key
    if key in extra:
        raise CollectiveError(
            f"the {key} {collective.value} needs nodes × GPUs per node: "
            f"pass gpus_per_node (ranks = nodes × gpus_per_node)"
        )
    where = [c.value for c, topo in TOPOLOGY_ALGORITHMS.items() if key in topo]
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


def _everyone(ranks: int, blocks: np.ndarray) -> list[np.ndarray | None]:
    return [blocks for _ in range(ranks)]


def _only(ranks: int, root: int, blocks: np.ndarray) -> list[np.ndarray | None]:
    return [blocks if r == root else None for r in range(ranks)]


def _layout(
    collective: Collective,
    ranks: int,
    count: int,
    root: int,
    nblocks: int,
    split_sizes: np.ndarray | None,
) -> Layout:
    n = ranks
    all_blocks = np.arange(nblocks)
    none = np.zeros(0, dtype=np.int64)
    own = [np.array([r]) for r in range(n)]
    if collective in (C.BROADCAST, C.REDUCE, C.ALL_REDUCE):
        sizes = balanced(count, nblocks)
        inputs = [
            all_blocks if collective is not C.BROADCAST or r == root else none for r in range(n)
        ]
        outputs = _only(n, root, all_blocks) if collective is C.REDUCE else _everyone(n, all_blocks)
        return uniform(n, sizes, inputs, outputs)
    if collective is C.REDUCE_SCATTER:
        sizes = even_splits(count, n, "reduce_scatter")
        return uniform(n, sizes, _everyone(n, all_blocks), own)
    if collective is C.SCATTER:
        sizes = even_splits(count, n, "scatter")
        return uniform(n, sizes, [all_blocks if r == root else none for r in range(n)], own)
    if collective in (C.GATHER, C.ALL_GATHER):
        sizes = np.full(n, count, dtype=np.int64)
        outputs = _only(n, root, all_blocks) if collective is C.GATHER else _everyone(n, all_blocks)
        return uniform(n, sizes, own, outputs)
    if collective is C.ALL_TO_ALL:
        if split_sizes is None:
            split_sizes = np.broadcast_to(even_splits(count, n, "all_to_all"), (n, n))
        elems = np.concatenate([split_sizes, split_sizes.T], axis=1).astype(np.int64)
        slots = np.tile(n + np.arange(n), (n, 1))
        np.fill_diagonal(slots, np.arange(n))  # a rank's own piece stays where it is
        return Layout(elems=elems, inputs=tuple(_everyone(n, np.arange(n))), outputs=tuple(slots))
    raise AssertionError(collective)


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


# Card checks ask for the same few schedules again and again. The largest at
# CACHE_MAX_RANKS ranks has 2·255·256 rows, about 4 MB with its cached keys, so the cache
# holds at most ~70 MB; bigger schedules (up to 2 million rows at 1024 ranks) are rebuilt.
CACHE_MAX_RANKS = 256
CACHE_SIZE = 16


def schedule_for(collective: Collective, algorithm: str, ranks: int, *, root: int = 0) -> Schedule:
    """The schedule of ``algorithm`` for ``collective`` on ``ranks`` ranks. It depends on
    neither the element count nor the split sizes (the layout does), so one serves every
    size. Up to ``CACHE_MAX_RANKS`` ranks they come from a bounded cache, shared between
    callers: like every schedule, their arrays are read-only."""
    if ranks <= CACHE_MAX_RANKS:
        return _cached_schedule(collective, algorithm, ranks, root)
    return build_schedule(collective, algorithm, ranks, root)


@lru_cache(maxsize=CACHE_SIZE)
def _cached_schedule(collective: Collective, algorithm: str, ranks: int, root: int) -> Schedule:
    return build_schedule(collective, algorithm, ranks, root)


def build_schedule(collective: Collective, algorithm: str, ranks: int, root: int) -> Schedule:
    """The schedule of ``algorithm`` for ``collective``, built afresh (uncached)."""
    n = ranks
    fold = Fold(n)
    nblocks = _block_count(collective, algorithm, n, fold)
    b = ScheduleBuilder(n, 2 * n if collective is C.ALL_TO_ALL else nblocks)
    every = np.arange(nblocks)

    def rel_blocks(lo: np.ndarray, hi: np.ndarray) -> BlockLists:
        counts, rel = spans(lo, hi)
        return BlockLists(counts, (rel + root) % n)

    def all_blocks(first: np.ndarray, *_: object) -> BlockLists:
        return same_blocks(len(first), every)

    def own_block(r: np.ndarray) -> BlockLists:
        return rows_of(r[:, None])

    def all_but_own(r: np.ndarray) -> BlockLists:
        q = np.arange(n - 1)[None, :]
        return rows_of(q + (q >= r[:, None]))

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
        halving_rounds(b, fold, spans)
        doubling_rounds(b, fold, spans, reduce=False)
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
        pairwise_rounds(b)
    else:
        raise AssertionError(key)
    return b.build()


def _block_count(collective: Collective, algorithm: str, ranks: int, fold: Fold) -> int:
    if collective in (C.BROADCAST, C.REDUCE, C.ALL_REDUCE):
        return {
            "scatter_allgather": ranks,
            "reduce_scatter_gather": ranks,
            "ring": ranks,
            "rabenseifner": fold.power,
            "double_binary_tree": 2,
        }.get(algorithm, 1)
    return ranks  # the per-rank pieces; all_to_all adds its receive slots in _layout


def layout_for(
    collective: Collective,
    algorithm: str,
    ranks: int,
    count: int,
    *,
    root: int = 0,
    split_sizes: np.ndarray | None = None,
) -> Layout:
    """The block layout of ``algorithm`` for ``count`` elements per rank (the schedule of
    an algorithm does not depend on the count, so one schedule serves every size)."""
    nblocks = _block_count(collective, algorithm, ranks, Fold(ranks))
    return _layout(collective, ranks, count, root, nblocks, split_sizes)


def build_hierarchical(nodes: int, gpus_per_node: int, count: int) -> tuple[Schedule, Layout]:
    """Schedule and layout of the hierarchical all-reduce (see :mod:`.hierarchical`)."""
    n = nodes * gpus_per_node
    nblocks = n
    every = np.arange(nblocks)
    layout = uniform(n, balanced(count, nblocks), _everyone(n, every), _everyone(n, every))
    if n <= CACHE_MAX_RANKS:
        return _cached_hierarchical(nodes, gpus_per_node), layout
    return _build_hierarchical(nodes, gpus_per_node), layout


@lru_cache(maxsize=CACHE_SIZE)
def _cached_hierarchical(nodes: int, gpus_per_node: int) -> Schedule:
    return _build_hierarchical(nodes, gpus_per_node)


def _build_hierarchical(nodes: int, gpus_per_node: int) -> Schedule:
    b = ScheduleBuilder(nodes * gpus_per_node, nodes * gpus_per_node)
    hierarchical_all_reduce(b, nodes, gpus_per_node)
    return b.build()
