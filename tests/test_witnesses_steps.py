"""The stepped collectives (quizcoll.witnesses.nccl_steps): each checked against figures
known apart from the calculators (small cases by hand, the published byte counts)."""

from __future__ import annotations

import pytest

from quizcoll.witnesses import nccl_steps as ns
from quizcoll.witnesses.net_errors import NetWitnessError


@pytest.mark.parametrize("ranks", [2, 3, 8, 64])
def test_ring_reduce_scatter_receives_n_minus_one_chunks(ranks: int) -> None:
    run = ns.ring_reduce_scatter(ranks, 1 << 20, 1e-3)
    assert run.steps == ranks - 1
    assert run.max_bytes_received == pytest.approx((ranks - 1) * (1 << 20) / ranks)
    assert run.link_rate == pytest.approx(run.max_bytes_received / 1e-3)


def test_rail_rings_bus_bandwidth_is_the_nics_when_nvlink_is_ample() -> None:
    run = ns.rail_rings(4, 8, 1 << 30, 50e9, 48e9, 370.8e9)
    assert run.rings == 8 and run.steps == 2 * 31
    assert run.busbw == pytest.approx(8 * 48e9)
    # a slow NVLink (7 rings cross each GPU's NVLink) becomes the limit instead
    slow = ns.rail_rings(4, 8, 1 << 30, 50e9, 48e9, 7 * 10e9)
    assert slow.busbw == pytest.approx(8 * 10e9)


@pytest.mark.parametrize(
    ("ranks", "rounds", "sent"), [(2, 2, 1), (8, 6, 2), (9, 8, 2), (296, 18, 2)]
)
def test_double_tree_rounds_and_bytes(ranks: int, rounds: int, sent: int) -> None:
    run = ns.double_tree_rounds(ranks, 1 << 20, 1e-6, 1e11)
    assert run.rounds == rounds
    # an inner rank of either tree sends its half up and down the other's: 2 × S; with two
    # ranks each sends one half up one tree and the other down the other: S
    assert run.max_bytes_sent == sent << 20
    assert run.time_s == pytest.approx(run.messages * (1e-6 + (1 << 19) / 1e11))


def test_refusals_are_value_errors() -> None:
    with pytest.raises(NetWitnessError):
        ns.ring_reduce_scatter(1, 1, 1.0)
    with pytest.raises(NetWitnessError):
        ns.rail_rings(1, 8, 1, 1.0, 1.0, 1.0)
    with pytest.raises(NetWitnessError):
        ns.double_tree_rounds(4, 1, 1e-6, 0.0)
