"""The bounded data check of `sim`: which size the data is moved at, and its verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from quizcoll.collectives import Op, plan, plan_hierarchical
from quizcoll.collectives.sample import (
    MAX_SAMPLE_RANKS,
    Sample,
    check_plan,
    sample_for,
    sample_inputs,
)

BUDGET = 1 << 30


@pytest.mark.parametrize(
    ("ranks", "want"),
    [(8, 8), (1024, 1024), (1025, 1023), (4096, 1024), (131_072, 1024), (131_071, 1023)],
)
def test_ranks_keep_being_a_power_of_two_or_not(ranks: int, want: int) -> None:
    p = plan("all_reduce", ranks, 2**28, algorithm="recursive_doubling")
    assert sample_for(p, BUDGET).ranks == want <= MAX_SAMPLE_RANKS


@pytest.mark.parametrize(
    ("nodes", "gpus", "want"),
    [(4, 8, (4, 8)), (16_384, 8, (128, 8)), (2, 65_536, (2, 512)), (1, 2048, (1, 1024))],
)
def test_hierarchical_keeps_its_gpus_per_node_where_it_can(
    nodes: int, gpus: int, want: tuple[int, int]
) -> None:
    sample = sample_for(plan_hierarchical(nodes, gpus, 2**20), BUDGET)
    assert (sample.nodes, sample.gpus_per_node) == want


def test_counts_full_when_they_fit_else_a_few_per_block() -> None:
    small = plan("all_reduce", 8, 1000)
    assert sample_for(small, BUDGET) == Sample(8, 1000, 0)
    big = plan("all_reduce", 8, 2**28 + 3)  # 8 GiB of inputs: over the budget
    assert sample_for(big, BUDGET) == Sample(8, 2 * 8 + 3, 0)  # keeps the uneven blocks
    assert sample_for(plan("all_reduce", 8, 2**28, algorithm="naive"), BUDGET).count == 2
    assert sample_for(plan("all_gather", 4096, 2**28), BUDGET).count == 1
    assert sample_for(plan("scatter", 4096, 2**28, root=4000), BUDGET) == Sample(
        1024, 2 * 1024, 4000 % 1024
    )


def test_inputs_are_one_generator_row_per_rank() -> None:
    a = sample_inputs(np.dtype(np.float32), Op.SUM, 4, 5, seed=7)
    assert a.shape == (4, 5) and a.dtype == np.float32
    np.testing.assert_array_equal(a, sample_inputs(np.dtype(np.float32), Op.SUM, 4, 5, seed=7))
    ints = sample_inputs(np.dtype(np.uint8), Op.SUM, 2, 100, seed=0)
    assert ints.min() >= 0 and ints.max() <= 8
    prods = sample_inputs(np.dtype(np.float64), Op.PROD, 2, 100, seed=0)
    assert prods.min() >= 0.5 and prods.max() <= 1.5


def test_check_runs_the_algorithm_or_says_it_could_not() -> None:
    p = plan("all_reduce", 3000, 2**20, algorithm="rabenseifner")
    check = check_plan(p, Op.SUM, BUDGET, seed=1)
    assert check.verified is True and check.sample.ranks == 1023
    assert check_plan(p, Op.SUM, 1024, seed=1).verified is None  # nothing fits 1 KiB


def test_the_full_size_is_moved_only_up_to_a_bound() -> None:
    """`sim all_reduce --ranks 256` (1 MiB each) once took 110 s and 1.9 GB checking its
    outputs; it now checks at two elements per block."""
    from quizcoll.collectives.sample import MAX_FULL_ELEMENTS

    at_bound = plan("all_reduce", 64, MAX_FULL_ELEMENTS // 64)
    assert sample_for(at_bound, BUDGET).count == MAX_FULL_ELEMENTS // 64
    issue_12 = plan("all_reduce", 256, 2**18)
    assert sample_for(issue_12, BUDGET) == Sample(256, 2 * 256, 0)
