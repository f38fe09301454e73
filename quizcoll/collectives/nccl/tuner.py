"""NCCL's cost model: latency and bandwidth of every (algorithm, protocol) pair.

Mirrors ``ncclTopoTuneModel`` and ``ncclTopoGetAlgoTime`` in ``src/graph/tuning.cc`` of
the NCCL release v2.30.7-1 (NVIDIA/nccl tag ``v2.30.7-1``, commit 73cf112), and no other
version. For each pair the tuner fixes, at communicator creation, a latency (µs) and a
bandwidth (GB/s, already converted from bus to algorithm bandwidth); an operation of
``n`` bytes then costs ``latency + n / (1000 · bandwidth)`` µs (``ncclTopoGetAlgoTime``
with one pipelined operation), after the size-dependent corrections that
:func:`estimate` applies.

Every algorithm starts from ``nNodes <= 2 || collnet ? bwIntra : bwInter`` per channel
(tuning.cc: "float bw = nNodes <= 2 || collnet ? graphs[a]->bwIntra : graphs[a]->bwInter"),
Ring, Tree and PAT alike, whatever the GPU generation. ``n`` is the larger of a rank's
send and receive buffers (``ncclFuncMaxSendRecvCount``), the nccl-tests size S.

NVLS and NVLSTree are priced on the searched NVLS graph: its heads (``nChannels``) and
per-channel ``bwIntra``/``bwInter`` (tuning.cc:307-323). The CTAs and chunk sizes the NVLS
kernels run — ``ncclNvlsTuning`` with its Blackwell multi-node ``ncclNvlsTreeSm100Tuning``
(src/transport/nvls.cc:164-246) — are read by the enqueue (enqueue.cc:2084-2090,
2259-2285), never by these bandwidths, so they have no place here.

Left out: symmetric-memory and copy-engine kernels (they need registered buffers),
tuner plugins, ``NCCL_ALGO``/``NCCL_PROTO`` beyond the one algorithm and protocol a
caller may force, the fp8 precision penalty, and a network plugin's own latency
(``graphs[a]->latencyInter``, 0 for NCCL's built-in IB and socket transports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.collectives.nccl.constants import (
    BASE_LATENCY,
    HW_LATENCY,
    LL_MAX_BW,
    LL_MAX_BW_ROW_FOR_CPU,
    NET_OVERHEAD_US,
    NVLS_EFFICIENCY,
    PER_CH_MAX_NVLS_TREE_BW,
    PER_CH_MAX_RING_LL128_BW,
    PER_CH_MAX_TREE_BW,
    PER_CH_MAX_TREE_LL128_BW,
    TREE_CORRECTION,
    Algorithm,
    Factors,
    Func,
    Hw,
    Protocol,
)
from quizcoll.collectives.nccl.search import Graph, Graphs, Pattern, graphs
from quizcoll.collectives.nccl.topology import Topology

A, P = Algorithm, Protocol
F = Factors.read()  # the tuner's model refinements, quoted in nccl.yaml

# the order of NCCL's tuning ids (algorithm-major, protocol-minor): ties go to the later
ORDER: tuple[tuple[Algorithm, Protocol], ...] = tuple((a, p) for a in A for p in P)

SIMPLE_ONLY = "runs the Simple protocol only"


@dataclass(frozen=True)
class Entry:
    """One pair as the tuner sets it up for a collective (``generalLatencies`` and
    ``generalBandwidths``), or why it is not available (``reason``)."""

    algorithm: Algorithm
    protocol: Protocol
    latency_us: float = math.inf
    bandwidth: float = 0.0  # GB/s: bytes / (1000 · bandwidth) is µs
    bus_bandwidth: float = 0.0  # GB/s before the bus → algorithm conversion
    channels: int = 0
    reason: str = ""

    @property
    def available(self) -> bool:
        return not self.reason


def log2i(n: int) -> int:
    """NCCL's ``log2i``: ⌊log2 n⌋, and −1 for 0."""
    return n.bit_length() - 1


def nsteps(func: Func, ranks: int) -> int:
    """``ncclTuningGetNsteps``: ring steps of one operation."""
    if func is Func.ALL_REDUCE:
        return 2 * (ranks - 1)
    if func in (Func.ALL_GATHER, Func.REDUCE_SCATTER):
        return ranks - 1
    return ranks


def _scale(topo: Topology) -> int:
    """``index2``: 0 for one node, 1 for two, 2 beyond."""
    return min(topo.nodes, 3) - 1


def _ll_max_bw(topo: Topology) -> float:
    row = topo.arch if topo.nodes == 1 else LL_MAX_BW_ROW_FOR_CPU[topo.cpu]
    return LL_MAX_BW[row][_scale(topo)]


