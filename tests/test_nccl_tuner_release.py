"""The tuner against figures derived by hand from NCCL v2.30.7-1's ``src/graph/tuning.cc``.

Each case fixes the searched graphs by hand (channels, bwIntra, bwInter), so the expected
latency and bandwidth follow from the source's arithmetic alone, worked out below in the
comments; none of them is computed by the code under test. Quotes are from tag v2.30.7-1
(commit 73cf112).
"""

from __future__ import annotations

import pytest

from quizcoll.collectives.nccl import Algorithm, Func, Protocol, entry, topology
from quizcoll.collectives.nccl.search import Graph, Graphs, Pattern
from quizcoll.collectives.nccl.tuner import estimate

A, P = Algorithm, Protocol


def _graphs(ch: int, intra: float, inter: float, *, one_node: bool, nvlink: bool = True) -> Graphs:
    ring = Graph(Pattern.RING, ch, intra, inter, one_node, nvlink)
    tree = Graph(Pattern.BALANCED_TREE, ch, intra, inter, one_node, nvlink)
    return Graphs(ring, tree, None, None, None)


def test_blackwell_two_nodes_ring_starts_from_bw_intra() -> None:
    # "float bw = nNodes <= 2 || collnet ? graphs[a]->bwIntra : graphs[a]->bwInter":
    # 2 × 8 B200, 16 channels at 40 (intra) / 20 (inter) GB/s: busBw = 16 × 40 = 640,
    # algBw = 640 × nRanks / nsteps = 640 × 16 / 30 = 341.33 GB/s (no compute-capability
    # condition in this release).
    # latency: base 8.4 + (30 − 2) × max(3.4 NVLink Ring Simple, 3 × 1.0 net overhead)
    #          + 2 × 14.0 (NET Ring Simple) = 8.4 + 95.2 + 28 = 131.6 µs
    topo = topology("b200", nodes=2)
    e = entry(topo, Func.ALL_REDUCE, A.RING, P.SIMPLE, _graphs(16, 40.0, 20.0, one_node=False))
    assert e.bus_bandwidth == pytest.approx(640.0)
    assert e.bandwidth == pytest.approx(341.333, rel=1e-4)
    assert e.latency_us == pytest.approx(131.6)


def test_more_than_two_nodes_ring_starts_from_bw_inter() -> None:
    # 4 × 8 B200: bw = bwInter = 20 → busBw 320, algBw = 320 × 32 / 62 = 165.16 GB/s;
    # latency 8.4 + (62 − 6) × 3.4 + 6 × 14 = 8.4 + 190.4 + 84 = 282.8 µs
    topo = topology("b200", nodes=4)
    e = entry(topo, Func.ALL_REDUCE, A.RING, P.SIMPLE, _graphs(16, 40.0, 20.0, one_node=False))
    assert e.bandwidth == pytest.approx(165.161, rel=1e-4)
    assert e.latency_us == pytest.approx(282.8)


def test_blackwell_two_nodes_tree() -> None:
    # Tree/Simple all-reduce, 2 × 8 B200: bw = bwIntra 40 → 640; "min(busBw * .92,
    # nChannels * perChMaxTreeBw)" = min(588.8, 16 × 42.8 = 684.8) = 588.8; algBw × .5 =
    # 294.4 GB/s. Latency: 8.4 + 2 × ((8 − 1) × 4.0 + log2i(2) × 14) = 8.4 + 84 = 92.4 µs.
    topo = topology("b200", nodes=2)
    e = entry(topo, Func.ALL_REDUCE, A.TREE, P.SIMPLE, _graphs(16, 40.0, 20.0, one_node=False))
    assert e.bandwidth == pytest.approx(294.4)
    assert e.latency_us == pytest.approx(92.4)


def test_two_node_pat_starts_from_bw_intra() -> None:
    # PAT all-gather, 2 nodes × 1 H100 (ppn = 1): 2 channels at 24 / 12 GB/s → bw = 24,
    # busBw = 48 × .75 = 36 GB/s, not converted for all-gather (only Ring/NVLS are).
    # latency: 8.0 + log2i(2) × 14 / 3.5 + 2 × 2.8 = 8 + 4 + 5.6 = 17.6 µs
    topo = topology("h100", nodes=2, gpus_per_node=1)
    g = _graphs(2, 24.0, 12.0, one_node=False)
    e = entry(topo, Func.ALL_GATHER, A.PAT, P.SIMPLE, g)
    assert e.bandwidth == pytest.approx(36.0)
    assert e.latency_us == pytest.approx(17.6)


