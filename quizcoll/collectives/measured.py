"""The measured model: what nccl-tests will print, not what NCCL's tuner estimates.

NCCL's tuner (:mod:`.nccl`) prices a call as ``latency + S / bandwidth`` to *choose* an
algorithm; a real run also pays a launch, a proxy/network overhead per network step, and
the pipeline's fill before the first chunk reaches the far end. The measured model keeps
the tuner's choice and prices it as

    t = launch + k_lat · latency + S / bandwidth_as_run + step · network_steps
        + k_fill[family] · fill

with the tuner's own latency of its pick, its bandwidth with the tuner's per-channel
caps counted on the channels the kernels run (:func:`as_run_bandwidth`: derived from
NCCL's source, no coefficient; it can make a run *faster* than the tuner's estimate),
``fill = depth · min(chunk, S/channels) / channel bandwidth`` (``depth``: the pipeline's
stages — 2·(chain + log2 nodes) tree hops, 2 for NVLS) and ``network_steps`` the pick's
network crossings. The fill has one coefficient per pipelined family (:data:`FAMILIES`:
Tree; NVLS, NVLSTree and the other switch-assisted algorithms), because the two fill
differently: a tree's hops each forward a whole chunk; an NVLS pipeline (reduce-scatter
through the switch, then the network tree for NVLSTree, then the all-gather) waits a
chunk at each of its stages before the switch streams. A ring has no fill: every rank
holds data and sends its first chunk at once, so every link is busy from the first step
and the bandwidth term already counts all 2(n−1) steps (its per-step cost is in the
latency term). The five coefficients and the chunk are fitted by
:func:`fit` to the published sweeps of ``data/nccl_tests_published.yaml`` on InfiniBand
and RoCE (least squares on the relative error, every coefficient ≥ 0, the chunk on a
grid). :func:`errors` judges every row with the model fitted to the *other* groups of
systems (leave one cluster out: the held-out error) or to all of them, and
:func:`summary` splits the errors by size class; :func:`per_system` by system.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from quizcoll.collectives import nccl
from quizcoll.collectives.nccl import Algorithm, Func, Topology
from quizcoll.collectives.nccl.tuner import log2i
from quizcoll.collectives.published import Row, System, systems

KIB, MIB = 2**10, 2**20
CHUNKS = tuple(2**k for k in range(12, 27))  # 4 KiB … 64 MiB
SIZE_CLASSES: tuple[tuple[str, int, int], ...] = (
    ("< 64 KiB", 0, 64 * KIB),
    ("64 KiB – 1 MiB", 64 * KIB, MIB),
    ("1 – 16 MiB", MIB, 16 * MIB),
    ("16 – 256 MiB", 16 * MIB, 256 * MIB),
    ("≥ 256 MiB", 256 * MIB, 2**62),
)
# The shared fit learns from these transports; a system on another one (Google's
# GPUDirect-TCPXO) is only judged, never fitted: NCCL's network constants describe IB.
FITTED_TRANSPORTS = ("ib", "roce")
FAMILIES = ("tree", "nvls")  # the fill's coefficient per pipelined family (rings: none)
COLUMNS = ("launch", "latency", "network_steps", *(f"fill_{f}" for f in FAMILIES))


@dataclass(frozen=True)
class Params:
    """Fitted coefficients: launch (µs), latency scale, µs per network step, the fill's
    scale for Tree and NVLS-family picks, and the pipeline chunk (bytes). The bandwidth
    term is not fitted (:func:`as_run_bandwidth`, scale 1)."""

    launch_us: float
    k_latency: float
    step_us: float
    k_fill_tree: float
    k_fill_nvls: float
    chunk: int

    def coefficients(self) -> np.ndarray:
        return np.array(
            [
                self.launch_us,
                self.k_latency,
                self.step_us,
                self.k_fill_tree,
                self.k_fill_nvls,
            ]
        )

    def k_fill(self, choice: nccl.Choice) -> float:
        """The fill's scale for the family of ``choice``'s algorithm (0 for a ring)."""
        family = _family(choice)
        return 0.0 if family is None else float(self.coefficients()[3 + family])


def _family(choice: nccl.Choice) -> int | None:
    """Index in :data:`FAMILIES` of the pick's algorithm (NVLS, NVLSTree, CollNet and PAT
    share the switch-assisted pipeline's coefficient; a ring has no fill: None)."""
    algo = choice.best.entry.algorithm
    return None if algo is Algorithm.RING else 0 if algo is Algorithm.TREE else 1


