"""Pipeline schedules simulated op by op, against Narayanan et al. (2021) and Qi et al. (2024)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.systems.errors import SystemsInputError
from quizcoll.systems.pipeline import Schedule, micro_batches_for_bubble, simulate

GPIPE, ONE_F, INTER, ZB = Schedule.GPIPE, Schedule.ONE_F_ONE_B, Schedule.INTERLEAVED, Schedule.ZB_H1


# (schedule, p, m, v, t_f, t_b, t_w, makespan from the papers' closed forms)
TABLE = [
    # GPipe and 1F1B: m(t_f + t_b) + (p − 1)(t_f + t_b)
    (GPIPE, 4, 8, 1, 1, 2, 0, 11 * 3),
    (ONE_F, 4, 8, 1, 1, 2, 0, 11 * 3),
    (ONE_F, 8, 16, 1, 1, 2, 0, 23 * 3),
    (ONE_F, 1, 5, 1, 1, 2, 0, 5 * 3),
    (ONE_F, 4, 2, 1, 1, 2, 0, 5 * 3),  # m < p: still (m + p − 1)(t_f + t_b)
    # 1F1B with the weight pass inside the backward: (m + p − 1)(t_f + t_b + t_w)
    (ONE_F, 4, 8, 1, 1, 1, 1, 11 * 3),
    # Interleaved: m(t_f + t_b) + (p − 1)(t_f + t_b)/v
    (INTER, 4, 8, 2, 1, 2, 0, 8 * 3 + 3 * 3 / 2),
    (INTER, 4, 4, 2, 1, 2, 0, 4 * 3 + 3 * 3 / 2),
    (INTER, 8, 16, 4, 1, 2, 0, 16 * 3 + 7 * 3 / 4),
    (INTER, 4, 8, 3, 1, 2, 0, 8 * 3 + 3 * 3 / 3),
    # ZB-H1: m(t_f + t_b + t_w) + (p − 1)(t_f + t_b − t_w): a third of 1F1B's bubble
    (ZB, 4, 8, 1, 1, 1, 1, 8 * 3 + 3 * 1),
    (ZB, 8, 16, 1, 1, 1.5, 0.5, 16 * 3 + 7 * 2),
]


@pytest.mark.parametrize(("schedule", "p", "m", "v", "tf", "tb", "tw", "makespan"), TABLE)
def test_makespan_matches_the_closed_form(schedule, p, m, v, tf, tb, tw, makespan) -> None:
    run = simulate(schedule, p, m, v, tf, tb, tw)
    assert run.makespan == pytest.approx(makespan, rel=1e-12)
    assert run.busy_time == pytest.approx(m * (tf + tb + tw))


def test_megatron_fractions() -> None:
    run = simulate(ONE_F, 4, 8)
    assert run.bubble_over_ideal == pytest.approx(3 / 8)  # (p − 1)/m
    assert run.bubble_over_total == pytest.approx(3 / 11)  # (p − 1)/(m + p − 1)
    inter = simulate(INTER, 4, 8, 2)
    assert inter.bubble_over_ideal == pytest.approx(3 / (2 * 8))  # (1/v)·(p − 1)/m
    assert inter.bubble_over_total == pytest.approx(3 / (2 * 8 + 3))


def test_zero_bubble_is_a_third_of_1f1b_when_the_passes_are_equal() -> None:
    one_f = simulate(ONE_F, 8, 32, t_forward=1, t_backward=1, t_weight=1)
    zb = simulate(ZB, 8, 32, t_forward=1, t_backward=1, t_weight=1)
    assert zb.bubble_time * 3 == pytest.approx(one_f.bubble_time)
    assert zb.peak_in_flight[0] == one_f.peak_in_flight[0] == 8  # same peak memory: p


@pytest.mark.parametrize(
    ("schedule", "p", "m", "v", "first", "last"),
    [
        (GPIPE, 4, 8, 1, 8, 8),  # every micro-batch stashed everywhere
        (ONE_F, 4, 8, 1, 4, 1),  # p on the first stage, 1 on the last
        (ONE_F, 8, 3, 1, 3, 1),  # fewer micro-batches than stages
        (INTER, 4, 8, 2, 11, 5),  # v·p + p − 1 = 11 chunk-micro-batches
        (INTER, 4, 4, 2, 8, 5),  # capped at v·m
    ],
)
def test_in_flight_activations(schedule, p, m, v, first, last) -> None:
    run = simulate(schedule, p, m, v)
    assert (run.peak_in_flight[0], run.peak_in_flight[-1]) == (first, last)


def test_interleaved_first_stage_holds_p_plus_p_minus_1_over_v() -> None:
    run = simulate(INTER, 8, 32, 4)
    assert run.first_stage_activation_units == pytest.approx(8 + 7 / 4)
    assert run.boundary_crossings == 4 * 8 - 1


def test_trace_is_kept_on_request() -> None:
    run = simulate(ONE_F, 2, 2, keep_ops=True)
    timeline = sorted((o.start, o.stage, o.kind, o.micro_batch) for o in run.ops)
    assert timeline[:3] == [(0.0, 0, "F", 0), (1.0, 0, "F", 1), (1.0, 1, "F", 0)]
    assert len(run.ops) == 2 * 2 * 2
    assert simulate(ONE_F, 2, 2).ops == ()


@settings(max_examples=40, deadline=None)
@given(p=st.integers(1, 12), m=st.integers(1, 40), tf=st.integers(1, 5), tb=st.integers(1, 9))
def test_1f1b_bubble_is_exact_for_any_shape(p: int, m: int, tf: int, tb: int) -> None:
    run = simulate(ONE_F, p, m, t_forward=tf, t_backward=tb)
    assert Fraction(run.bubble_time) == (p - 1) * (tf + tb)
    assert max(run.peak_in_flight) == min(p, m)


@settings(max_examples=30, deadline=None)
@given(p=st.integers(2, 8), j=st.integers(1, 4), v=st.integers(2, 4))
def test_interleaved_bubble_is_exact(p: int, j: int, v: int) -> None:
    run = simulate(INTER, p, p * j, v)
    assert run.bubble_time == pytest.approx((p - 1) * 3 / v, rel=1e-12)


@pytest.mark.parametrize(
    ("p", "target", "v", "m"),
    [(8, 0.1, 1, 63), (4, 0.25, 1, 9), (1, 0.01, 1, 1), (8, 0.05, 2, 72), (4, 0.5, 2, 4)],
)
def test_fewest_micro_batches(p: int, target: float, v: int, m: int) -> None:
    choice = micro_batches_for_bubble(p, target, v)
    assert choice.micro_batches == m
    assert choice.bubble_over_total <= target + 1e-12
    smaller = m - (p if v > 1 else 1)
    if smaller >= 1:  # one step fewer misses the target
        sched = INTER if v > 1 else ONE_F
        assert simulate(sched, p, smaller, v).bubble_over_total > target


@pytest.mark.parametrize(
    ("schedule", "p", "m", "v", "message"),
    [
        (INTER, 4, 6, 2, "multiple of stages"),
        (INTER, 4, 8, 1, "at least 2"),
        (ONE_F, 4, 8, 2, "only for the interleaved"),
        (ONE_F, 0, 8, 1, "stages must be at least 1"),
        (ONE_F, 64, 1024, 1, "too large"),
        (GPIPE, 65, 8, 1, "at most 64 stages"),
    ],
)
def test_refusals(schedule, p, m, v, message) -> None:
    with pytest.raises(SystemsInputError, match=message):
        simulate(schedule, p, m, v)


def test_bad_durations_and_targets() -> None:
    with pytest.raises(SystemsInputError, match="t_forward"):
        simulate(ONE_F, 2, 2, t_forward=0)
    with pytest.raises(SystemsInputError, match="t_weight"):
        simulate(ONE_F, 2, 2, t_weight=-1)
    with pytest.raises(SystemsInputError, match="target"):
        micro_batches_for_bubble(4, 1.0)