def _hw(graph: Graph, topo: Topology) -> tuple[Hw, Hw]:
    """``ncclTuningGetHwIndexes``: the intra- and inter-node hardware of a graph."""
    intra = Hw.NVLINK if graph.nvlink else Hw.PCI
    return intra, (intra if topo.nodes == 1 else Hw.NET)


def _net_latency(algo: Algorithm, proto: Protocol, topo: Topology) -> float:
    """The per-hop network latency of every algorithm (tuning.cc: "With ppn=1 latencies
    are fully exposed, use the Tree network latency": ``interLat = ppn == 1 ?
    hwLatencies[NCCL_HW_NET][NCCL_ALGO_TREE][p] : hwLatencies[NCCL_HW_NET][a][p]``)."""
    return HW_LATENCY[Hw.NET][A.TREE if topo.gpus_per_node == 1 else algo][proto]


def _start_bw(graph: Graph, topo: Topology) -> float:
    """The per-channel bandwidth every non-CollNet algorithm starts from (v2.30.7)."""
    return graph.bw_intra if topo.nodes <= 2 else graph.bw_inter


def _ll128_off(graph: Graph, topo: Topology) -> str:
    """``isLL128Enabled``: LL128 needs NVLink (or a lone GPU) inside the node."""
    if graph.nvlink or topo.gpus_per_node == 1:
        return ""
    return "LL128 needs NVLink between the GPUs of a node (disabled over PCIe)"


def _ring(func: Func, proto: Protocol, topo: Topology, g: Graphs) -> Entry:
    ring, s = g.ring, _scale(topo)
    if proto is P.LL128 and (off := _ll128_off(ring, topo)):
        return Entry(A.RING, proto, reason=off)
    bus = _start_bw(ring, topo) * ring.channels
    if proto is P.LL:
        bus = min(_ll_max_bw(topo), bus * F.ring_ll)
    if proto is P.LL128:
        bus = min(bus * F.ring_ll128, ring.channels * PER_CH_MAX_RING_LL128_BW[topo.arch][s])
    steps = nsteps(func, topo.ranks)
    intra_hw, inter_hw = _hw(ring, topo)
    intra_lat = HW_LATENCY[intra_hw][A.RING][proto]
    inter_lat = intra_lat if topo.nodes == 1 else _net_latency(A.RING, proto, topo)
    lat = BASE_LATENCY[A.RING][proto]
    if func in (Func.BROADCAST, Func.REDUCE):
        level = intra_hw if topo.nodes == 1 else inter_hw
        hop = HW_LATENCY[level][A.RING][proto]
        if ring.same_channels:
            lat += hop
        else:
            if proto is P.SIMPLE:  # chunk latency
                hop = HW_LATENCY[level][A.TREE][proto]
            lat += steps * hop
    else:
        overhead = 0.0
        if topo.nodes > 1:
            overhead = NET_OVERHEAD_US[topo.cpu] * (
                F.net_overhead_simple if proto is P.SIMPLE else 1
            )
        intra_lat = max(intra_lat, overhead)
        inter_steps = 0
        if topo.nodes > 1:
            inter_steps = 2 * (topo.nodes - 1) if func is Func.ALL_REDUCE else topo.nodes - 1
        lat += (steps - inter_steps) * intra_lat + inter_steps * inter_lat
    algbw = bus * topo.ranks / steps
    return Entry(A.RING, proto, lat, algbw, bus, ring.channels)


def _tree(func: Func, proto: Protocol, topo: Topology, g: Graphs) -> Entry:
    tree, s = g.tree, _scale(topo)
    if func is not Func.ALL_REDUCE:
        return Entry(A.TREE, proto, reason="Tree runs all_reduce only")
    if proto is P.LL128 and (off := _ll128_off(tree, topo)):
        return Entry(A.TREE, proto, reason=off)
    bus = _start_bw(tree, topo) * tree.channels
    bus = min(bus * F.tree, tree.channels * PER_CH_MAX_TREE_BW[topo.arch][s])
    if proto is P.LL:
        bus = min(bus / F.tree_ll_divisor, _ll_max_bw(topo))
    if proto is P.LL128:
        factor = F.tree_ll128_one_node if topo.nodes == 1 else F.tree_ll128_nodes
        bus = min(bus * factor, tree.channels * PER_CH_MAX_TREE_LL128_BW[topo.arch][s])
    if tree.pattern is Pattern.TREE:
        bus *= F.tree_pattern
    intra_hw, _ = _hw(tree, topo)
    intra_lat = HW_LATENCY[intra_hw][A.TREE][proto]
    inter_lat = intra_lat if topo.nodes == 1 else _net_latency(A.TREE, proto, topo)
    hops = (topo.gpus_per_node - 1) * intra_lat + log2i(topo.nodes) * inter_lat
    lat = BASE_LATENCY[A.TREE][proto] + 2 * hops
    return Entry(A.TREE, proto, lat, bus * 0.5, bus, tree.channels)