@dataclass(frozen=True)
class Prediction:
    """The measured model's time for one call, and the tuner's pick it prices."""

    choice: nccl.Choice
    terms_us: dict[str, float]

    @property
    def time_s(self) -> float:
        return sum(self.terms_us.values()) * 1e-6

    @property
    def algbw(self) -> float:
        return self.choice.nbytes / self.time_s

    @property
    def busbw(self) -> float:
        return self.algbw * nccl.busbw_factor(self.choice.func, self.choice.topology.ranks)


def _shape(choice: nccl.Choice) -> tuple[int, int]:
    """(network steps, pipeline depth) of the chosen algorithm (a ring's depth is
    unused: it has no fill)."""
    topo, algo = choice.topology, choice.best.entry.algorithm
    levels = log2i(topo.nodes) if topo.nodes > 1 else 0
    chain = topo.gpus_per_node - 1
    if algo is Algorithm.RING:
        steps = nccl.nsteps(choice.func, topo.ranks)
        net = 2 * (topo.nodes - 1) if choice.func is Func.ALL_REDUCE else topo.nodes - 1
        return net, steps
    if algo is Algorithm.TREE:
        return 2 * levels, 2 * (chain + levels)
    if algo is Algorithm.NVLS_TREE:
        return 2 * levels, 2 + 2 * levels
    network = 2 if topo.nodes > 1 else 0
    return network, 2  # NVLS, CollNet, PAT


def terms(choice: nccl.Choice, chunk: int) -> tuple[np.ndarray, float]:
    """The :data:`COLUMNS` before their coefficients (µs; a count for the network steps),
    and the tuner's bandwidth time (µs).

    The fill: a tree or NVLS pipeline of ``depth`` stages moves its first piece through
    all of them before the last stage starts; a piece is at most ``chunk`` and at most
    what one channel carries (S/channels). The bandwidth time is
    :func:`as_run_bandwidth`'s."""
    e = choice.best
    net, depth = _shape(choice)
    channels = max(e.entry.channels, 1)
    per_channel = e.entry.bus_bandwidth / channels
    fills = [0.0] * len(FAMILIES)
    family = _family(choice)
    if family is not None:
        fills[family] = depth * min(chunk, choice.nbytes / channels) / (1000 * per_channel)
    wire = choice.nbytes / (1000 * as_run_bandwidth(choice))
    return np.array([1.0, e.latency_us, float(net), *fills]), wire


def _as_run(g: nccl.Graphs) -> nccl.Graphs:
    """The ring and tree graphs as the kernels run them: ``comm->nChannels`` channels
    (connect.cc duplicates every searched channel), each carrying its share of the
    searched bandwidth, so ``channels × bandwidth`` is unchanged."""
    n = g.comm_channels

    def spread(graph: nccl.Graph) -> nccl.Graph:
        k = graph.channels / n
        return dataclasses.replace(
            graph, channels=n, bw_intra=graph.bw_intra * k, bw_inter=graph.bw_inter * k
        )

    return dataclasses.replace(g, ring=spread(g.ring), tree=spread(g.tree))


