"""The network witnesses against hand-counted cases, brute force and properties — never
against the calculators' formulas."""

from __future__ import annotations

import itertools

import pytest

from quizcoll.witnesses import net_collectives as nc
from quizcoll.witnesses import net_fabric as nf
from quizcoll.witnesses import net_link as nl
from quizcoll.witnesses.net_errors import NetWitnessError


def test_a_lane_sends_whole_blocks() -> None:
    # 16 bytes are one 128-bit payload: one 130-symbol block; 17 bytes need a second block
    assert nl.clocked_transfer(16, 1, 130.0, 128, 130).time_s == pytest.approx(1.0)
    assert nl.clocked_transfer(17, 1, 130.0, 128, 130).time_s == pytest.approx(2.0)


def test_lanes_share_the_pieces() -> None:
    one = nl.clocked_transfer(1 << 20, 1, 8e9).time_s
    four = nl.clocked_transfer(1 << 20, 4, 8e9).time_s
    assert four == pytest.approx(one / 4)
    # an odd piece count leaves one lane a piece more: slower than an even split
    assert nl.clocked_transfer(1 << 20, 4, 8e9, pieces=5).time_s > four


def test_chain_hand_counted() -> None:
    # 3 ranks, 2 chunks: hop 0 sends chunk 0 then 1; hop 1 sends chunk 0 after it arrives,
    # chunk 1 after hop 0 delivers it: three messages end to end
    t = nc.chain_broadcast_time(3, 2.0, 2, latency=1.0, bandwidth=1.0)
    assert t == pytest.approx(3 * (1.0 + 1.0))
    assert nc.chain_broadcast_time(2, 8.0, 1, 0.0, 2.0) == pytest.approx(4.0)


def test_switch_store_and_forward() -> None:
    run = nc.switch_all_reduce(4, 4.0, 4, latency=0.5, bandwidth=1.0)
    # up: chunk c lands at 0.5 + (c + 1); down follows one chunk behind, plus the latency
    assert run.time_s == pytest.approx(0.5 + 4 + 1 + 0.5)
    assert run.bytes_up == run.bytes_down == pytest.approx(4.0)


def test_straggler_hand_counted() -> None:
    run = nc.synchronous_steps(3, 1, compute=1.0, delay=0.5, comm=1.0, steps=2)
    # each step: two ranks wait 0.5 s; a step lasts 2.5 s
    assert run.idle_gpu_s == pytest.approx(2 * 2 * 0.5)
    assert run.idle_fraction == pytest.approx(1.0 / (3 * 2.5))
    assert nc.synchronous_steps(4, 0, 1.0, 9.0, 1.0).idle_gpu_s == 0


def _brute_min_cut(edges: dict[tuple[str, str], float], nodes: list[str]) -> float:
    best = float("inf")
    for sides in itertools.product((True, False), repeat=len(nodes)):
        inside = {"s"} | {n for n, side in zip(nodes, sides, strict=True) if side}
        best = min(best, sum(c for (a, b), c in edges.items() if a in inside and b not in inside))
    return best


@pytest.mark.parametrize(("hosts", "uplinks", "rate"), [(1, 1, 0.4), (2, 1, 0.3), (2, 1, 0.7)])
def test_leaf_spine_cut_against_every_cut(hosts: int, uplinks: int, rate: float) -> None:
    # two leaves; leaf 0's hosts send, leaf 1's receive; every link 1 each way
    edges: dict[tuple[str, str], float] = {}
    nodes = ["l0", "l1", *(f"p{s}" for s in range(uplinks))]
    for leaf in (0, 1):
        for h in range(hosts):
            host = f"h{leaf}{h}"
            nodes.append(host)
            edges[(host, f"l{leaf}")] = edges[(f"l{leaf}", host)] = 1.0
            edges[("s", host) if leaf == 0 else (host, "t")] = rate if leaf == 0 else 1e9
        for s in range(uplinks):
            edges[(f"l{leaf}", f"p{s}")] = edges[(f"p{s}", f"l{leaf}")] = 1.0
    senders = nf.np.array([True, False])
    got = nf.min_cut(2, hosts, uplinks, 1.0, rate, senders)
    assert got == pytest.approx(_brute_min_cut(edges, nodes))


def test_leaf_spine_rate_fits_and_no_more() -> None:
    # 2 hosts per leaf share 1 uplink: half the line each; full bisection with 2 uplinks
    assert nf.leaf_spine_cut(2, 2, 1, 1.0).host_rate == pytest.approx(0.5)
    assert nf.leaf_spine_cut(4, 4, 4, 1.0).host_rate == pytest.approx(1.0)
    run = nf.leaf_spine_cut(4, 8, 2, 10.0)
    senders = nf.np.arange(4) < 2
    demand = 2 * 8
    cut = nf.min_cut(4, 8, 2, 10.0, run.host_rate * 1.01, senders)
    assert cut < demand * run.host_rate * 1.01  # 1% more than the found rate does not fit


@pytest.mark.parametrize(("bins", "flows"), [(1, 3), (3, 4), (4, 2), (2, 5)])
def test_hash_occupancy_against_every_hash(bins: int, flows: int) -> None:
    hashes = list(itertools.product(range(bins), repeat=flows))
    mean = sum(len(set(h)) for h in hashes) / len(hashes)
    assert nf.hash_occupancy(bins, flows) == pytest.approx(mean)


def test_refusals() -> None:
    with pytest.raises(NetWitnessError):
        nf.leaf_spine_cut(3, 1, 1, 1.0)
    with pytest.raises(NetWitnessError):
        nl.clocked_transfer(0, 1, 1.0)
