"""Collectives stepped round by round on explicit ranks and links: the bytes each link
carries and the clock they run on, reached without the calculators' traffic factors.

- :func:`ring_reduce_scatter`: a ring reduce-scatter stepped chunk by chunk. Every rank
  holds its input cut into N chunks; in each step every rank passes one partial sum to
  its right neighbour, which adds its own chunk. The partial sums are tracked as the set
  of ranks they contain, so the run checks that each rank ends with the full sum of its
  chunk. The bytes each rank received are counted as they arrive, and the busiest link's
  bytes over the measured time are the rate that link ran at.
- :func:`rail_rings`: a large all-reduce on ``nodes × gpus_per_node`` GPUs, one ring per
  NIC (rail-aligned rings, as NCCL lays them across nodes). Each ring enters a node
  through one GPU's NIC, visits the node's GPUs over NVLink and leaves through the NIC of
  the last GPU it visits. Every step of the 2(N − 1)-step ring moves one chunk over every
  hop of every ring at once; each hop loads the links it crosses (NVLink out of a GPU; or
  PCIe out, NIC out, NIC in and PCIe in), and a step lasts as long as its most loaded link
  needs. The time is the sum of the steps, and the bus bandwidth nccl-tests would print
  follows from it.
- :func:`double_tree_rounds`: the (non-pipelined) double binary tree all-reduce built top
  down from ``ncclGetBtree``'s numbering (each inner rank's children at half its lowest
  set bit either side) and its mirror or shift, reduced up each tree as soon as a rank has
  heard from all its children and broadcast back down; each round priced for its busiest
  rank, α per peer it talks to plus its larger direction's bytes over the bandwidth.

Link figures come in as arguments (cited constants in the card), never from the tables the
calculators read.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from quizcoll.witnesses.net_errors import need

MAX_RING_RANKS = 1024
MAX_RAIL_GPUS = 4096
MAX_TREE_RANKS = 4096


@dataclass(frozen=True)
class ReduceScatterRun:
    steps: int
    max_bytes_received: float  # the busiest rank's inbound bytes over the whole run
    link_rate: float  # those bytes over the measured time


def ring_reduce_scatter(ranks: int, size: float, time: float) -> ReduceScatterRun:
    """Step a ring reduce-scatter of ``size`` bytes per rank (its whole input) on
    ``ranks`` ranks; the busiest rank's received bytes, and their rate over ``time``."""
    need(2 <= ranks <= MAX_RING_RANKS, f"ranks: between 2 and {MAX_RING_RANKS}")
    need(size > 0, f"size: {size} bytes is not positive")
    need(time > 0, f"time: {time} s is not positive")
    chunk = size / ranks
    # partial[r]: (chunk index, the ranks whose contribution it holds), the sum rank r
    # sends next; rank r starts with its own share of chunk r − 1
    partial = [((r - 1) % ranks, frozenset({r})) for r in range(ranks)]
    received = [0.0] * ranks
    steps = 0
    while any(len(held) < ranks for _, held in partial):
        steps += 1
        incoming = [partial[(r - 1) % ranks] for r in range(ranks)]
        for r, (index, held) in enumerate(incoming):
            received[r] += chunk
            partial[r] = (index, held | {r})  # adds its own share and passes it on
        need(steps <= ranks, "the ring did not converge")  # a bug, not an input
    for r, (index, held) in enumerate(partial):
        if index != r or len(held) != ranks:
            raise AssertionError(f"rank {r} ends with chunk {index} summed over {len(held)}")
    busiest = max(received)
    return ReduceScatterRun(steps, busiest, busiest / time)


@dataclass(frozen=True)
class RailRun:
    rings: int
    steps: int
    time_s: float
    busbw: float  # nccl-tests' all-reduce busbw at that time: 2(N − 1)/N · S / time
    nic_bytes: float  # bytes one NIC sent over the run


def rail_rings(
    nodes: int,
    gpus_per_node: int,
    size: float,
    nic_bandwidth: float,
    pcie_bandwidth: float,
    nvlink_bandwidth: float,
) -> RailRun:
    """Clock an all-reduce of ``size`` bytes over one ring per NIC, step by step."""
    need(nodes >= 2, "nodes: at least 2 (the rings must cross the network)")
    need(gpus_per_node >= 1, "gpus_per_node: at least 1")
    need(nodes * gpus_per_node <= MAX_RAIL_GPUS, f"at most {MAX_RAIL_GPUS} GPUs")
    need(size > 0, f"size: {size} bytes is not positive")
    for name, bw in (
        ("nic_bandwidth", nic_bandwidth),
        ("pcie_bandwidth", pcie_bandwidth),
        ("nvlink_bandwidth", nvlink_bandwidth),
    ):
        need(bw > 0, f"{name}: {bw} bytes/s is not positive")
    g = gpus_per_node
    n = nodes * g
    capacity = {"nvlink": nvlink_bandwidth, "pcie_out": pcie_bandwidth}
    capacity |= {"nic_out": nic_bandwidth, "nic_in": nic_bandwidth, "pcie_in": pcie_bandwidth}
    # ring c on every node: enters at GPU c (through its NIC), visits c, c+1, … over
    # NVLink, leaves from GPU c + g − 1 through that GPU's NIC to the next node's GPU c
    hops: list[list[tuple[str, int]]] = []  # per hop of every ring, the links it loads
    for c in range(g):
        order = [(node, (c + i) % g) for node in range(nodes) for i in range(g)]
        for k, (node, local) in enumerate(order):
            nxt_node, nxt_local = order[(k + 1) % len(order)]
            src, dst = node * g + local, nxt_node * g + nxt_local
            if nxt_node == node:
                hops.append([("nvlink", src)])
            else:
                hops.append(
                    [("pcie_out", src), ("nic_out", src), ("nic_in", dst), ("pcie_in", dst)]
                )
    rings = g
    chunk = size / (rings * n)  # each ring carries 1/rings of the buffer, cut in n chunks
    steps = 2 * (n - 1)  # reduce-scatter then all-gather around each ring
    time = 0.0
    nic_sent: dict[int, float] = defaultdict(float)
    # every step moves one chunk over every hop of every ring, so every step loads the
    # links alike: the load is tallied once and the clock run step by step
    load: dict[tuple[str, int], float] = defaultdict(float)
    for links in hops:
        for link in links:
            load[link] += chunk
    step_time = max(b / capacity[kind] for (kind, _), b in load.items())
    for _ in range(steps):
        time += step_time
        for (kind, gpu), b in load.items():
            if kind == "nic_out":
                nic_sent[gpu] += b
    busbw = size / time * 2 * (n - 1) / n
    return RailRun(rings, steps, time, busbw, max(nic_sent.values()))