def as_run_bandwidth(choice: nccl.Choice) -> float:
    """The pick's algorithm bandwidth (GB/s) with the tuner's per-channel caps counted on
    the channels that run, after the tuner's size corrections.

    NCCL's tuner caps Ring/LL128, Tree and Tree/LL128 at ``graphs[a]->nChannels ×
    perChMax…Bw`` (tuning.cc), counting the *searched* channels, while the kernels run
    twice as many (connect.cc: "nChannels = comm->nChannels = std::min(MAXCHANNELS,
    nChannels * 2)"), each at half the searched bandwidth. A cap that binds on the
    search's few fast channels — 4 × 20 GB/s for Ring/LL128 on Ampere over four 24 GB/s
    NIC paths, where the wire allows 0.92 × 96 — need not bind on the eight that run, so
    a run can beat the tuner's estimate. Where no cap binds (Simple rings, NVLS) this is
    the tuner's own bandwidth."""
    e = choice.best
    if e.entry.algorithm not in (Algorithm.RING, Algorithm.TREE):
        return e.bandwidth
    g = nccl.graphs(choice.topology)
    run = nccl.entry(choice.topology, choice.func, e.entry.algorithm, e.entry.protocol, _as_run(g))
    return e.bandwidth * max(run.bus_bandwidth / e.entry.bus_bandwidth, 1.0)


def _choice(system: System, row: Row) -> nccl.Choice:
    return nccl.choose(
        Func.ALL_REDUCE, row.size, system.topology(), algo=nccl.algorithm(system.forced)
    )


def measured_time_us(system: System, row: Row) -> float:
    """The row's time: as printed, or from its busbw when only that was published."""
    if row.time_us is not None:
        return row.time_us
    ranks = system.topology().ranks
    factor = nccl.busbw_factor(Func.ALL_REDUCE, ranks)
    return row.size * factor / (row.busbw * 1e3)


def _nnls(design: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, float]:
    """Least squares with every coefficient ≥ 0, by trying each subset of the columns
    (five columns: 31 subsets), keeping the best feasible one."""
    best, best_sse = np.zeros(design.shape[1]), float(np.sum(target**2))
    cols = [c for c in range(design.shape[1]) if design[:, c].any()]
    for k in range(1, len(cols) + 1):
        for keep in itertools.combinations(cols, k):
            sub = design[:, keep]
            coef, *_ = np.linalg.lstsq(sub, target, rcond=None)
            if (coef < 0).any():
                continue
            sse = float(np.sum((sub @ coef - target) ** 2))
            if sse < best_sse:
                best_sse = sse
                best = np.zeros(design.shape[1])
                best[list(keep)] = coef
    return best, best_sse


def fit(fit_systems: tuple[System, ...]) -> Params:
    """Coefficients and chunk minimising the squared relative time error over the rows of
    ``fit_systems`` on :data:`FITTED_TRANSPORTS` (the bandwidth term stays the tuner's)."""
    used = [s for s in fit_systems if s.transport in FITTED_TRANSPORTS]
    pairs = [(s, r) for s in used for r in s.rows]
    if not pairs:
        raise ValueError("no rows to fit")
    choices = [_choice(s, r) for s, r in pairs]
    measured = np.array([measured_time_us(s, r) for s, r in pairs])
    best: tuple[float, Params] | None = None
    for chunk in CHUNKS:
        rows = [terms(c, chunk) for c in choices]
        design = np.array([t for t, _ in rows]) / measured[:, None]
        rest = 1.0 - np.array([w for _, w in rows]) / measured
        coef, sse = _nnls(design, rest)
        params = Params(*(float(x) for x in coef), chunk=chunk)
        if best is None or sse < best[0]:
            best = (sse, params)
    assert best is not None
    return best[1]


@functools.cache
def fitted() -> Params:
    """The model fitted to every shipped system (what ``sim --model measured`` uses)."""
    return fit(systems())


@functools.cache
def held_out() -> dict[str, Params]:
    """For each system, the model fitted to the systems of the *other* groups (a run's
    sibling on the same cluster, or from the same post, is left out with it)."""
    every = systems()
    fits = {g: fit(tuple(o for o in every if o.cluster != g)) for g in {s.cluster for s in every}}
    return {s.id: fits[s.cluster] for s in every}


def price(choice: nccl.Choice, params: Params) -> dict[str, float]:
    """The measured model's terms (µs) for a choice already made: launch, latency,
    network_steps, fill (the pick's family's) and bandwidth (as run)."""
    t, wire = terms(choice, params.chunk)
    launch, latency, steps, *fills = (float(x) for x in t * params.coefficients())
    return {
        "launch": launch,
        "latency": latency,
        "network_steps": steps,
        "fill": sum(fills),
        "bandwidth": wire,
    }


