"""NCCL's channel search (``ncclTopoCompute``, ``src/graph/search.cc``) for symmetric nodes.

NCCL searches, per pattern (ring, tree, NVLS, CollNet), how many channels it can lay over
the topology at a per-channel bandwidth taken from a speed array, fastest first. Each
channel consumes that bandwidth on every link it crosses; the search keeps the graph with
the most ``channels × bandwidth``. The result, ``(nChannels, bwIntra, bwInter)``, is what
the tuner multiplies into its bus bandwidth.

NCCL does this with a depth-first search over GPU orders. On the symmetric servers this
model covers (all GPUs alike, every NIC alike), how many channels fit at a speed has a
closed form, so :func:`_capacity` counts them directly, and :func:`_search` replays
NCCL's passes around it:

1. start at the fastest speed ≤ the best path bandwidth (``maxBw``) whose
   ``speed × minChannels`` fits ``totalBw`` (× n/(n−1) for non-ring patterns);
2. walk down the array while the next speed is more than 0.49 of the best graph's,
   keeping a graph only if it is better; stop at a perfect graph (``maxChannels``) or
   once ``channels × bwInter ≥ totalBw``;
3. duplicate channels at half bandwidth (``ncclTopoDupChannels``) when the speed is at
   least 25 GB/s (and, after Ampere, at least 50 GB/s or at most 4 channels);
4. walk back up: a ring raises both speeds, NVLS first raises ``bwInter`` (up to twice
   ``bwIntra``), the others raise ``bwIntra`` up to twice ``bwInter``, keeping a graph
   only if it is better with at least as many channels.

What it leaves out (documented in docs/collectives.md): asymmetric servers, search
timeouts, PCIe-switch sharing between GPUs, cross-NIC rings, and NCCL_GRAPH_FILE.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass

from quizcoll.collectives.nccl.constants import (
    MAX_DIRECT_ARITY,
    MAX_NVLS_ARITY,
    MAX_RING_CHANNELS,
    MAXCHANNELS,
    Arch,
    speeds,
)
from quizcoll.collectives.nccl.topology import Topology
from quizcoll.memory.figures import printed

# float noise: NCCL rounds link budgets to 1/1000 (SUB_ROUND), so exact fits must fit
_EPS = 1e-6
# The search's thresholds, quoted in nccl.yaml. A speed whose ratio to the best graph's is
# at most this ends the downward walk:
_KEEP_DESCENDING = printed("nccl", "nccl_search_keep_descending")
# ncclTopoDupChannels thresholds, GB/s, and the channel count above which the faster one bites
_DUP_MIN_BW = printed("nccl", "nccl_dup_min_bw", "GB/s")
_DUP_FAST_BW = printed("nccl", "nccl_dup_fast_bw", "GB/s")
_DUP_FAST_CHANNELS = int(printed("nccl", "nccl_dup_fast_channels"))
# connect.cc's second doubling: sm_90+, nNodes > 1, ring bwIntra > 45.0, nChannels < 16
_DOUBLE_BW = printed("nccl", "nccl_double_bw", "GB/s")
_DOUBLE_BELOW = int(printed("nccl", "nccl_double_below"))


class Pattern(enum.Enum):
    """``NCCL_TOPO_PATTERN_*``: the shape a channel takes inside a node."""

    BALANCED_TREE = 1
    TREE = 3
    RING = 4
    NVLS = 5
    COLLNET_DIRECT = 6


@dataclass(frozen=True)
class Graph:
    """One searched graph: ``channels`` parallel channels at ``bw_intra`` GB/s inside a
    node and ``bw_inter`` GB/s across the network (per channel)."""

    pattern: Pattern
    channels: int
    bw_intra: float
    bw_inter: float
    same_channels: bool  # every channel takes the same GPU order (single node)
    nvlink: bool  # typeIntra is NVLink (else PCIe, or a single GPU)

    @property
    def bandwidth(self) -> float:
        """``channels × bw_intra``: what the search maximises (GB/s)."""
        return self.channels * self.bw_intra


@dataclass(frozen=True)
class Graphs:
    """The graphs the tuner reads (``comm->graphs``); ``None`` where NCCL builds none."""

    ring: Graph
    tree: Graph
    nvls: Graph | None
    collnet_direct: Graph | None
    collnet_chain: Graph | None
    # connect.cc doubles the channels once more on sm_90+ across nodes when the ring's
    # bwIntra is above 45 GB/s and fewer than 16 channels run (set by :func:`graphs`)
    double_again: bool = False

    @property
    def comm_channels(self) -> int:
        """Channels a ring/tree collective runs on (``comm->nChannels``, connect.cc):
        twice the search channels, at most ``MAXCHANNELS``, then twice again where
        :attr:`double_again` ("Use 4 compute channels per search channel to reach peak
        BW on <8 PPN")."""
        n = min(2 * min(self.ring.channels, self.tree.channels), MAXCHANNELS)
        return 2 * n if self.double_again and n < _DOUBLE_BELOW else n


def _fits(budget: float, per_channel: float) -> int:
    """How many channels of ``per_channel`` GB/s a ``budget`` GB/s link carries."""
    return math.floor(budget / per_channel + _EPS)


def _capacity(pattern: Pattern, topo: Topology, intra: float, inter: float) -> int:
    """Channels that fit at ``intra``/``inter`` GB/s per channel (before the caps)."""
    g = topo.gpus_per_node
    if pattern is Pattern.NVLS:
        # a head GPU carries twice its channel (multicast up and down), the others once:
        # after c channels the heads hold (c + 1)·s of their NVLink budget
        heads = g if topo.nodes == 1 else min(g, topo.nics_per_node)
        fit = min(heads, _fits(topo.intra_bw, intra) - 1)
        if topo.nodes > 1 and inter > topo.nic_path_bw + _EPS:
            return 0
        return max(fit, 0)
    if pattern is Pattern.COLLNET_DIRECT:
        # a head sends s to the switch plus s/(g−1) for every other head's channel
        heads = min(g, topo.nics_per_node, MAX_DIRECT_ARITY + 1)
        if inter > topo.nic_path_bw + _EPS:
            return 0
        if g == 1:
            return heads
        extra = (topo.intra_bw / intra - 1) * (g - 1)
        return max(0, min(heads, 1 + math.floor(extra + _EPS)))
    if topo.nodes == 1:
        # every GPU sends one hop per channel on its NVLink (or PCIe) budget
        return _fits(topo.intra_bw, intra)
    # each NIC starts floor(path/s) channels; inside the node a channel crosses g − 1
    # NVLink hops spread over g GPUs (on PCIe-only nodes every GPU sends once)
    net = topo.nics_per_node * _fits(topo.nic_path_bw, inter)
    if g == 1:
        return net
    if topo.nvlink:
        return min(net, _fits(topo.intra_bw * g / (g - 1), intra))
    return min(net, _fits(topo.intra_bw, max(intra, inter)))


def _better(new: Graph, ref: Graph | None, gpus: int) -> bool:
    """``ncclTopoCompareGraphs``: more ``channels × bw_intra`` wins (NVLS: more channels,
    up to one per GPU, or more ``channels × bw_inter``)."""
    if ref is None:
        return True
    if new.pattern is Pattern.NVLS:
        more = new.channels > ref.channels and new.channels <= gpus
        return more or new.channels * new.bw_inter > ref.channels * ref.bw_inter
    return new.bandwidth > ref.bandwidth


@dataclass(frozen=True)
class _Bounds:
    min_channels: int
    max_channels: int


def _candidate(
    pattern: Pattern, topo: Topology, intra: float, inter: float, bounds: _Bounds
) -> Graph | None:
    n = min(_capacity(pattern, topo, intra, inter), bounds.max_channels)
    if n < max(bounds.min_channels, 1):
        return None
    return Graph(pattern, n, intra, inter, topo.nodes == 1, topo.nvlink)


def _dup(graph: Graph, arch: Arch, max_channels: int) -> Graph:
    """``ncclTopoDupChannels``: twice the channels at half the bandwidth each."""
    if graph.pattern is Pattern.NVLS or graph.bw_intra < _DUP_MIN_BW:
        return graph
    after_ampere = arch in (Arch.HOPPER, Arch.BLACKWELL)  # ccMin > 80
    if after_ampere and graph.bw_intra < _DUP_FAST_BW and graph.channels > _DUP_FAST_CHANNELS:
        return graph
    dup = min(2 * graph.channels, max_channels)
    split = math.ceil(dup / graph.channels)
    return Graph(
        graph.pattern,
        dup,
        graph.bw_intra / split,
        graph.bw_inter / split,
        graph.same_channels,
        graph.nvlink,
    )


def _search(pattern: Pattern, topo: Topology, bounds: _Bounds) -> Graph | None:
    """NCCL's two passes over the speed array (see the module docstring)."""
    array = speeds(topo.arch, network=topo.nodes > 1)
    g = topo.gpus_per_node
    max_bw = topo.nic_path_bw if topo.nodes > 1 else topo.intra_bw
    total = topo.total_bw
    scaled = total * g / (g - 1) if g > 1 and pattern is not Pattern.RING else total
    i = 0
    while i < len(array) - 1 and (array[i] > max_bw or array[i] * bounds.min_channels > scaled):
        i += 1
    best: Graph | None = None
    while True:  # pass 1: walk down the speeds
        found = _candidate(pattern, topo, array[i], array[i], bounds)
        if found is not None and _better(found, best, g):
            best = found
            if found.channels == bounds.max_channels:
                break  # a perfect graph ends the search
        if best is not None and best.channels * best.bw_inter >= total:
            break
        if i < len(array) - 1 and (best is None or array[i + 1] / best.bw_inter > _KEEP_DESCENDING):
            i += 1
            continue
        break
    if best is None:
        return None
    best = _dup(best, topo.arch, bounds.max_channels)
    i = 0
    while i < len(array) - 1 and array[i] > best.bw_inter:
        i += 1
    intra = inter = array[i]
    bounds = _Bounds(best.channels, bounds.max_channels)
    while i > 0:  # pass 2: walk back up while the channels still fit
        if pattern is Pattern.RING:
            i -= 1
            intra = inter = array[i]
        elif pattern is Pattern.NVLS and inter == best.bw_inter and inter < 2 * intra:
            bounds = _Bounds(best.channels, best.channels)
            i -= 1
            inter = array[i]
        elif intra == best.bw_intra and intra < 2 * inter:
            i -= 1
            intra = array[i]
        else:
            break
        found = _candidate(pattern, topo, intra, inter, bounds)
        if found is not None and _better(found, best, g):
            best = found
    return best


# NCCL's fallback when no channel fits: one channel at 0.1 GB/s in PCI order
_FALLBACK_BW = printed("nccl", "nccl_fallback_bw", "GB/s")


def _searched(pattern: Pattern, topo: Topology, bounds: _Bounds) -> Graph:
    found = _search(pattern, topo, bounds)
    if found is None:
        return Graph(pattern, 1, _FALLBACK_BW, _FALLBACK_BW, topo.nodes == 1, topo.nvlink)
    return found


@functools.lru_cache(maxsize=256)
def graphs(topo: Topology) -> Graphs:
    """Every graph NCCL builds for ``topo`` (init.cc: ring first; the trees and the
    CollNet chain take exactly the ring's channel count)."""
    ring = _searched(Pattern.RING, topo, _Bounds(1, MAX_RING_CHANNELS))
    tree_pattern = Pattern.TREE if topo.gpus_per_node == 1 else Pattern.BALANCED_TREE
    same = _Bounds(ring.channels, ring.channels)
    tree = _searched(tree_pattern, topo, same)
    nvls = None
    if topo.nvls:
        arity = min(MAX_NVLS_ARITY, topo.gpus_per_node)
        # a single node forces NVLS to pull evenly from every GPU (min = max channels)
        nvls = _search(Pattern.NVLS, topo, _Bounds(arity if topo.nodes == 1 else 1, arity))
    direct = chain = None
    if topo.sharp and topo.nodes > 1:
        arity = min(MAX_DIRECT_ARITY + 1, topo.gpus_per_node)
        direct = _search(Pattern.COLLNET_DIRECT, topo, _Bounds(1, arity))
        chain = _search(Pattern.TREE, topo, same)
    hopper_on = topo.arch in (Arch.HOPPER, Arch.BLACKWELL)  # minCompCap >= 90
    again = hopper_on and topo.nodes > 1 and ring.bw_intra > _DOUBLE_BW
    return Graphs(ring, tree, nvls, direct, chain, double_again=again)
