"""The simulation lab's computation: run a collective, keep its per-step state, sweep sizes.

:func:`simulate` runs the collective on real numpy buffers (so ``verified`` is earned) when
they fit in :data:`DATA_BUDGET`, else lays the algorithm out without data (traffic and
time are exact either way). It returns everything the screen draws, step by step: the
transfers of each round, which blocks every rank holds and how reduced they are, the
bytes each rank has sent so far, and the modelled time of every algorithm across
message sizes with the ring crossover.

The ``hierarchical`` all-reduce spreads the ranks over ``nodes`` nodes: transfers inside
a node use ``link``, those between nodes ``inter_link``; every algorithm of the sweep is
then priced on the same two-tier cluster, and the note gives the inter-node bytes per GPU
against 2(b − 1)/(ab)·S and the flat ring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from deck import units
from quizcoll.collectives import (
    PRESETS,
    Collective,
    CollectiveError,
    CostModel,
    Crossover,
    LinkModel,
    algorithms,
    bandwidths,
    crossover,
    get_collective,
    get_dtype,
    get_op,
    hierarchical_phases,
    plan,
    reference,
    run,
    verify,
    with_overrides,
)
from quizcoll.collectives.api import CollectiveResult, Plan
from quizcoll.collectives.trace import TraceStep

DATA_BUDGET = 256 * 2**20  # bytes of input buffers simulated with data
HOLDINGS_BUDGET = 64 * 2**20
SWEEP_SIZES = tuple(2**k for k in range(10, 33, 2))  # 1 KiB .. 4 GiB per rank
COLLECTIVES = tuple(c.value for c in Collective)
OPS = ("sum", "prod", "max", "min", "avg")
HIERARCHICAL = "hierarchical"
MAX_LAB_RANKS = 64  # the step view draws every rank


@dataclass(frozen=True)
class LabRequest:
    """What to simulate. ``size_bytes`` is one rank's input buffer."""

    collective: str = "all_reduce"
    algorithm: str = "ring"
    ranks: int = 8
    size_bytes: int = 2**20
    op: str = "sum"
    dtype: str = "float32"
    root: int = 0
    link: str = "nvlink"
    nodes: int = 1  # hierarchical only: ranks = nodes × GPUs per node
    inter_link: str = "infiniband"
    # A card's own link (α in seconds, B in bytes/s) in place of the preset's values.
    latency: float | None = None
    bandwidth: float | None = None
    # Where α and B came from when not the card ("your cluster NAME": a calibrated profile).
    link_note: str | None = None

    def link_model(self) -> LinkModel:
        """The flat (or intra-node) link: the preset, with the card's α and B if given."""
        return with_overrides(self.link, self.latency, self.bandwidth)

    def link_label(self) -> str:
        """How the status line names the link: the preset, or the card's α and B."""
        if self.latency is None and self.bandwidth is None:
            return self.link
        model = self.link_model()
        text = (
            f"α {units.format_seconds(model.latency_s, 3)}, B {units.format_rate(model.bandwidth)}"
        )
        return f"{self.link_note}: {text}" if self.link_note else text

    @property
    def gpus_per_node(self) -> int | None:
        """GPUs per node of a hierarchical request (None for the flat algorithms)."""
        if self.algorithm != HIERARCHICAL:
            return None
        if self.nodes < 1 or self.ranks % self.nodes:
            raise CollectiveError(
                f"nodes: {self.nodes} does not divide the {self.ranks} ranks "
                "(ranks = nodes × GPUs per node)"
            )
        return self.ranks // self.nodes

    def model(self) -> CostModel:
        """One link class, or two (intra, inter) for a hierarchical request."""
        gpus = self.gpus_per_node
        if gpus is None:
            return CostModel(link=self.link_model())
        return CostModel(self.link_model(), inter=PRESETS[self.inter_link], gpus_per_node=gpus)