def _nvls(algo: Algorithm, func: Func, topo: Topology, g: Graphs) -> Entry:
    proto = P.SIMPLE
    nvls, s = g.nvls, _scale(topo)
    if nvls is None or nvls.channels < 2:
        why = "NVLink SHARP needs an sm_90+ GPU on NVSwitch with 2+ GPUs per node"
        return Entry(algo, proto, reason=why)
    if algo is A.NVLS_TREE and topo.nodes == 1:
        return Entry(algo, proto, reason="NVLSTree spans nodes (single node: NVLS)")
    if algo is A.NVLS_TREE and func is not Func.ALL_REDUCE:
        return Entry(algo, proto, reason="NVLSTree runs all_reduce only")
    if func not in (Func.ALL_REDUCE, Func.ALL_GATHER, Func.REDUCE_SCATTER):
        return Entry(algo, proto, reason="NVLS runs all_reduce, all_gather, reduce_scatter")
    if algo is A.NVLS and topo.nodes > 1 and not topo.sharp:
        why = "NVLS across nodes needs IB SHARP (CollNet); without it NCCL uses NVLSTree"
        return Entry(algo, proto, reason=why)
    ch = nvls.channels
    intra_bw = nvls.bw_intra * NVLS_EFFICIENCY[topo.arch] * (ch - 1) / ch
    if func is Func.ALL_REDUCE:
        intra_bw *= 2.0  # all-reduce pipelines a reduce and a multicast
    else:
        intra_bw *= (topo.gpus_per_node - 1) / topo.gpus_per_node
    inter_bw = nvls.bw_inter * (2 if topo.nodes <= 2 and algo is A.NVLS_TREE else 1)
    cap = PER_CH_MAX_NVLS_TREE_BW[topo.arch][s] if algo is A.NVLS_TREE else math.inf
    bus = min(intra_bw, inter_bw, cap) * ch
    algbw = bus * topo.ranks / nsteps(func, topo.ranks) if func is Func.ALL_REDUCE else bus
    intra_lat = HW_LATENCY[Hw.NVLINK][algo][proto]
    inter_lat = intra_lat if topo.nodes == 1 else _net_latency(algo, proto, topo)
    if algo is A.NVLS:
        lat = intra_lat + (inter_lat if topo.nodes > 1 else 0.0)
    else:
        lat = BASE_LATENCY[algo][proto] + intra_lat + 2 * log2i(topo.nodes) * inter_lat
    return Entry(algo, proto, lat, algbw, bus, ch)


def _collnet(algo: Algorithm, func: Func, topo: Topology, g: Graphs) -> Entry:
    proto = P.SIMPLE
    graph = g.collnet_direct if algo is A.COLLNET_DIRECT else g.collnet_chain
    if not topo.sharp or topo.nodes == 1 or graph is None or g.collnet_direct is None:
        return Entry(algo, proto, reason="CollNet needs IB SHARP (NCCL_COLLNET_ENABLE=1)")
    funcs = (Func.ALL_REDUCE,)
    if algo is A.COLLNET_DIRECT:
        funcs = (Func.ALL_REDUCE, Func.ALL_GATHER, Func.REDUCE_SCATTER)
    if func not in funcs:
        names = ", ".join(f.value for f in funcs)
        return Entry(algo, proto, reason=f"{algo.value} runs {names} only")
    if algo is A.COLLNET_DIRECT and topo.gpu.nvlink is None:
        return Entry(algo, proto, reason="CollNet Direct needs an NVSwitch system (nvsCount > 0)")
    ppn = topo.gpus_per_node
    if ppn > g.collnet_direct.channels:
        return Entry(algo, proto, reason="CollNet needs one NIC (head) per local GPU")
    if func is Func.ALL_REDUCE:
        bus = graph.channels * graph.bw_intra
        if algo is A.COLLNET_DIRECT:
            factor = ppn / graph.channels  # GPUs per NIC
            factor -= (factor - 1) / 2
            bus /= factor
            if topo.gpu.compute_capability >= 90:
                bus *= F.collnet_hopper
        algbw = bus * 0.5
    else:
        bus = ppn * min(graph.bw_intra, graph.bw_inter * F.collnet_ag_rs_net)
        algbw = bus
    intra_hw, _ = _hw(graph, topo)
    intra_lat = HW_LATENCY[intra_hw][algo][proto]
    inter_lat = _net_latency(algo, proto, topo)
    if algo is A.COLLNET_DIRECT:
        serial = min(1, ppn - 1) * intra_lat + (ppn - 1) * F.collnet_arity_us
        lat = 2 * serial + inter_lat
    else:
        lat = 2 * (ppn - 1) * intra_lat + inter_lat
    return Entry(algo, proto, lat, algbw, bus, graph.channels)


