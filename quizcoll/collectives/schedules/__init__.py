"""The algorithm catalog: every (collective, algorithm) pair as a schedule and a layout.

:func:`build` lays an algorithm out for N ranks and a per-rank element count; nothing
here touches data. Algorithm families live in their own modules: :mod:`.tree` (direct
and binomial), :mod:`.ring`, :mod:`.recursive` (doubling, halving, Rabenseifner),
:mod:`.double_tree`, :mod:`.pairwise` and :mod:`.hierarchical`.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.layout import Layout, balanced, uniform
from quizcoll.collectives.schedule import Schedule, ScheduleBuilder
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


def check_algorithm(collective: Collective, algorithm: str | None) -> str:
    """The algorithm name to use (the default when None), or a clear error."""
    names = ALGORITHMS[collective]
    if algorithm is None:
        return names[0]
    key = algorithm.strip().lower().replace("-", "_")
    if key not in names:
        raise CollectiveError(
            f"unknown algorithm {algorithm!r} for {collective.value}; "
            f"choose one of {', '.join(names)}"
        )
    return key


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
        outputs = []
        for r in range(n):
            slots = n + np.arange(n)
            slots[r] = r  # a rank's own piece stays where it is
            outputs.append(slots)
        return Layout(elems=elems, inputs=tuple(_everyone(n, np.arange(n))), outputs=tuple(outputs))
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
    n = ranks
    fold = Fold(n)
    nblocks = _block_count(collective, algorithm, n, fold)
    layout = _layout(collective, n, count, root, nblocks, split_sizes)
    b = ScheduleBuilder(n, layout.nblocks)
    every = list(range(nblocks))

    def rel_blocks(lo: int, hi: int) -> list[int]:
        return [(q + root) % n for q in range(lo, hi)]

    def all_blocks(*_: object) -> list[int]:
        return every

    def own_block(r: int) -> list[int]:
        return [r]

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
        halving_rounds(b, fold, list)
        doubling_rounds(b, fold, list, reduce=False)
        fold.fold_out(b, all_blocks)
    elif key == (C.ALL_REDUCE, "double_binary_tree"):
        double_tree_all_reduce(b)
    elif key == (C.ALL_GATHER, "recursive_doubling"):

        def represented_blocks(newranks: range) -> list[int]:
            return [q for i in newranks for q in fold.represented(i)]

        fold.fold_in(b, own_block, reduce=False)
        doubling_rounds(b, fold, represented_blocks, reduce=False)
        fold.fold_out(b, lambda r: [q for q in every if q != r])
    elif key == (C.REDUCE_SCATTER, "recursive_halving"):

        def represented_blocks(newranks: range) -> list[int]:
            return [q for i in newranks for q in fold.represented(i)]

        fold.fold_in(b, all_blocks, reduce=True)
        halving_rounds(b, fold, represented_blocks)
        fold.fold_out(b, own_block)
    elif key == (C.ALL_TO_ALL, "pairwise"):
        pairwise_rounds(b)
    else:
        raise AssertionError(key)
    return b.build(), layout


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
    b = ScheduleBuilder(n, nblocks)
    hierarchical_all_reduce(b, nodes, gpus_per_node)
    return b.build(), layout
