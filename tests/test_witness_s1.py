"""The ZeRO model-state witness (quizcoll.witnesses.s1_zero) held to the ZeRO paper's printed
figures, to a value-by-value assignment of small buffers, and to its registration.

Rajbhandari et al. 2020 (ZeRO), Figure 1: Ψ = 7.5B, N_d = 64, K = 12, per device Baseline
120GB, P_os 31.4GB, P_os+g 16.6GB, P_os+g+p 1.9GB (printed to 0.1 GB); §1 and §5: P_os is a
4x memory reduction and P_os+g an 8x one at large N_d.
"""

from __future__ import annotations

import pytest

from quizcoll.witnesses import s1_zero

ADAM = {"weights": (2.0,), "gradients": (2.0,), "optimizer_states": (4.0, 4.0, 4.0)}


@pytest.mark.parametrize(("stage", "printed_gb"), [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_the_paper_figure_one(stage, printed_gb):
    held = s1_zero.rank_states(7_500_000_000, 64, stage, ADAM)
    assert held.total / 1e9 == pytest.approx(printed_gb, abs=0.05)


@pytest.mark.parametrize(("stage", "reduction"), [(1, 4), (2, 8)])
def test_the_papers_four_and_eight_times_at_large_data_parallelism(stage, reduction):
    base = s1_zero.rank_states(10**9, 1, 0, ADAM).total
    held = s1_zero.rank_states(10**9, 4096, stage, ADAM).total
    assert round(base / held) == reduction


def test_stage_three_divides_everything_by_the_ranks():
    base = s1_zero.rank_states(8 * 10**9, 1, 0, ADAM).total
    assert s1_zero.rank_states(8 * 10**9, 64, 3, ADAM).total * 64 == base


@pytest.mark.parametrize(("params", "ranks"), [(10, 4), (7, 7), (5, 8), (1000, 3)])
def test_rank_zero_holds_the_values_assigned_to_it_one_by_one(params, ranks):
    # Hand values out in rank order, each rank taking an equal share of the padded buffer.
    padded = params
    while padded % ranks:
        padded += 1
    owner = [i // (padded // ranks) for i in range(padded)]
    held = s1_zero.rank_states(params, ranks, 3, ADAM)
    per_value = sum(sum(w) for w in ADAM.values())
    assert held.total == owner.count(0) * per_value
    spans = s1_zero.ranges(params, ranks)
    assert [sum(1 for o in owner if o == r) for r in range(ranks)] == [e - s for s, e in spans]


def test_a_replicated_kind_is_whole_on_every_rank():
    held = s1_zero.rank_states(1000, 8, 1, ADAM)
    assert held.bytes_of("weights") == 2000
    assert held.bytes_of("gradients") == 2000
    assert held.bytes_of("optimizer_states") == 125 * 12
    assert len(held.held) == 5


@pytest.mark.parametrize(
    ("params", "ranks", "stage", "widths"),
    [
        (0, 1, 0, ADAM),
        (10, 0, 0, ADAM),
        (10, 1, 4, ADAM),
        (10, 1, 0, {"weights": (2.0,)}),
        (10, 1, 0, {**ADAM, "gradients": (0.0,)}),
    ],
)
def test_bad_arguments_are_refused(params, ranks, stage, widths):
    with pytest.raises(ValueError):
        s1_zero.rank_states(params, ranks, stage, widths)


def test_the_registered_witness_enumerates_and_agrees_with_the_module():
    from deck.cards.registry import Derivation
    from quizcoll.executables import build_registry

    registry = build_registry()
    assert registry.derivation("witness.zero_states")[0] is Derivation.ENUMERATED
    out = registry.call(
        "witness.zero_states",
        {
            "params": 7_500_000_000,
            "gpus": 64,
            "zero_stage": 2,
            "weights": 2,
            "gradients": 2,
            "optimizer_states": 4,
            "optimizer_tensors": 3,
        },
    )
    assert out["total"] / 1e9 == pytest.approx(16.6, abs=0.05)
    assert out["unpartitioned_total"] / 1e9 == pytest.approx(120, abs=0.05)
    assert out["tensors"] == 5