def _btree_children(ranks: int) -> list[list[int]]:
    """Children of every rank in ``ncclGetBtree``'s tree, built top down: rank 0's one
    child is the largest power of two below N; an inner rank with lowest set bit b has
    children at r − b/2 and at r + b/2, or the nearest r + b/2^k that exists."""
    children: list[list[int]] = [[] for _ in range(ranks)]
    if ranks < 2:
        return children
    top = 1
    while top * 2 < ranks:
        top *= 2
    children[0].append(top)
    stack = [top]
    while stack:
        r = stack.pop()
        half = (r & -r) // 2
        if half == 0:
            continue
        kids = [r - half]
        step = half
        while step >= 1 and r + step >= ranks:
            step //= 2
        if step >= 1:
            kids.append(r + step)
        children[r].extend(kids)
        stack.extend(kids)
    return children


def _second_tree(children: list[list[int]]) -> list[list[int]]:
    """The mirror image (even N: r → N − 1 − r) or the shift by one (odd N)."""
    n = len(children)
    image = (lambda r: n - 1 - r) if n % 2 == 0 else (lambda r: (r + 1) % n)
    out: list[list[int]] = [[] for _ in range(n)]
    for r, kids in enumerate(children):
        out[image(r)] = [image(k) for k in kids]
    return out


@dataclass(frozen=True)
class TreeRounds:
    rounds: int
    time_s: float
    max_bytes_sent: float
    messages: int  # per round, the most peers one rank talks to in one direction, summed


def double_tree_rounds(ranks: int, size: float, latency: float, bandwidth: float) -> TreeRounds:
    """Step a non-pipelined double binary tree all-reduce of ``size`` bytes (half per
    tree) and price it round by round."""
    need(2 <= ranks <= MAX_TREE_RANKS, f"ranks: between 2 and {MAX_TREE_RANKS}")
    need(size > 0, f"size: {size} bytes is not positive")
    need(latency >= 0, f"latency: {latency} s is negative")
    need(bandwidth > 0, f"bandwidth: {bandwidth} bytes/s is not positive")
    one = _btree_children(ranks)
    trees = [one, _second_tree(one)]
    half = size / 2
    # round → list of (src, dst) transfers of half the buffer
    sends: dict[int, list[tuple[int, int]]] = defaultdict(list)
    reduce_rounds = 0
    plans = []
    for kids in trees:
        parent = {k: r for r, ks in enumerate(kids) for k in ks}
        root = next(r for r in range(ranks) if r not in parent)
        # up: a rank sends in the round after its last child's message arrived
        ready: dict[int, int] = {}

        def up(r: int, kids: list[list[int]] = kids, ready: dict[int, int] = ready) -> int:
            if r not in ready:
                ready[r] = max((up(k) + 1 for k in kids[r]), default=0)
            return ready[r]

        top = up(root)
        reduce_rounds = max(reduce_rounds, top)
        plans.append((kids, parent, root, ready))
    for kids, parent, root, ready in plans:
        for r, p in parent.items():
            sends[ready[r]].append((r, p))
        # down: the broadcast starts once both trees are reduced; depth d hears in round d
        frontier, d = [root], 0
        while frontier:
            nxt = []
            for r in frontier:
                for k in kids[r]:
                    sends[reduce_rounds + d].append((r, k))
                    nxt.append(k)
            frontier, d = nxt, d + 1
    rounds = max(sends) + 1
    time, sent, messages = 0.0, defaultdict(float), 0
    for rnd in range(rounds):
        pairs: dict[tuple[int, int], float] = defaultdict(float)
        for src, dst in sends.get(rnd, []):
            pairs[(src, dst)] += half
        out_b, in_b = defaultdict(float), defaultdict(float)
        out_m, in_m = defaultdict(int), defaultdict(int)
        for (src, dst), b in pairs.items():
            out_b[src] += b
            in_b[dst] += b
            out_m[src] += 1
            in_m[dst] += 1
            sent[src] += b
        busiest = 0.0
        messages += max(max(out_m.values(), default=0), max(in_m.values(), default=0))
        for r in set(out_b) | set(in_b):
            busiest = max(
                busiest,
                max(out_m[r], in_m[r]) * latency + max(out_b[r], in_b[r]) / bandwidth,
            )
        time += busiest
    return TreeRounds(rounds, time, max(sent.values()), messages)