@dataclass(frozen=True)
class LabRun:
    """A simulated collective with everything the lab shows, step by step."""

    request: LabRequest
    collective: Collective
    plan: Plan
    holdings: np.ndarray | None  # (steps + 1, ranks, chunks); None when too large to keep
    sent_so_far: np.ndarray  # (steps + 1, ranks) bytes sent before round t
    verified: bool | None  # None: counted without data
    time_s: float
    algbw: float | None
    busbw: float | None
    sweep: dict[str, list[tuple[int, float]]]
    crossover: Crossover | None
    crossover_note: str

    @property
    def steps(self) -> int:
        return self.plan.steps

    @property
    def ranks(self) -> int:
        return self.plan.ranks

    @property
    def chunks(self) -> int:
        return self.plan.schedule.nblocks

    @property
    def full(self) -> int:
        """The holdings value meaning "complete" (all contributions, or present)."""
        return self.ranks if self.collective.reduces else 1

    def step(self, index: int) -> TraceStep:
        return self.plan.trace.step(index)


def _count(req: LabRequest, itemsize: int) -> int:
    if req.size_bytes < itemsize:
        raise CollectiveError(f"size must be at least one {itemsize}-byte element")
    count = req.size_bytes // itemsize
    if get_collective(req.collective) is Collective.REDUCE_SCATTER and count % req.ranks:
        count = max(req.ranks, count - count % req.ranks)
    return count


