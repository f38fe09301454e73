"""Simulated steps, bytes and times against the closed forms of the literature.

Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication Operations in
MPICH" (2005), and Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for
clusters of workstations" (2009). With n the message size, p the ranks, α the latency,
β the time per byte and γ the combining time per byte.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from quizcoll.collectives import (
    CollectiveError,
    CostModel,
    LinkModel,
    bandwidths,
    best_algorithm,
    busbw_factor,
    crossover,
    plan,
    plan_hierarchical,
    run_hierarchical,
    zero_volume,
)
from quizcoll.collectives.schedules.double_tree import (
    depths_and_heights,
    tree_one_parents,
    tree_two_parents,
)
from quizcoll.collectives.semantics import Collective

ALL_N = range(2, 65)
POW2 = [2, 4, 8, 16, 32, 64]
NON_POW2 = [3, 5, 6, 7, 12, 31, 33, 63]
ALPHA, BANDWIDTH, RATE = 2e-6, 100e9, 400e9
MODEL = CostModel(LinkModel("test", ALPHA, BANDWIDTH))
MODEL_GAMMA = CostModel(LinkModel("test", ALPHA, BANDWIDTH), reduce_rate=RATE)
BETA, GAMMA = 1 / BANDWIDTH, 1 / RATE


def lg(p: int) -> int:
    return math.ceil(math.log2(p))


def sized(collective: str, p: int, algorithm: str, *, per: int = 3) -> tuple:
    """A plan whose message every block divides; returns (plan, n in bytes)."""
    count = per * p * (1 << (p.bit_length()))
    pl = plan(collective, p, count, algorithm=algorithm, dtype="float32")
    return pl, count * 4


@pytest.mark.parametrize("p", ALL_N)
def test_ring_all_reduce(p: int) -> None:
    pl, n = sized("all_reduce", p, "ring")
    assert pl.steps == 2 * (p - 1)
    assert pl.bytes_sent.tolist() == [2 * (p - 1) * n // p] * p
    assert pl.bytes_received.tolist() == [2 * (p - 1) * n // p] * p
    assert pl.time(MODEL) == pytest.approx(2 * (p - 1) * ALPHA + 2 * (p - 1) / p * n * BETA)
    assert pl.time(MODEL_GAMMA) == pytest.approx(
        2 * (p - 1) * ALPHA + 2 * (p - 1) / p * n * BETA + (p - 1) / p * n * GAMMA
    )


@pytest.mark.parametrize("p", ALL_N)
@pytest.mark.parametrize(
    ("collective", "algorithm"),
    [("reduce_scatter", "ring"), ("all_gather", "ring"), ("all_to_all", "pairwise")],
)
def test_n_minus_one_rounds_of_one_nth(p: int, collective: str, algorithm: str) -> None:
    pl, n = sized(collective, p, algorithm)
    if collective == "all_gather":
        n *= p  # n is the gathered size
    assert pl.steps == p - 1
    assert pl.bytes_sent.tolist() == [(p - 1) * n // p] * p
    assert pl.time(MODEL) == pytest.approx((p - 1) * ALPHA + (p - 1) / p * n * BETA)


@pytest.mark.parametrize("p", POW2)
def test_recursive_doubling_and_halving(p: int) -> None:
    pl, n = sized("all_reduce", p, "recursive_doubling")
    assert pl.steps == lg(p)
    assert pl.bytes_sent.tolist() == [lg(p) * n] * p
    assert pl.time(MODEL_GAMMA) == pytest.approx(lg(p) * (ALPHA + n * BETA + n * GAMMA))

    pl, n = sized("all_gather", p, "recursive_doubling")
    n *= p
    assert pl.steps == lg(p)
    assert pl.bytes_sent.tolist() == [(p - 1) * n // p] * p
    assert pl.time(MODEL) == pytest.approx(lg(p) * ALPHA + (p - 1) / p * n * BETA)

    pl, n = sized("reduce_scatter", p, "recursive_halving")
    assert pl.steps == lg(p)
    assert pl.bytes_sent.tolist() == [(p - 1) * n // p] * p
    assert pl.time(MODEL_GAMMA) == pytest.approx(lg(p) * ALPHA + (p - 1) / p * n * (BETA + GAMMA))


@pytest.mark.parametrize("p", POW2)
def test_rabenseifner(p: int) -> None:
    pl, n = sized("all_reduce", p, "rabenseifner")
    assert pl.steps == 2 * lg(p)
    assert pl.bytes_sent.tolist() == [2 * (p - 1) * n // p] * p
    assert pl.time(MODEL_GAMMA) == pytest.approx(
        2 * lg(p) * ALPHA + 2 * (p - 1) / p * n * BETA + (p - 1) / p * n * GAMMA
    )


@pytest.mark.parametrize("p", NON_POW2)
def test_non_power_of_two_folds_in_and_out(p: int) -> None:
    low = 1 << (p.bit_length() - 1)
    extra = p - low
    assert sized("all_reduce", p, "recursive_doubling")[0].steps == lg(low) + 2
    assert sized("all_reduce", p, "rabenseifner")[0].steps == 2 * lg(low) + 2
    assert sized("all_gather", p, "recursive_doubling")[0].steps == lg(low) + 2
    assert sized("reduce_scatter", p, "recursive_halving")[0].steps == lg(low) + 2
    pl, n = sized("all_reduce", p, "rabenseifner")
    # the folded-in even ranks send their whole buffer once and receive the result once
    for r in range(0, 2 * extra, 2):
        assert pl.bytes_sent[r] == n and pl.bytes_received[r] == n


@pytest.mark.parametrize("p", ALL_N)
def test_binomial_trees(p: int) -> None:
    root = p // 3
    pl, n = sized("broadcast", p, "binomial")
    assert pl.steps == lg(p)
    assert pl.bytes_sent[0] == lg(p) * n  # the root sends in every round
    assert pl.bytes_received.tolist() == [0 if r == 0 else n for r in range(p)]
    assert pl.time(MODEL) == pytest.approx(lg(p) * (ALPHA + n * BETA))

    pl = plan("scatter", p, 4 * p, algorithm="binomial", root=root)
    n = 16 * p
    assert pl.steps == lg(p)
    assert pl.bytes_sent[root] == (p - 1) * n // p
    assert pl.bytes_received[root] == 0

    pl = plan("gather", p, 4, algorithm="binomial", root=root)
    n = 16 * p
    assert pl.steps == lg(p)
    assert pl.bytes_received[root] == (p - 1) * n // p

    pl, n = sized("reduce", p, "binomial")
    assert pl.steps == lg(p)
    assert pl.bytes_sent.tolist() == [0] + [n] * (p - 1)
    if p & (p - 1) == 0:
        assert pl.time(MODEL) == pytest.approx(lg(p) * (ALPHA + n * BETA))
        scatter = plan("scatter", p, 4 * p, algorithm="binomial")
        assert scatter.time(MODEL) == pytest.approx(lg(p) * ALPHA + (p - 1) / p * 16 * p * BETA)


@pytest.mark.parametrize("p", POW2)
def test_broadcast_by_scatter_and_ring_all_gather(p: int) -> None:
    """Thakur et al. §3.1: (lg p + p − 1)α + 2(p − 1)/p · nβ."""
    pl, n = sized("broadcast", p, "scatter_allgather")
    assert pl.steps == lg(p) + p - 1
    assert pl.time(MODEL) == pytest.approx((lg(p) + p - 1) * ALPHA + 2 * (p - 1) / p * n * BETA)


@pytest.mark.parametrize("p", ALL_N)
def test_direct_and_naive(p: int) -> None:
    pl, n = sized("all_reduce", p, "naive")
    assert pl.steps == 2
    assert pl.bytes_sent[0] == (p - 1) * n and pl.bytes_received[0] == (p - 1) * n
    assert pl.bytes_sent[1:].tolist() == [n] * (p - 1)
    assert pl.time(MODEL) == pytest.approx(2 * (p - 1) * (ALPHA + n * BETA))
    pl, n = sized("broadcast", p, "direct")
    assert pl.steps == 1 and pl.bytes_sent[0] == (p - 1) * n
    pl = plan("reduce", p, 8, algorithm="reduce_scatter_gather", root=p - 1)
    assert pl.steps == (p - 1) + lg(p)


@pytest.mark.parametrize("p", range(2, 65))
def test_double_binary_trees(p: int) -> None:
    one, two = tree_one_parents(p), tree_two_parents(p)
    for parents in (one, two):
        depths_and_heights(parents)  # raises unless the parents form one spanning tree
        assert np.bincount(parents[parents >= 0], minlength=p).max() <= 2  # binary
    if p % 2 == 0:  # NCCL's mirror: no rank is an inner node of both trees
        assert not {int(x) for x in one if x >= 0} & {int(x) for x in two if x >= 0}
    pl, n = sized("all_reduce", p, "double_binary_tree")
    # every rank but a root sends each half up once; every half comes down to every rank
    assert (pl.bytes_received >= n).all()
    assert pl.steps <= 2 * 2 * lg(p)


@pytest.mark.parametrize("p", [*range(2, 70), 127, 128, 129, 1000, 1024, 1025, 131_071, 131_072])
def test_nccl_trees_are_one_level_deeper_than_balanced_ones(p: int) -> None:
    """NCCL's tree hangs the in-order binary tree of ranks 1 … N − 1 under rank 0, its
    root's only child: depth ⌊log₂(N − 1)⌋ + 1 = ⌈log₂N⌉, where a balanced binary tree of
    N nodes has depth ⌊log₂N⌋ (the same only for powers of two)."""
    for parents in (tree_one_parents(p), tree_two_parents(p)):
        depth, height = depths_and_heights(parents)
        root = int(np.flatnonzero(parents < 0)[0])
        assert np.count_nonzero(parents == root) == 1  # the root has a single child
        assert int(depth.max()) == int(height[root]) == (p - 1).bit_length() == lg(p)
        balanced = p.bit_length() - 1  # ⌊log₂N⌋
        assert int(depth.max()) == balanced + (p & (p - 1) != 0)
    if p <= 4096:
        assert plan("all_reduce", p, 2, algorithm="double_binary_tree").steps == 2 * lg(p)


@pytest.mark.parametrize(("nodes", "gpus"), [(2, 4), (4, 8), (3, 2), (8, 8), (1, 8), (4, 1)])
def test_hierarchical_inter_node_bytes(nodes: int, gpus: int) -> None:
    count = nodes * gpus * 16
    pl = plan_hierarchical(nodes, gpus, count)
    s = count * 4
    intra, inter = pl.bytes_by_link(gpus)
    assert inter.tolist() == [2 * (nodes - 1) * s // (nodes * gpus)] * (nodes * gpus)
    assert intra.tolist() == [2 * (gpus - 1) * s // gpus] * (nodes * gpus)
    assert pl.steps == 2 * (gpus - 1) + 2 * (nodes - 1)
    rng = np.random.default_rng(0)
    inputs = [rng.integers(-9, 9, count) for _ in range(nodes * gpus)]
    result = run_hierarchical(inputs, gpus)
    for out in result.outputs:
        np.testing.assert_array_equal(out, np.sum(inputs, axis=0))


def test_hierarchical_beats_flat_ring_across_slow_links() -> None:
    model = CostModel(
        LinkModel("nvlink", 3e-6, 450e9),
        inter=LinkModel("ib", 5e-6, 50e9),
        gpus_per_node=8,
    )
    h = plan_hierarchical(4, 8, 1 << 26)
    flat = plan("all_reduce", 32, 1 << 26, algorithm="ring")
    assert h.time(model) < flat.time(model)


@pytest.mark.parametrize(
    ("collective", "factor"),
    [
        ("all_reduce", lambda n: 2 * (n - 1) / n),
        ("reduce_scatter", lambda n: (n - 1) / n),
        ("all_gather", lambda n: (n - 1) / n),
        ("all_to_all", lambda n: (n - 1) / n),
        ("broadcast", lambda n: 1.0),
        ("reduce", lambda n: 1.0),
    ],
)
def test_busbw_factors_and_ring_busbw_is_the_link(collective: str, factor) -> None:
    for n in (2, 8, 64):
        assert busbw_factor(Collective(collective), n) == pytest.approx(factor(n))
    # with no latency a ring's bus bandwidth is exactly the link bandwidth (nccl-tests' point)
    free = CostModel(LinkModel("free", 0.0, BANDWIDTH))
    if collective in ("all_reduce", "reduce_scatter", "all_gather"):
        pl, _ = sized(collective, 8, "ring")
        _, busbw = bandwidths(pl.collective, 8, pl.input_bytes, pl.time(free))
        assert busbw == pytest.approx(BANDWIDTH)


@pytest.mark.parametrize("p", [2, 8, 64, 100])
def test_zero_volume(p: int) -> None:
    psi = 10**9
    for stage, k in ((0, 2), (1, 2), (2, 2), (3, 3)):
        v = zero_volume(psi, stage, p, dtype="bfloat16")
        padded = -(-psi // p) * p
        assert v.bytes_per_gpu == pytest.approx(k * (p - 1) / p * padded * 2, abs=4 * p)
    with pytest.raises(CollectiveError, match="ZeRO stage must be 0, 1, 2 or 3"):
        zero_volume(psi, 4, p)


@pytest.mark.parametrize("p", [8, 16, 64])
@pytest.mark.parametrize("other", ["double_binary_tree", "recursive_doubling"])
def test_crossover_is_where_ring_starts_winning(p: int, other: str) -> None:
    c = crossover(p, other, MODEL)
    assert c.ring_time_s < c.other_time_s
    assert c.below_ring_time_s >= c.below_other_time_s
    assert c.below_size_bytes < c.size_bytes
    for size, ring_wins in ((c.size_bytes, True), (c.below_size_bytes, False)):
        count = size // 4
        ring = plan("all_reduce", p, count, algorithm="ring").time(MODEL)
        tree = plan("all_reduce", p, count, algorithm=other).time(MODEL)
        assert (ring < tree) is ring_wins
    # more latency moves the crossover to larger messages
    slow = CostModel(LinkModel("slow", 10 * ALPHA, BANDWIDTH))
    assert crossover(p, other, slow).size_bytes > c.size_bytes


def test_crossover_errors() -> None:
    with pytest.raises(CollectiveError, match="ring never overtakes rabenseifner"):
        crossover(16, "rabenseifner", MODEL)
    with pytest.raises(CollectiveError, match="ring never overtakes double_binary_tree on 2"):
        crossover(2, "double_binary_tree", MODEL)  # two ranks: the same transfers
    with pytest.raises(CollectiveError, match=r"already faster .* no crossover"):
        crossover(4, "double_binary_tree", MODEL)
    with pytest.raises(CollectiveError, match="not with itself"):
        crossover(8, "ring", MODEL)


def test_best_algorithm() -> None:
    small, times = best_algorithm("all_reduce", 64, 1024, MODEL)
    assert small != "ring" and times[small] == min(times.values())
    large, _ = best_algorithm("all_reduce", 63, 1 << 30, MODEL)
    assert large == "ring"
    assert best_algorithm("all_to_all", 8, 64, MODEL)[0] == "pairwise"
