"""A leaf–spine fabric's cross-half rate from its cuts, and how many uplinks hashed flows
reach, by counting hash functions.

:func:`leaf_spine_cut` builds the fabric's directed links (host ↔ leaf, leaf ↔ spine, each at
``link``) and asks how fast every host of one half can send to the other half at once. By
max-flow/min-cut that holds at rate r exactly when no s–t cut is smaller than the demand:
the source feeds each sending host at r, the receiving hosts drain into the sink. The cuts
are enumerated: every placement of the leaf switches on the source or sink side (numpy, one
row per placement); hosts and spines link only to leaves, so given the leaves each takes its
cheaper side on its own. The rate is then the largest r every cut carries, found by
bisection. Nothing here spreads flows or fills links (the calculator's water-filling).

:func:`hash_occupancy` counts, among all U^F ways to hash F flows onto U uplinks, how many use
exactly j uplinks (C(U, j) times the surjections of F flows onto j uplinks, by
inclusion–exclusion), and averages j over them, exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from quizcoll.witnesses.net_errors import need

MAX_LEAVES = 16  # 2^16 placements of the leaves
SEARCH_STEPS = 200  # bisection halvings: far past double precision
MAX_FLOWS = 4096
MAX_BINS = 4096


@dataclass(frozen=True)
class CutRun:
    host_rate: float  # the rate every host of a half can send across at once
    one_way: float  # a half's hosts together, one direction
    aggregate: float  # both halves sending at once (opposite directed links)


def _placements(leaves: int) -> np.ndarray:
    """Every subset of the leaves on the source side, one boolean row each."""
    codes = np.arange(1 << leaves)[:, None]
    return ((codes >> np.arange(leaves)[None, :]) & 1).astype(bool)


def min_cut(
    leaves: int, hosts: int, uplinks: int, link: float, rate: float, senders: np.ndarray
) -> float:
    """The smallest s–t cut when the hosts of the leaves marked in ``senders`` each get
    ``rate`` from the source and the other leaves' hosts drain into the sink."""
    source_side = _placements(leaves)
    sink_side = ~source_side
    # a sending host: on the source side it cuts its uplink if its leaf is not; on the sink
    # side it cuts its feed (rate) and its downlink if its leaf is on the source side
    send_cost = np.minimum(np.where(sink_side, link, 0.0), rate + np.where(source_side, link, 0.0))
    # a receiving host stays on the sink side (its drain is unbounded): it cuts its downlink
    # when its leaf is on the source side
    recv_cost = np.where(source_side, link, 0.0)
    hosts_cost = hosts * np.where(senders[None, :], send_cost, recv_cost).sum(axis=1)
    # a spine on the source side cuts its downlinks to sink-side leaves; on the sink side
    # the uplinks of source-side leaves
    spine_cost = link * np.minimum(sink_side.sum(axis=1), source_side.sum(axis=1))
    return float((hosts_cost + uplinks * spine_cost).min())


def _largest_rate(leaves: int, hosts: int, uplinks: int, link: float, senders: np.ndarray) -> float:
    demand_hosts = hosts * int(senders.sum())
    lo, hi = 0.0, 2.0 * link
    for _ in range(SEARCH_STEPS):
        mid = (lo + hi) / 2
        if min_cut(leaves, hosts, uplinks, link, mid, senders) >= demand_hosts * mid * (1 - 1e-12):
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return lo


def leaf_spine_cut(leaves: int, hosts: int, uplinks: int, link: float) -> CutRun:
    """Every host of the first half of the leaves sending to the second half, and back."""
    need(2 <= leaves <= MAX_LEAVES and leaves % 2 == 0, f"leaves: even, 2 to {MAX_LEAVES}")
    need(hosts >= 1 and uplinks >= 1, "hosts, uplinks: at least one")
    need(link > 0, "link: positive")
    first = np.arange(leaves) < leaves // 2
    there = _largest_rate(leaves, hosts, uplinks, link, first)
    back = _largest_rate(leaves, hosts, uplinks, link, ~first)
    half = hosts * leaves // 2
    return CutRun(min(there, back), half * there, half * there + half * back)


def hash_occupancy(bins: int, flows: int) -> float:
    """Expected number of the ``bins`` uplinks that ``flows`` uniformly hashed flows use."""
    need(1 <= bins <= MAX_BINS, f"bins: between 1 and {MAX_BINS}")
    need(0 <= flows <= MAX_FLOWS, f"flows: between 0 and {MAX_FLOWS}")

    def onto(j: int) -> int:  # hash functions of the flows onto exactly j given uplinks
        return sum((-1) ** i * comb(j, i) * (j - i) ** flows for i in range(j + 1))

    counts = {j: comb(bins, j) * onto(j) for j in range(min(bins, flows) + 1)}
    total = sum(counts.values())
    return float(Fraction(sum(j * c for j, c in counts.items()), total))