def _sweep(
    collective: Collective,
    ranks: int,
    itemsize: int,
    model: CostModel,
    gpus_per_node: int | None = None,
) -> dict:
    out: dict[str, list[tuple[int, float]]] = {}
    for name in algorithms(collective, topology=gpus_per_node is not None):
        gpus = gpus_per_node if name == HIERARCHICAL else None
        points = []
        for size in SWEEP_SIZES:
            count = max(ranks, size // itemsize)
            count -= count % ranks
            try:
                p = plan(
                    collective,
                    ranks,
                    count,
                    algorithm=name,
                    dtype=get_dtype("float32"),
                    gpus_per_node=gpus,
                )
                points.append((count * itemsize, p.time(model)))
            except CollectiveError:
                continue
        if points:
            out[name] = points
    return out


def _sent_so_far(p: Plan) -> np.ndarray:
    trace = p.trace
    out = np.zeros((p.steps + 1, p.ranks), dtype=np.int64)
    for i in range(p.steps):
        st = trace.step(i)
        out[i + 1] = out[i] + np.bincount(st.src, weights=st.bytes, minlength=p.ranks).astype(
            np.int64
        )
    return out


def _verified(result: CollectiveResult, inputs: list[np.ndarray], op: str) -> bool:
    """Whether the outputs are the collective's definition. The lab's inputs are whole
    numbers from −8 to 8, so sums, maxima and minima over at most 64 ranks are exact in
    any order: plain equality, checked once per rank (the general :func:`verify` bounds
    rounding rank by rank, quadratic in the ranks: seconds at 64). Products and averages
    round, and go to :func:`verify`."""
    if op not in ("sum", "max", "min") or len(inputs) > MAX_LAB_RANKS:
        return bool(verify(result, inputs))
    expected = reference(result.collective, inputs, op=get_op(op), root=result.plan.root)
    return all(
        (got is None and want is None)
        or (got is not None and want is not None and np.array_equal(got, want))
        for got, want in zip(result.outputs, expected, strict=True)
    )


def simulate(req: LabRequest, rng: np.random.Generator) -> LabRun:
    """Run ``req``; raises :class:`CollectiveError` on a bad request."""
    collective = get_collective(req.collective)
    dtype = get_dtype(req.dtype)
    gpus = req.gpus_per_node
    model = req.model()
    count = _count(req, dtype.itemsize)
    verified: bool | None = None
    if dtype.numpy is not None and req.ranks * count * dtype.itemsize <= DATA_BUDGET:
        inputs = [rng.integers(-8, 9, size=count).astype(dtype.numpy) for _ in range(req.ranks)]
        op = req.op if collective.reduces else "sum"
        result = run(
            collective, inputs, algorithm=req.algorithm, op=op, root=req.root, gpus_per_node=gpus
        )
        p = result.plan
        verified = _verified(result, inputs, op)
    else:
        p = plan(
            collective,
            req.ranks,
            count,
            algorithm=req.algorithm,
            dtype=dtype,
            root=req.root,
            gpus_per_node=gpus,
        )
    try:
        holdings = p.trace.holdings(HOLDINGS_BUDGET)
    except CollectiveError:
        holdings = None
    time_s = p.time(model)
    algbw, busbw = bandwidths(collective, req.ranks, p.input_bytes, time_s)
    cross: Crossover | None = None
    note = ""
    if gpus is not None:
        note = _hierarchical_note(p, model, time_s)
    elif collective is Collective.ALL_REDUCE and req.ranks > 1:
        other = req.algorithm if req.algorithm != "ring" else "double_binary_tree"
        try:
            cross = crossover(req.ranks, other, model)
        except CollectiveError as exc:
            note = str(exc)
    return LabRun(
        request=req,
        collective=collective,
        plan=p,
        holdings=holdings,
        sent_so_far=_sent_so_far(p),
        verified=verified,
        time_s=time_s,
        algbw=algbw,
        busbw=busbw,
        sweep=_sweep(collective, req.ranks, dtype.itemsize, model, gpus),
        crossover=cross,
        crossover_note=note,
    )


def _hierarchical_note(p: Plan, model: CostModel, time_s: float) -> str:
    """Inter-node bytes per GPU against 2(b−1)/(ab)·S, the phases, and the flat ring."""
    a = p.gpus_per_node or 1
    b = p.ranks // a
    size = p.input_bytes
    _, inter = p.bytes_by_link(a)
    flat = plan(Collective.ALL_REDUCE, p.ranks, p.count, algorithm="ring", dtype=p.dtype)
    _, flat_inter = flat.bytes_by_link(a)
    phases = " + ".join(units.format_seconds(t, 2) for _, _, t in hierarchical_phases(p, model))
    return (
        f"{b} nodes × {a} GPUs: inter-node bytes/GPU {units.format_bytes(int(inter.max()))}"
        f" (2(b−1)/(ab)·S = {units.format_bytes(2 * (b - 1) * size / (a * b))}); "
        f"time {phases}. Flat ring: {units.format_seconds(flat.time(model), 2)}, "
        f"{units.format_bytes(int(flat_inter.max()))} inter-node/GPU"
    )


def layout_only(req: LabRequest) -> LabRun:
    """``req`` laid out without data, sweep or crossover: the steps and traffic only
    (cheap enough to run under a review card)."""
    collective = get_collective(req.collective)
    dtype = get_dtype(req.dtype)
    count = _count(req, dtype.itemsize)
    p = plan(
        collective,
        req.ranks,
        count,
        algorithm=req.algorithm,
        dtype=dtype,
        root=req.root,
        gpus_per_node=req.gpus_per_node,
    )
    time_s = p.time(req.model())
    algbw, busbw = bandwidths(collective, req.ranks, p.input_bytes, time_s)
    return LabRun(
        req, collective, p, None, _sent_so_far(p), None, time_s, algbw, busbw, {}, None, ""
    )


# ----------------------------------------------------------------------------- real runs

REAL_RUN_MAX_RANKS = 16  # local processes the lab starts for a real run (the CLI: 64)
REAL_RUN_BUDGET = 256 * 2**20  # bytes of buffers all the lab's processes may hold


def real_run(lab: LabRun, backend: str = "gloo", *, seed: int = 0) -> Any:
    """The lab's collective run for real on ``backend`` (torch.distributed, one local
    process per rank, nccl-tests timing) with the same inputs as the simulation: a
    :class:`~quizcoll.collectives.backends.Measurement`. Refusals (torch missing, too many
    ranks, buffers over the budget) raise BackendError with one line to show."""
    from quizcoll.collectives import get_op
    from quizcoll.collectives.backends import BackendError, launch

    if lab.ranks > REAL_RUN_MAX_RANKS:
        raise BackendError(
            f"a real run from the lab starts one process per rank: at most "
            f"{REAL_RUN_MAX_RANKS}, got {lab.ranks} (quizcoll sim --backend {backend} goes further)"
        )
    req = lab.request
    op = get_op(req.op if lab.collective.reduces else "sum")
    spec = launch.spec_for(lab.plan, op, backend, budget_bytes=REAL_RUN_BUDGET, seed=seed)
    measurement = launch.real_run(spec, lab.ranks, REAL_RUN_BUDGET)
    if measurement is None:  # only a torchrun launch's other ranks get None
        raise BackendError("the real run reported nothing")
    return measurement
