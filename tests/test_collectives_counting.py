"""Counting from the structure equals counting the transfer rows, for every algorithm.

The reference here prices the laid-out rows one by one (each row carries
``elems[src, src_block] × itemsize`` bytes; a round lasts as long as its busiest rank and
link class: ``α · messages + max(sent, received) / bandwidth + combined / reduce_rate``).
:mod:`quizcoll.collectives.counting` must give the same steps, bytes per rank and link,
and round times from the phases alone, whatever the sizes, roots and link classes.
Also here: the structure's row counts, and plans at the full 131,072 ranks.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.collectives import (
    MAX_RANKS,
    CollectiveError,
    CostModel,
    LinkModel,
    algorithms,
    plan,
    plan_hierarchical,
)
from quizcoll.collectives.api import Plan
from quizcoll.collectives.schedule import Schedule
from quizcoll.collectives.semantics import Collective

NVLINK = LinkModel("intra", 3e-6, 450e9)
IB = LinkModel("inter", 5e-6, 50e9)
SIZES = (*range(1, 18), 31, 32, 33, 64)
PAIRS = [(c, a) for c in Collective for a in algorithms(c)]


# --- the row-by-row reference ---------------------------------------------------------


def row_bytes(p: Plan) -> np.ndarray:
    s = p.schedule
    return p.elems[s.src, s.src_block].astype(np.float64) * p.dtype.itemsize


def rows_traffic(p: Plan) -> tuple[np.ndarray, np.ndarray]:
    s, w, n = p.schedule, row_bytes(p), p.ranks
    sent = np.bincount(s.src, weights=w, minlength=n)
    received = np.bincount(s.dst, weights=w, minlength=n)
    return np.rint(sent).astype(np.int64), np.rint(received).astype(np.int64)


def rows_by_link(p: Plan, g: int) -> tuple[np.ndarray, np.ndarray]:
    s, w, n = p.schedule, row_bytes(p), p.ranks
    inter = (s.src // g) != (s.dst // g)
    intra_sent = np.bincount(s.src[~inter], weights=w[~inter], minlength=n)
    inter_sent = np.bincount(s.src[inter], weights=w[inter], minlength=n)
    return np.rint(intra_sent).astype(np.int64), np.rint(inter_sent).astype(np.int64)


def _per_step(s: Schedule, values: np.ndarray, key: np.ndarray) -> np.ndarray:
    return np.bincount(key, weights=values, minlength=s.steps * s.ranks).reshape(s.steps, -1)


def _messages(s: Schedule, live: np.ndarray) -> np.ndarray:
    """Messages (runs of adjacent rows, one source and destination) carrying bytes."""
    first = s.message_starts
    carries = np.logical_or.reduceat(live, first) if len(first) else np.zeros(0, bool)
    first = first[carries]
    size = s.steps * s.ranks
    sent = np.bincount(s.src_key[first], minlength=size)
    received = np.bincount(s.dst_key[first], minlength=size)
    return np.maximum(sent, received).reshape(s.steps, s.ranks)


def rows_step_times(p: Plan, model: CostModel) -> np.ndarray:
    s, sizes = p.schedule, row_bytes(p)
    if s.steps == 0:
        return np.zeros(0)
    if model.inter is None:
        classes = [(model.link, np.ones(s.rows, dtype=bool))]
    else:
        g = model.gpus_per_node or 1
        inter = (s.src // g) != (s.dst // g)
        classes = [(model.link, ~inter), (model.inter, inter)]
    reduced = np.zeros((s.steps, s.ranks))
    if model.reduce_rate is not None:
        combined = np.where(s.reduce, sizes, 0.0)
        reduced = _per_step(s, combined, s.dst_key) / model.reduce_rate
    entries = []
    for link, mask in classes:
        live = mask & (sizes > 0)
        weights = np.where(live, sizes, 0.0)
        sent = _per_step(s, weights, s.src_key)
        received = _per_step(s, weights, s.dst_key)
        entries.append(
            _messages(s, live) * link.latency_s
            + (np.maximum(sent, received) / link.bandwidth + reduced)
        )
    return np.concatenate(entries, axis=1).max(axis=1)


# --- the comparison -------------------------------------------------------------------


def models(n: int) -> list[CostModel]:
    """One link class, with and without γ; two classes at several node sizes (dividing
    N or not), with and without γ."""
    out = [CostModel(NVLINK), CostModel(NVLINK, reduce_rate=300e9)]
    for g in sorted({1, 2, 3, max(1, n // 2), n}):
        out.append(CostModel(NVLINK, inter=IB, gpus_per_node=g))
    out.append(CostModel(NVLINK, inter=IB, gpus_per_node=2, reduce_rate=300e9))
    return out


def assert_counts_match_rows(p: Plan) -> None:
    assert p.steps == p.schedule.steps
    assert p.rows == p.schedule.rows
    np.testing.assert_array_equal(p.structure.rows_per_round, np.diff(p.schedule.offsets))
    sent, received = rows_traffic(p)
    np.testing.assert_array_equal(p.bytes_sent, sent)
    np.testing.assert_array_equal(p.bytes_received, received)
    for g in sorted({1, 2, 3, p.ranks}):
        for got, want in zip(p.bytes_by_link(g), rows_by_link(p, g), strict=True):
            np.testing.assert_array_equal(got, want)
    for model in models(p.ranks):
        np.testing.assert_allclose(
            p.step_times(model), rows_step_times(p, model), rtol=1e-12, atol=0
        )


def _counts(collective: Collective, n: int) -> list[int]:
    if collective in (Collective.SCATTER, Collective.REDUCE_SCATTER, Collective.ALL_TO_ALL):
        return [n, 3 * n]
    if collective in (Collective.GATHER, Collective.ALL_GATHER):
        return [1, 5]
    return [1, max(1, n - 1), n + 1, 3 * n + 2]  # fewer elements than blocks, uneven blocks


@pytest.mark.parametrize(
    ("collective", "algorithm"), PAIRS, ids=lambda x: str(getattr(x, "value", x))
)
def test_every_algorithm_counts_like_its_rows(collective: Collective, algorithm: str) -> None:
    for n in SIZES:
        roots = (0, (2 * n) // 3) if collective.rooted else (0,)
        for root in roots:
            for count in _counts(collective, n):
                p = plan(collective, n, count, algorithm=algorithm, dtype="float32", root=root)
                assert_counts_match_rows(p)


@pytest.mark.parametrize("shape", [(1, 1), (1, 4), (4, 1), (2, 3), (3, 2), (4, 4), (2, 8), (5, 3)])
@pytest.mark.parametrize("count", [1, 7, 96])
def test_hierarchical_counts_like_its_rows(shape: tuple[int, int], count: int) -> None:
    nodes, gpus = shape
    p = plan_hierarchical(nodes, gpus, count, dtype="bfloat16")
    assert_counts_match_rows(p)
    model = CostModel(NVLINK, inter=IB, gpus_per_node=gpus)
    np.testing.assert_allclose(p.step_times(model), rows_step_times(p, model), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_uneven_all_to_all_counts_like_its_rows(n: int, seed: int) -> None:
    splits = np.random.default_rng(seed).integers(0, 4, size=(n, n))
    # plan() takes one element count for every rank: pad the diagonal to equal row sums
    splits[np.arange(n), np.arange(n)] += splits.sum(axis=1).max() + 1 - splits.sum(axis=1)
    count = int(splits[0].sum())
    assert_counts_match_rows(plan("all_to_all", n, count, split_sizes=splits, dtype="int64"))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PAIRS), st.integers(2, 40), st.integers(1, 200), st.data())
def test_random_sizes_count_like_rows(pair: tuple, n: int, per: int, data: st.DataObject) -> None:
    collective, algorithm = pair
    count = (
        per * n
        if collective in (Collective.SCATTER, Collective.REDUCE_SCATTER, Collective.ALL_TO_ALL)
        else per
    )
    root = data.draw(st.integers(0, n - 1))
    dtype = data.draw(st.sampled_from(["float16", "float32", "int64"]))
    assert_counts_match_rows(
        plan(collective, n, count, algorithm=algorithm, dtype=dtype, root=root)
    )


# --- scale ----------------------------------------------------------------------------


def test_rows_are_refused_past_the_limit_but_counts_are_not() -> None:
    p = plan("all_reduce", MAX_RANKS, 2**28, algorithm="ring")
    assert p.steps == 2 * (MAX_RANKS - 1)
    assert p.rows == 2 * (MAX_RANKS - 1) * MAX_RANKS
    assert p.bytes_sent.tolist() == [2 * (MAX_RANKS - 1) * 2**30 // MAX_RANKS] * MAX_RANKS
    with pytest.raises(CollectiveError, match=r"34,359,476,224 block transfers; .* stop at"):
        p.schedule  # noqa: B018 - the property raises


@pytest.mark.parametrize(
    ("collective", "algorithm"),
    [
        ("all_reduce", "double_binary_tree"),
        ("broadcast", "binomial"),
        ("reduce", "binomial"),
        ("all_to_all", "pairwise"),
    ],
)
def test_plans_at_131072_ranks(collective: str, algorithm: str) -> None:
    n = MAX_RANKS
    p = plan(collective, n, n * 4, algorithm=algorithm)
    if algorithm == "binomial":
        assert p.steps == 17  # ⌈log2 131072⌉ rounds down (or up) the tree
        root_traffic = p.bytes_sent if collective == "broadcast" else p.bytes_received
        assert int(root_traffic[0]) == 17 * n * 16  # the root takes part in every round
    elif algorithm == "pairwise":
        assert p.steps == n - 1
        assert p.bytes_sent.tolist() == [(n - 1) * 16] * n
    else:
        assert p.steps == 2 * 17  # up and down trees of depth ⌈log2 N⌉
    assert p.time(CostModel(NVLINK)) > 0


def test_hierarchical_at_131072_ranks_matches_its_closed_forms() -> None:
    nodes, gpus, size = 16_384, 8, 2**30
    p = plan_hierarchical(nodes, gpus, size // 4)
    assert p.steps == 2 * (gpus - 1) + 2 * (nodes - 1)
    intra, inter = p.bytes_by_link(gpus)
    assert set(inter.tolist()) == {2 * (nodes - 1) * size // (nodes * gpus)}
    assert set(intra.tolist()) == {2 * (gpus - 1) * size // gpus}
    model = CostModel(NVLINK, inter=IB, gpus_per_node=gpus)
    expected = 2 * (gpus - 1) * (NVLINK.latency_s + size / gpus / NVLINK.bandwidth) + 2 * (
        nodes - 1
    ) * (IB.latency_s + size / (nodes * gpus) / IB.bandwidth)
    assert p.time(model) == pytest.approx(expected, rel=1e-12)


def test_flat_ring_over_nodes_prices_each_round_by_its_slowest_link() -> None:
    # a flat ring over nodes of 8: every round has node-crossing hops, priced on IB
    n, g, count = 1024, 8, 1024 * 256
    p = plan("all_reduce", n, count, algorithm="ring")
    model = CostModel(NVLINK, inter=IB, gpus_per_node=g)
    block = count // n * 4
    assert p.time(model) == pytest.approx(2 * (n - 1) * (IB.latency_s + block / IB.bandwidth))


def test_adjacent_messages_between_one_pair_are_one_message() -> None:
    """Two messages of one round from rank 0 to rank 1, laid out next to each other, are
    one message (one α), as the rows say; a message to another rank in between splits
    them."""
    from quizcoll.collectives.dtypes import get_dtype
    from quizcoll.collectives.structure import Spans, StructureBuilder

    def custom(src: list[int], dst: list[int]) -> Plan:
        b = StructureBuilder(3, 2)
        b.add_message_rounds(
            np.zeros(len(src)),
            np.array(src),
            np.array(dst),
            Spans.single([0, 1, 0][: len(src)]),
            True,
        )
        structure = b.build()
        elems = np.broadcast_to(np.array([5, 7]), (3, 2))
        return Plan(
            Collective.ALL_REDUCE,
            "custom",
            3,
            12,
            get_dtype("float32"),
            0,
            elems,
            lambda: structure,
        )

    alpha = CostModel(LinkModel("α only", 1.0, 1e30))
    merged, split = custom([0, 0], [1, 1]), custom([0, 0, 0], [1, 2, 1])
    assert merged.time(alpha) == pytest.approx(1.0)
    assert split.time(alpha) == pytest.approx(3.0)
    for p in (merged, split):
        assert_counts_match_rows(p)
