"""NCCL's choice: price every (algorithm, protocol) pair and keep the cheapest.

``topoGetAlgoInfo`` (``src/enqueue.cc`` of NCCL v2.30.7-1) prices each enabled pair
with :func:`~.tuner.estimate` and keeps the one with the smallest time, walking the
algorithms and protocols in id order and replacing the pick only on a strictly smaller
time ("table[a][p] < minTime"), so a tie goes to the earlier id. A caller may force an
algorithm or a protocol, as ``NCCL_ALGO`` and ``NCCL_PROTO`` do. The bandwidths of the
result are reported as nccl-tests reports them: ``algbw = S / time`` and
``busbw = algbw × factor`` (2(n−1)/n for all_reduce, (n−1)/n for all_gather and
reduce_scatter, 1 for broadcast and reduce).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.collectives.nccl.constants import Algorithm, Func, Protocol
from quizcoll.collectives.nccl.search import Graphs, graphs
from quizcoll.collectives.nccl.topology import NcclModelError, Topology
from quizcoll.collectives.nccl.tuner import ORDER, SIMPLE_ONLY, Estimate, estimate

MAX_BYTES = 2**50
_P2P = ("all_to_all", "scatter", "gather")


def func(name: str) -> Func:
    """The collective ``name`` as NCCL's tuner knows it; point-to-point ones are refused."""
    key = str(name).strip().lower().replace("-", "_")
    for f in Func:
        if f.value == key or f.name.lower().replace("_", "") == key.replace("_", ""):
            return f
    if key in _P2P:
        raise NcclModelError(
            f"NCCL has no tuner for {key}: it runs as grouped point-to-point send/recv; "
            f"the model covers {', '.join(f.value for f in Func)}"
        )
    raise NcclModelError(
        f"unknown collective {name!r}; choose one of {', '.join(f.value for f in Func)}"
    )


def _named(kind: str, enum: type, name: str | None) -> object:
    if name is None:
        return None
    key = str(name).strip().lower().replace("_", "").replace("-", "")
    for member in enum:
        if key in (member.value.lower(), member.name.lower().replace("_", "")):
            return member
    choices = ", ".join(m.value for m in enum)
    raise NcclModelError(f"unknown NCCL {kind} {name!r}; choose one of {choices}")


def algorithm(name: str | None) -> Algorithm | None:
    """``Ring``, ``nvls_tree``, ``CollNetDirect``…: NCCL's names, case and ``_`` free."""
    return _named("algorithm", Algorithm, name)  # type: ignore[return-value]


def protocol(name: str | None) -> Protocol | None:
    """``LL``, ``LL128`` or ``Simple`` (any case)."""
    return _named("protocol", Protocol, name)  # type: ignore[return-value]


def busbw_factor(f: Func, ranks: int) -> float:
    """nccl-tests' bus-bandwidth factor for the tuner's collectives."""
    if f is Func.ALL_REDUCE:
        return 2 * (ranks - 1) / ranks
    if f in (Func.ALL_GATHER, Func.REDUCE_SCATTER):
        return (ranks - 1) / ranks
    return 1.0


@dataclass(frozen=True)
class Choice:
    """What NCCL would run for one collective call, and every pair it weighed."""

    func: Func
    topology: Topology
    nbytes: int
    best: Estimate
    candidates: tuple[Estimate, ...]  # available ones fastest first, then the others

    @property
    def time_s(self) -> float:
        return self.best.time_us * 1e-6

    @property
    def algbw(self) -> float:
        """bytes/s: S / time."""
        return self.nbytes / self.time_s

    @property
    def busbw(self) -> float:
        """bytes/s: algbw × the nccl-tests factor."""
        return self.algbw * busbw_factor(self.func, self.topology.ranks)

    @property
    def graphs(self) -> Graphs:
        return graphs(self.topology)

    @property
    def best_name(self) -> str:
        """``Algorithm/Protocol`` of the pick, e.g. ``NVLS/Simple``."""
        return f"{self.best.entry.algorithm.value}/{self.best.entry.protocol.value}"


def _size(nbytes: int) -> int:
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or not 1 <= nbytes <= MAX_BYTES:
        raise NcclModelError(f"size must be a whole number of bytes from 1 to 2^50, got {nbytes}")
    return nbytes


def candidates(topo: Topology, f: Func, nbytes: int) -> tuple[Estimate, ...]:
    """Every pair priced at ``nbytes``, in NCCL's tuning-id order."""
    size = _size(nbytes)
    return tuple(estimate(topo, f, a, p, size) for a, p in ORDER)


def choose(
    collective: str | Func,
    nbytes: int,
    topo: Topology,
    *,
    algo: Algorithm | None = None,
    proto: Protocol | None = None,
) -> Choice:
    """NCCL's pick for ``collective`` of ``nbytes`` (nccl-tests S) on ``topo``; ``algo``
    and ``proto`` restrict the candidates like ``NCCL_ALGO``/``NCCL_PROTO``."""
    f = collective if isinstance(collective, Func) else func(collective)
    every = candidates(topo, f, nbytes)
    wanted = [
        e
        for e in every
        if (algo is None or e.entry.algorithm is algo)
        and (proto is None or e.entry.protocol is proto)
    ]
    allowed = [e for e in wanted if e.entry.available]
    if not allowed:
        forced = " ".join(x.value for x in (algo, proto) if x is not None)
        reasons = [e.entry.reason for e in wanted]
        if algo is None:  # a forced protocol: say why Ring/Tree cannot run it
            reasons.sort(key=lambda r: r.endswith(SIMPLE_ONLY))
        else:  # a forced algorithm: its last protocol (Simple) says the most
            reasons.reverse()
        detail = f": {reasons[0]}" if reasons else ""
        raise NcclModelError(f"no {forced} algorithm for {f.value} on this topology{detail}")
    # NCCL walks algorithm-major, protocol-minor and keeps a strictly faster pair: the
    # first minimum in id order
    best = min(allowed, key=lambda e: e.time_us)
    ranked = sorted(every, key=lambda e: (not e.entry.available, e.time_us, ORDER.index(_key(e))))
    return Choice(f, topo, nbytes, best, tuple(ranked))


def _key(e: Estimate) -> tuple[Algorithm, Protocol]:
    return e.entry.algorithm, e.entry.protocol
