"""The experts a decode batch touches: the DP against brute-force enumeration of every routing
and against linearity of expectation, E·(1 − (1 − k/E)^B)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.systems.errors import SystemsInputError
from quizcoll.systems.moe_decode import experts_touched, touched_distribution


@pytest.mark.parametrize(
    ("experts", "top_k", "batch"), [(4, 2, 2), (5, 2, 3), (6, 1, 4), (4, 3, 2)]
)
def test_distribution_equals_enumeration(experts: int, top_k: int, batch: int) -> None:
    picks = list(itertools.combinations(range(experts), top_k))
    counts: Counter[int] = Counter()
    for routing in itertools.product(picks, repeat=batch):
        counts[len(set().union(*map(set, routing)))] += 1
    n = len(picks) ** batch
    dist = touched_distribution(experts, top_k, batch)
    assert dist == pytest.approx([counts[j] / n for j in range(experts + 1)], abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(experts=st.integers(1, 64), data=st.data(), batch=st.integers(1, 64))
def test_mean_is_linearity_of_expectation(experts: int, data: st.DataObject, batch: int) -> None:
    top_k = data.draw(st.integers(1, experts))
    r = experts_touched(experts, top_k, batch)
    assert r.expected_touched == pytest.approx(experts * (1 - (1 - top_k / experts) ** batch))


def test_mixtral_batch_one_reads_two_of_eight() -> None:
    # Mixtral-8x7B: 8 experts, top-2 (Jiang et al. 2024): one token reads exactly two.
    r = experts_touched(8, 2, 1)
    assert (r.expected_touched, r.all_touched_probability) == (2, 0)


def test_top_k_above_experts_is_refused() -> None:
    with pytest.raises(SystemsInputError, match="top_k"):
        experts_touched(8, 9, 1)
