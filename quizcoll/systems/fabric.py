"""A two-tier leaf–spine fabric: oversubscription and what it leaves a host for cross-leaf
traffic, by max–min fair water-filling over the fabric's links.

Each leaf switch has ``hosts`` host ports and ``uplinks`` uplinks (one to each spine), all
at ``link`` bytes/s per direction. :func:`permutation_rates` sends every host of leaf i to a
host of leaf i + leaves/2 (the bisection's worst case), spreads each flow evenly over the
uplinks (ideal ECMP: packet spraying or adaptive routing) or pins it to one hashed uplink,
and computes the max–min fair rates by progressive filling: raise every unfrozen flow's
rate together until a link saturates, freeze the flows on it, repeat.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from quizcoll.systems.errors import SystemsInputError, at_least, positive

MAX_HOSTS = 1024
MAX_UPLINKS = 128


def _fill(flows: list[dict[tuple, float]], capacity: dict[tuple, float]) -> list[float]:
    """Max–min fair rates of ``flows`` (each: link → share of the flow it carries)."""
    rates = [0.0] * len(flows)
    active = set(range(len(flows)))
    left = dict(capacity)
    while active:
        load: dict[tuple, float] = defaultdict(float)
        for f in active:
            for link, share in flows[f].items():
                load[link] += share
        step = min(left[link] / w for link, w in load.items() if w > 0)
        for f in active:
            rates[f] += step
        for link, w in load.items():
            left[link] -= step * w
        full = {link for link, w in load.items() if w > 0 and left[link] <= 1e-9 * capacity[link]}
        active = {f for f in active if not full.intersection(flows[f])}
    return rates


def permutation_rates(
    leaves: int,
    hosts: int,
    uplinks: int,
    link: float,
    *,
    hashed: bool = False,
    rng: np.random.Generator | None = None,
) -> list[float]:
    """Rates of the cross-bisection permutation: host h of leaf i sends to host h of leaf
    i + leaves/2. ``hashed``: each flow takes one uplink drawn by ``rng`` (ECMP's hash)."""
    at_least("leaves", leaves, 2)
    at_least("hosts", hosts, 1)
    at_least("uplinks", uplinks, 1)
    positive("link", link)
    if leaves % 2:
        raise SystemsInputError(f"leaves must be even to split the fabric in halves, got {leaves}")
    if leaves * hosts > MAX_HOSTS or uplinks > MAX_UPLINKS:
        raise SystemsInputError(f"at most {MAX_HOSTS} hosts and {MAX_UPLINKS} uplinks per leaf")
    if hashed and rng is None:
        raise SystemsInputError("hashed routing needs a random generator")
    capacity: dict[tuple, float] = {}
    for leaf in range(leaves):
        for h in range(hosts):
            capacity[("host-up", leaf, h)] = link
            capacity[("host-down", leaf, h)] = link
        for s in range(uplinks):
            capacity[("leaf-up", leaf, s)] = link
            capacity[("spine-down", s, leaf)] = link
    flows: list[dict[tuple, float]] = []
    for leaf in range(leaves):
        dst = (leaf + leaves // 2) % leaves
        for h in range(hosts):
            f: dict[tuple, float] = {("host-up", leaf, h): 1.0, ("host-down", dst, h): 1.0}
            spines = [int(rng.integers(uplinks))] if hashed and rng is not None else range(uplinks)
            share = 1.0 / len(spines)
            for s in spines:
                f[("leaf-up", leaf, s)] = f.get(("leaf-up", leaf, s), 0) + share
                f[("spine-down", s, dst)] = f.get(("spine-down", s, dst), 0) + share
            flows.append(f)
    return _fill(flows, capacity)


def cross_leaf_rate(leaves: int, hosts: int, uplinks: int, link: float) -> float:
    """The slowest host's rate in the bisection permutation with ideal spreading."""
    return min(permutation_rates(leaves, hosts, uplinks, link))
