"""The s3 witnesses held to hand-worked cases, brute-force counts and identities — never to
the calculators' formulas."""

from __future__ import annotations

import itertools

import pytest

from quizcoll.witnesses import s3_moe_slots


def test_six_tokens_two_experts_top_one_by_hand() -> None:
    # Tokens go to experts 0, 1, 0, 1, 0, 1: three each; capacity factor 1 gives buffers
    # of three, six slots, nothing dropped.
    f = s3_moe_slots.fill(6, 2, 1, 1.0)
    assert (f.assignments, f.slots, f.capacity, f.dropped, f.busiest_load) == (6, 6, 3, 0, 3)


def test_a_small_capacity_factor_drops_even_under_perfect_balance() -> None:
    # 8 tokens, 4 experts, top-1: two tokens each; factor 0.5 leaves one slot per expert.
    f = s3_moe_slots.fill(8, 4, 1, 0.5)
    assert (f.slots, f.accepted, f.dropped) == (4, 4, 4)


def test_top_k_equal_to_experts_sends_every_token_everywhere() -> None:
    f = s3_moe_slots.fill(5, 3, 3, 1.0)
    assert f.assignments == 15
    assert f.busiest_load == 5  # each expert sees every token once
    assert f.dropped == 0


@pytest.mark.parametrize(
    ("tokens", "experts", "top_k", "cf"),
    list(itertools.product([1, 7, 16, 33], [2, 3, 8], [1, 2], [0.5, 1.0, 1.25, 2.0])),
)
def test_counts_against_brute_force(tokens: int, experts: int, top_k: int, cf: float) -> None:
    f = s3_moe_slots.fill(tokens, experts, top_k, cf)
    # Every assignment is accepted or dropped, and never more accepted than there are slots.
    assert f.accepted + f.dropped == f.assignments
    assert f.accepted <= f.slots
    # The buffer is the smallest that holds the padded assignments, found by trying sizes.
    smallest = next(c for c in itertools.count(1) if c * experts >= cf * tokens * top_k)
    assert f.capacity == smallest
    assert f.slots == sum(smallest for _ in range(experts))
    # Each token makes top_k assignments, and balanced routing puts less than one
    # assignment more than the mean on the busiest expert.
    assert f.assignments == tokens * top_k
    assert f.busiest_load * experts - f.assignments < experts


def test_refuses_more_experts_per_token_than_experts() -> None:
    with pytest.raises(ValueError, match="distinct"):
        s3_moe_slots.fill(4, 2, 3, 1.0)