def test_collnet_with_one_gpu_per_node_pays_the_tree_network_latency() -> None:
    # "With ppn=1 latencies are fully exposed, use the Tree network latency":
    # "float interLat = ppn == 1 ? ...hwLatencies[NCCL_HW_NET][NCCL_ALGO_TREE][p] :
    # ...hwLatencies[NCCL_HW_NET][a][p];" for every algorithm, CollNet included.
    # 4 nodes × 1 H100 with SHARP, Simple: NET Tree latency 14 (not CollNet's 30 / 31).
    # CollNetChain: "2 * (nRanks / nNodes - 1) * intraLat + interLat" = 0 + 14 = 14 µs;
    # CollNetDirect: "2 * (std::min(1, (nRanks / nNodes - 1)) * intraLat + (nRanks / nNodes
    # - 1) * 0.4) + interLat" = 2 × (0 + 0) + 14 = 14 µs
    topo = topology("h100", nodes=4, gpus_per_node=1, sharp=True)
    chain = entry(topo, Func.ALL_REDUCE, A.COLLNET_CHAIN, P.SIMPLE)
    direct = entry(topo, Func.ALL_REDUCE, A.COLLNET_DIRECT, P.SIMPLE)
    assert chain.available and direct.available
    assert chain.latency_us == pytest.approx(14.0)
    assert direct.latency_us == pytest.approx(14.0)
    # with 8 GPUs a node the CollNet figures hold: Chain 2 × 7 × 2.8 (NVLink) + 30
    eight = topology("h100", nodes=4, gpus_per_node=8, sharp=True)
    eight_chain = entry(eight, Func.ALL_REDUCE, A.COLLNET_CHAIN, P.SIMPLE)
    assert eight_chain.latency_us == pytest.approx(2 * 7 * 2.8 + 30)


def test_ring_plateau_only_for_multi_node_all_reduce() -> None:
    # "if (algorithm == RING && protocol == SIMPLE && nNodes > 1 && coll == AllReduce &&
    # nBytes / (nChannels * nRanks) >= 64) lat *= ... 1.4": a one-node Blackwell
    # all-gather keeps its latency (this release has no single-node plateau).
    one = topology("b200", nodes=1)
    g = _graphs(16, 40.0, 40.0, one_node=True)
    ag = estimate(one, Func.ALL_GATHER, A.RING, P.SIMPLE, 2**30, g)
    assert ag.latency_us == pytest.approx(ag.entry.latency_us)
    two = topology("b200", nodes=2)
    ar = estimate(
        two, Func.ALL_REDUCE, A.RING, P.SIMPLE, 2**30, _graphs(16, 40.0, 20.0, one_node=False)
    )
    assert ar.latency_us == pytest.approx(131.6 * 1.4)


def test_ll_and_ll128_refinements_one_node() -> None:
    # 1 × 8 H100, ring 16 channels at 20 GB/s: busBw 320.
    # LL: min(llMaxBw = 141 (Hopper N1), 320 × .5 = 160) = 141 → algBw = 141 × 8/14 = 80.57
    #     latency 6.6 + 14 × 0.6 = 15.0 µs (the notes' worked example)
    # LL128: min(320 × .92 = 294.4, 16 × 36.7 = 587.2) = 294.4 → algBw 168.23;
    #     latency 14.0 + 14 × 1.9 = 40.6 µs
    topo = topology("h100", nodes=1)
    g = _graphs(16, 20.0, 20.0, one_node=True)
    ll = entry(topo, Func.ALL_REDUCE, A.RING, P.LL, g)
    assert ll.bandwidth == pytest.approx(141 * 8 / 14)
    assert ll.latency_us == pytest.approx(15.0)
    ll128 = entry(topo, Func.ALL_REDUCE, A.RING, P.LL128, g)
    assert ll128.bandwidth == pytest.approx(294.4 * 8 / 14)
    assert ll128.latency_us == pytest.approx(40.6)


def test_blackwell_inter_speed_array_of_the_release() -> None:
    # search.cc v2.30.7-1: "sm100SpeedArrayInter[] = {96.0, 86.0, 80.0, 48.0, 45.1, ..."
    from quizcoll.collectives.nccl.constants import Arch, speeds

    assert speeds(Arch.BLACKWELL, network=True)[:4] == (96.0, 86.0, 80.0, 48.0)


def test_hopper_multi_node_runs_four_compute_channels_per_search_channel() -> None:
    # connect.cc: "nChannels = comm->nChannels = std::min(MAXCHANNELS, nChannels * 2)",
    # then "Use 4 compute channels per search channel to reach peak BW on <8 PPN":
    # "if (comm->minCompCap >= 90 && comm->nNodes > 1 && graphs[NCCL_ALGO_RING]->bwIntra >
    # 45.0 && nChannels < 16) … copyChannels(comm, nChannels, 2 * nChannels, …)".
    # 5 search channels at 48 GB/s: 10 channels, doubled to 20; at 24 GB/s (or on one
    # node, or on Ampere) it stays 10. The ring plateau reads this count: 2 × 8 ranks ×
    # 20 channels × 64 B = 20,480 B is the first size where Ring/Simple pays it.
    from dataclasses import replace

    from quizcoll.collectives.nccl.search import graphs

    g = _graphs(5, 48.0, 48.0, one_node=False)
    two = topology("h100", nodes=2, nic="ndr")
    doubled = replace(g, double_again=True)
    assert g.comm_channels == 10 and doubled.comm_channels == 20
    below = estimate(two, Func.ALL_REDUCE, A.RING, P.SIMPLE, 20_479, doubled)
    at = estimate(two, Func.ALL_REDUCE, A.RING, P.SIMPLE, 20_480, doubled)
    assert below.latency_us == pytest.approx(below.entry.latency_us)
    assert at.latency_us == pytest.approx(at.entry.latency_us * 1.4)
    # graphs() sets the flag from the rule's three conditions
    assert graphs(topology("h100", nodes=2, nic="ndr")).double_again  # 8 ch at 48 GB/s
    assert not graphs(topology("h100", nodes=1)).double_again
    assert not graphs(topology("a100", nodes=2, nic="hdr")).double_again