def predict(
    collective: str | Func,
    nbytes: int,
    topo: Topology,
    *,
    algo: Algorithm | None = None,
    proto: nccl.Protocol | None = None,
    params: Params | None = None,
) -> Prediction:
    """What nccl-tests would print for ``collective`` of ``nbytes`` on ``topo``."""
    p = fitted() if params is None else params
    choice = nccl.choose(collective, nbytes, topo, algo=algo, proto=proto)
    return Prediction(choice, price(choice, p))


@dataclass(frozen=True)
class RowError:
    system: System
    row: Row
    measured_us: float
    model_us: float  # the measured model
    tuner_us: float  # NCCL's own estimate
    pick: str

    @property
    def busbw_error(self) -> float:
        """model busbw ÷ measured − 1 (= measured time ÷ model time − 1)."""
        return self.measured_us / self.model_us - 1

    @property
    def time_error(self) -> float:
        return self.model_us / self.measured_us - 1

    @property
    def tuner_busbw_error(self) -> float:
        return self.measured_us / self.tuner_us - 1

    @property
    def tuner_time_error(self) -> float:
        return self.tuner_us / self.measured_us - 1


def errors(*, held: bool = True) -> tuple[RowError, ...]:
    """Every published row against the measured model — fitted without the row's own
    system (``held``, the held-out error) or with every system — and against the tuner."""
    out = []
    for s in systems():
        p = held_out()[s.id] if held else fitted()
        for r in s.rows:
            c = _choice(s, r)
            model = sum(price(c, p).values())
            out.append(RowError(s, r, measured_time_us(s, r), model, c.best.time_us, c.best_name))
    return tuple(out)


def on_fitted_transports(
    errs: tuple[RowError, ...], *, fitted: bool = True
) -> tuple[RowError, ...]:
    """The rows of systems on :data:`FITTED_TRANSPORTS` (InfiniBand, RoCE, and NVLink
    alone) — where the goals are judged — or, with ``fitted=False``, the others (TCPXO)."""
    return tuple(e for e in errs if (e.system.transport in FITTED_TRANSPORTS) == fitted)


def size_class(size: int) -> str:
    for name, low, high in SIZE_CLASSES:
        if low <= size < high:
            return name
    raise AssertionError(size)


def metric(e: RowError, *, tuner: bool = False) -> float:
    """|time error| below 64 KiB, |busbw error| from there up (the issue's goals)."""
    if e.row.size < 64 * KIB:
        return abs(e.tuner_time_error if tuner else e.time_error)
    return abs(e.tuner_busbw_error if tuner else e.busbw_error)


@dataclass(frozen=True)
class Cell:
    rows: int
    median: float
    worst: float  # the signed error of largest magnitude
    tuner_median: float


def summary(errs: tuple[RowError, ...]) -> dict[str, Cell]:
    """Per size class: rows, median |error| of the model and of the tuner, worst error."""
    out: dict[str, Cell] = {}
    for name, _, _ in SIZE_CLASSES:
        chosen = [e for e in errs if size_class(e.row.size) == name]
        if not chosen:
            continue
        signed = [e.time_error if e.row.size < 64 * KIB else e.busbw_error for e in chosen]
        out[name] = Cell(
            rows=len(chosen),
            median=float(np.median([metric(e) for e in chosen])),
            worst=max(signed, key=abs),
            tuner_median=float(np.median([metric(e, tuner=True) for e in chosen])),
        )
    return out


def per_system(errs: tuple[RowError, ...]) -> dict[str, tuple[System, float, float, str]]:
    """Per system: median |error| of the model and of the tuner, and the picks seen."""
    out = {}
    for s in systems():
        mine = [e for e in errs if e.system.id == s.id]
        picks = " → ".join(dict.fromkeys(e.pick for e in mine))
        out[s.id] = (
            s,
            float(np.median([metric(e) for e in mine])),
            float(np.median([metric(e, tuner=True) for e in mine])),
            picks,
        )
    return out


def pct(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.1%}"