def _pat(func: Func, topo: Topology, g: Graphs) -> Entry:
    proto = P.SIMPLE
    if func not in (Func.ALL_GATHER, Func.REDUCE_SCATTER):
        return Entry(A.PAT, proto, reason="PAT runs all_gather and reduce_scatter only")
    if topo.gpus_per_node != 1:
        why = "PAT runs with one GPU per node (more is opt-in: NCCL_PAT_ENABLE=1)"
        return Entry(A.PAT, proto, reason=why)
    tree = g.tree
    bus = _start_bw(tree, topo) * tree.channels
    # PAT runs with one GPU per node, where latencies are fully exposed: the Tree's
    inter_lat = _net_latency(A.PAT, proto, topo)
    lat = (
        BASE_LATENCY[A.PAT][proto]
        + log2i(topo.nodes) * (inter_lat / F.pat_log_divisor)
        + topo.ranks * F.pat_per_rank_us
    )
    return Entry(A.PAT, proto, lat, bus * F.pat, bus, tree.channels)


def entry(
    topo: Topology, func: Func, algo: Algorithm, proto: Protocol, g: Graphs | None = None
) -> Entry:
    """The tuner's latency and bandwidth of one pair for ``func`` on ``topo``; ``g``: the
    searched graphs (by default :func:`~.search.graphs` of ``topo``)."""
    g = graphs(topo) if g is None else g
    if algo in (A.NVLS, A.NVLS_TREE, A.COLLNET_DIRECT, A.COLLNET_CHAIN, A.PAT):
        if proto is not P.SIMPLE:
            return Entry(algo, proto, reason=f"{algo.value} {SIMPLE_ONLY}")
        if algo in (A.NVLS, A.NVLS_TREE):
            return _nvls(algo, func, topo, g)
        if algo is A.PAT:
            return _pat(func, topo, g)
        return _collnet(algo, func, topo, g)
    if algo is A.RING:
        return _ring(func, proto, topo, g)
    return _tree(func, proto, topo, g)


@dataclass(frozen=True)
class Estimate:
    """One pair priced for one size: the time NCCL compares (µs)."""

    entry: Entry
    nbytes: int
    latency_us: float  # after the ring plateau correction
    bandwidth: float  # GB/s after the tree correction
    corrections: tuple[str, ...]

    @property
    def time_us(self) -> float:
        if not self.entry.available:
            return math.inf
        return self.latency_us + self.nbytes / (1000 * self.bandwidth)


def estimate(
    topo: Topology,
    func: Func,
    algo: Algorithm,
    proto: Protocol,
    nbytes: int,
    g: Graphs | None = None,
) -> Estimate:
    """``ncclTopoGetAlgoTime``: the pair's latency and bandwidth at ``nbytes``."""
    g = graphs(topo) if g is None else g
    e = entry(topo, func, algo, proto, g)
    if not e.available:
        return Estimate(e, nbytes, math.inf, 0.0, ())
    lat, bw, notes = e.latency_us, e.bandwidth, []
    log_size = log2i(nbytes >> 6)
    cc = topo.gpu.compute_capability
    if algo is A.TREE and 0 <= log_size < F.tree_correction_sizes:
        factor = TREE_CORRECTION[proto][log_size]
        bw *= factor
        notes.append(f"tree correction ×{factor:g} at log2(bytes/64) = {log_size}")
    blackwell_tree = algo is A.NVLS_TREE and func is Func.ALL_REDUCE and cc >= 100
    if blackwell_tree and 0 <= log_size < len(TREE_CORRECTION[proto]):
        factor = TREE_CORRECTION[proto][log_size]
        bw *= factor
        notes.append(f"NVLSTree correction ×{factor:g} at log2(bytes/64) = {log_size}")
    if algo is A.RING and proto is P.SIMPLE and topo.nodes > 1 and func is Func.ALL_REDUCE:
        per_channel = nbytes // (g.comm_channels * topo.ranks)
        if per_channel >= F.plateau_bytes:
            factor = F.ring_plateau_pre_sm80 if cc < 80 else F.ring_plateau
            lat *= factor
            notes.append(f"ring plateau: latency ×{factor:g}")
    return Estimate(e, nbytes, lat, bw, tuple(notes))
