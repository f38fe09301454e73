"""The one-shot/two-shot simulation and the exact occupancy chain against independent
figures: brute-force enumeration of every routing, a Monte Carlo through the fabric model,
and the α-β costs worked out by hand."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from quizcoll.systems import fabric, occupancy
from quizcoll.systems import tp_allreduce as tpa
from quizcoll.systems.errors import SystemsInputError


def _brute_force_mean(bins: int, k: int, draws: int) -> Fraction:
    """Every sequence of ``draws`` k-subsets, equally likely: the mean number of bins hit."""
    subsets = list(itertools.combinations(range(bins), k))
    total = Fraction(0)
    for picks in itertools.product(subsets, repeat=draws):
        total += len(set().union(*picks))
    return total / len(subsets) ** draws


@pytest.mark.parametrize(
    ("bins", "k", "draws"), [(4, 1, 3), (5, 2, 3), (6, 3, 2), (8, 2, 2), (4, 4, 2), (3, 1, 0)]
)
def test_chain_equals_enumerating_every_routing(bins, k, draws) -> None:
    exact = _brute_force_mean(bins, k, draws) if draws else Fraction(0)
    assert occupancy.expected_reached(bins, k, draws) == pytest.approx(float(exact), rel=1e-12)


def test_distribution_sums_to_one_and_is_supported_where_possible() -> None:
    p = occupancy.distribution(16, 4, 3)
    assert p.sum() == pytest.approx(1.0)
    assert p[:4].sum() == 0 and p[13:].sum() == 0  # at least k, at most 3k bins


def test_hashed_fabric_monte_carlo_agrees_with_the_chain() -> None:
    # 8 flows from one leaf hashed onto 8 uplinks: each used uplink carries its flows at full
    # rate, so the leaf's throughput is (uplinks used) × link. 400 hash draws.
    rng = np.random.default_rng(7)
    per_leaf = []
    for _ in range(400):
        rates = fabric.permutation_rates(2, 8, 8, 1.0, hashed=True, rng=rng)
        per_leaf.append(sum(rates[:8]))
    exact = occupancy.expected_reached(8, 1, 8)
    assert exact == pytest.approx(8 * (1 - (7 / 8) ** 8))
    assert np.mean(per_leaf) == pytest.approx(exact, rel=0.03)


def test_one_and_two_shot_by_hand() -> None:
    # 8 GPUs, 64 KiB, α = 2 µs, 371 GB/s: one-shot reads 7 × 64 KiB, two-shot 2 × 7/8 × 64 KiB.
    s, a, b = 65536, 2e-6, 371e9
    one = tpa.simulate(tpa.Shot.ONE, 8, s, a, b)
    two = tpa.simulate(tpa.Shot.TWO, 8, s, a, b)
    assert (one.steps, one.bytes_in) == (1, 458752)
    assert (two.steps, two.bytes_in) == (2, 114688)
    assert one.time_s == pytest.approx(2e-6 + 458752 / 371e9)
    assert two.time_s == pytest.approx(4e-6 + 114688 / 371e9)


def test_crossover_separates_the_regimes() -> None:
    x = tpa.crossover(8, 2e-6, 371e9)
    below = [tpa.simulate(s, 8, x * 0.99, 2e-6, 371e9).time_s for s in tpa.Shot]
    above = [tpa.simulate(s, 8, x * 1.01, 2e-6, 371e9).time_s for s in tpa.Shot]
    assert below[0] < below[1] and above[0] > above[1]
    assert tpa.crossover(2, 2e-6, 371e9) == 0.0
    assert math.isclose(x, 2e-6 * 8 * 371e9 / (7 * 6), rel_tol=1e-6)


def test_refusals() -> None:
    with pytest.raises(SystemsInputError):
        tpa.simulate(tpa.Shot.ONE, 1, 1024, 1e-6, 1e9)
    with pytest.raises(SystemsInputError):
        tpa.simulate(tpa.Shot.ONE, 73, 1024, 1e-6, 1e9)
    with pytest.raises(SystemsInputError):
        occupancy.distribution(4, 5, 1)


@pytest.mark.parametrize(("bins", "k", "fraction"), [(256, 8, 0.9), (8, 2, 0.99), (16, 4, 0.5)])
def test_draws_for_is_the_first_batch_over_the_share(bins, k, fraction) -> None:
    n = occupancy.draws_for(bins, k, fraction)
    assert occupancy.expected_reached(bins, k, n) >= fraction * bins
    assert occupancy.expected_reached(bins, k, n - 1) < fraction * bins


def test_speedup_field_is_the_time_ratio() -> None:
    from quizcoll.executables import build_registry

    r = build_registry().call(
        "tp.allreduce",
        {"shot": "one-shot", "ranks": 8, "size": 65536, "latency": 2e-6, "bandwidth": 371e9},
    )
    two = tpa.simulate(tpa.Shot.TWO, 8, 65536, 2e-6, 371e9).time_s
    assert r["speedup_over_other"] == pytest.approx(two / r["time_s"])
