"""The simulator's entry points: :func:`plan` (no data), :func:`run` (with data),
:func:`algorithms`, :func:`verify` and the hierarchical all-reduce."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from quizcoll.collectives import cost as cost_model
from quizcoll.collectives import counting
from quizcoll.collectives.display import format_bytes
from quizcoll.collectives.dtypes import DType, dtype_of_array, get_dtype
from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.execute import pack, run_schedule, unpack
from quizcoll.collectives.layout import Layout
from quizcoll.collectives.ops import Op, finish, get_op
from quizcoll.collectives.ring_kernel import run_ring
from quizcoll.collectives.schedule import Schedule
from quizcoll.collectives.schedules import (
    ALGORITHMS,
    TOPOLOGY_ALGORITHMS,
    check_algorithm,
    hierarchical_structure,
    rows_of,
    structure_for,
    topology_algorithms,
)
from quizcoll.collectives.schedules.hierarchical import phase_rounds
from quizcoll.collectives.schedules.layouts import block_elems, layout_of
from quizcoll.collectives.semantics import (
    Collective,
    check_split_sizes,
    get_collective,
)
from quizcoll.collectives.structure import Structure
from quizcoll.collectives.trace import Trace
from quizcoll.collectives.verification import outputs_agree

DEFAULT_BUDGET = 1 << 30  # bytes of simulated buffers a single run may allocate
MAX_RANKS = 131_072  # counts come from the schedule's structure: O(N log N) at most
# Transfer rows (for running on data and for traces) are laid out up to this many; a
# ring over N ranks has 2(N − 1)·N of them, so rows stop near 2,900 ranks for a ring.
MAX_SCHEDULE_ROWS = 1 << 24
ROW_BYTES = 40  # a row's columns and derived keys, for the memory budget


def algorithms(name: str | Collective, *, topology: bool = False) -> tuple[str, ...]:
    """The algorithm names :func:`run` accepts for collective ``name`` (default first).
    With ``topology``, also those that need nodes × GPUs per node (``gpus_per_node``):
    the ``hierarchical`` all-reduce."""
    collective = get_collective(name)
    extra = TOPOLOGY_ALGORITHMS.get(collective, ()) if topology else ()
    return ALGORITHMS[collective] + extra


@dataclass(frozen=True, eq=False)
class Plan:
    """An algorithm laid out for N ranks and a per-rank element count: its structure, the
    block sizes and the exact traffic and modelled time, without any data."""

    collective: Collective
    algorithm: str
    ranks: int
    count: int
    dtype: DType
    root: int
    elems: np.ndarray  # (ranks, slots) element counts; a broadcast row when all alike
    structure_factory: Callable[[], Structure]
    gpus_per_node: int | None = None

    @cached_property
    def structure(self) -> Structure:
        """The phases (cached for small N; a few arrays of N numbers at any N)."""
        return self.structure_factory()

    @cached_property
    def layout(self) -> Layout:
        """Block sizes with every rank's input and output slots (N arrays: on request)."""
        return layout_of(self.collective, self.elems, self.ranks, self.root)

    @property
    def rows(self) -> int:
        """Block transfers of the schedule, counted without laying them out."""
        return self.structure.rows

    @cached_property
    def schedule(self) -> Schedule:
        """The transfer rows, laid out on first use; refused past ``MAX_SCHEDULE_ROWS``
        (a ring over 1,024 ranks has 2 million rows, over 131,072 ranks 34 billion)."""
        if self.rows > MAX_SCHEDULE_ROWS:
            raise CollectiveError(
                f"{self.collective.value} ({self.algorithm}) on {self.ranks:,} ranks has "
                f"{self.rows:,} block transfers; transfer-by-transfer schedules and traces "
                f"stop at {MAX_SCHEDULE_ROWS:,} (counts and times come from the "
                "schedule's structure at any size)"
            )
        return rows_of(self.structure)

    @property
    def uses_ring_kernel(self) -> bool:
        """Whether :func:`run` executes this plan with the vectorised ring kernel."""
        return self.algorithm == "ring" and self.collective in (
            Collective.ALL_REDUCE,
            Collective.REDUCE_SCATTER,
            Collective.ALL_GATHER,
        )

    @property
    def steps(self) -> int:
        return self.structure.steps

    @property
    def input_bytes(self) -> int:
        """Bytes of one rank's input buffer (the largest, for uneven all_to_all)."""
        if self.collective is Collective.ALL_TO_ALL:
            return int(self._all_to_all_inputs().max()) * self.dtype.itemsize
        return self.count * self.dtype.itemsize

    def _all_to_all_inputs(self) -> np.ndarray:
        """Elements of every rank's all_to_all input (one row's sum when all are alike)."""
        pieces = self.elems[:, : self.ranks]
        if self.elems.strides[0] == 0:
            return np.full(self.ranks, int(pieces[0].sum()))
        return pieces.sum(axis=1)

    @cached_property
    def trace(self) -> Trace:
        return Trace(self.schedule, self.layout, self.dtype.itemsize)

    @cached_property
    def _traffic(self) -> tuple[np.ndarray, np.ndarray]:
        return counting.traffic(self.structure, self.elems, self.dtype.itemsize)

    @property
    def bytes_sent(self) -> np.ndarray:
        return self._traffic[0]

    @property
    def bytes_received(self) -> np.ndarray:
        return self._traffic[1]

    def bytes_by_link(self, gpus_per_node: int) -> tuple[np.ndarray, np.ndarray]:
        """Per-rank bytes sent inside the node and between nodes."""
        return counting.traffic_by_link(
            self.structure, self.elems, self.dtype.itemsize, gpus_per_node
        )

    def time(self, model: cost_model.CostModel | None = None) -> float:
        """Modelled seconds under ``model`` (NVLink preset by default)."""
        return float(self.step_times(model).sum())

    def step_times(self, model: cost_model.CostModel | None = None) -> np.ndarray:
        return counting.step_times(
            self.structure, self.elems, self.dtype.itemsize, model or cost_model.CostModel()
        )

    def buffer_bytes(self) -> int:
        """Bytes a :func:`run` of this plan allocates: buffers, outputs and (except for
        the ring kernel) the transfer rows."""
        itemsize = self.dtype.itemsize
        slots = self.elems.shape[1]
        width = int(self.elems.max()) if self.elems.size else 0
        working = self.ranks * slots * width * itemsize
        outputs = self._output_elems() * itemsize
        if self.uses_ring_kernel:
            return working + outputs
        widest_round = int(self.structure.rows_per_round.max()) if self.steps else 0
        payload = widest_round * width * itemsize
        return working + 2 * payload + outputs + self.rows * ROW_BYTES

    def _output_elems(self) -> int:
        """Elements of all ranks' outputs together."""
        n, c = self.ranks, self.collective
        if c is Collective.ALL_TO_ALL:
            return int(self._all_to_all_inputs().sum())
        if c in (Collective.REDUCE, Collective.GATHER):
            return self.count * (n if c is Collective.GATHER else 1)
        if c is Collective.ALL_GATHER:
            return n * n * self.count
        if c in (Collective.SCATTER, Collective.REDUCE_SCATTER):
            return self.count
        return n * self.count


def _check_ranks(ranks: int) -> None:
    if not isinstance(ranks, int | np.integer) or isinstance(ranks, bool):
        raise CollectiveError(f"ranks must be a whole number, got {ranks!r}")
    if not 1 <= ranks <= MAX_RANKS:
        raise CollectiveError(f"ranks must be between 1 and {MAX_RANKS:,}, got {ranks:,}")


def _check_root(root: int, ranks: int) -> None:
    if not isinstance(root, int | np.integer) or not 0 <= root < ranks:
        raise CollectiveError(f"root must be a rank between 0 and {ranks - 1}, got {root!r}")


def plan(
    name: str | Collective,
    ranks: int,
    count: int,
    *,
    algorithm: str | None = None,
    dtype: str | DType = "float32",
    root: int = 0,
    split_sizes: object = None,
    gpus_per_node: int | None = None,
) -> Plan:
    """Lay out ``algorithm`` for ``name`` on ``ranks`` ranks with ``count`` elements per
    rank. Exact steps, bytes and modelled time for any size: no data is allocated.
    ``algorithm="hierarchical"`` (all_reduce) needs ``gpus_per_node``, a divisor of
    ``ranks`` (see :func:`plan_hierarchical`)."""
    collective = get_collective(name)
    algorithm = check_algorithm(collective, algorithm, topology=gpus_per_node is not None)
    _check_ranks(ranks)
    ranks = int(ranks)
    if gpus_per_node is not None:
        nodes = _nodes_of(algorithm, ranks, gpus_per_node)
        return plan_hierarchical(nodes, gpus_per_node, count, dtype=dtype, algorithm=algorithm)
    _check_root(root, ranks)
    kind = dtype if isinstance(dtype, DType) else get_dtype(dtype)
    splits = None
    if split_sizes is not None:
        if collective is not Collective.ALL_TO_ALL:
            raise CollectiveError("split_sizes applies to all_to_all only")
        splits = check_split_sizes(split_sizes, ranks, [count] * ranks)
    if not isinstance(count, int | np.integer) or count < 1:
        raise CollectiveError(f"the element count must be a positive whole number, got {count!r}")
    return _make_plan(collective, algorithm, ranks, int(count), kind, int(root), splits)


def _make_plan(
    collective: Collective,
    algorithm: str,
    ranks: int,
    count: int,
    kind: DType,
    root: int,
    splits: np.ndarray | None,
) -> Plan:
    elems = block_elems(collective, algorithm, ranks, count, split_sizes=splits)

    def structure() -> Structure:
        return structure_for(collective, algorithm, ranks, root=root)

    return Plan(collective, algorithm, ranks, count, kind, root, elems, structure)


def _check_topology_algorithm(algorithm: str) -> None:
    if algorithm not in topology_algorithms(Collective.ALL_REDUCE):
        raise CollectiveError(
            f"gpus_per_node applies to the hierarchical all_reduce only (and NCCL's "
            f"nccl_tree), not {algorithm}"
        )


def _nodes_of(algorithm: str, ranks: int, gpus_per_node: object) -> int:
    """The node count of a topology request, or a clear error."""
    _check_topology_algorithm(algorithm)
    valid = isinstance(gpus_per_node, int) and not isinstance(gpus_per_node, bool)
    if not valid or gpus_per_node < 1 or ranks % gpus_per_node:
        raise CollectiveError(
            f"gpus_per_node must be a positive divisor of the {ranks} ranks, got {gpus_per_node!r}"
        )
    return ranks // gpus_per_node


def plan_hierarchical(
    nodes: int,
    gpus_per_node: int,
    count: int,
    *,
    dtype: str | DType = "float32",
    algorithm: str = "hierarchical",
) -> Plan:
    """The hierarchical all-reduce (or ``algorithm="nccl_tree"``: NCCL's double binary
    tree over the nodes, a chain inside each) laid out over ``nodes × gpus_per_node``
    ranks."""
    _check_topology_algorithm(algorithm)
    for label, value in (("nodes", nodes), ("gpus_per_node", gpus_per_node)):
        if not isinstance(value, int) or value < 1:
            raise CollectiveError(f"{label} must be a positive whole number, got {value!r}")
    _check_ranks(nodes * gpus_per_node)
    if not isinstance(count, int | np.integer) or count < 1:
        raise CollectiveError(f"the element count must be a positive whole number, got {count!r}")
    kind = dtype if isinstance(dtype, DType) else get_dtype(dtype)
    n = nodes * gpus_per_node
    return Plan(
        Collective.ALL_REDUCE,
        algorithm,
        n,
        int(count),
        kind,
        0,
        block_elems(Collective.ALL_REDUCE, algorithm, n, int(count)),
        lambda: hierarchical_structure(nodes, gpus_per_node, algorithm),
        gpus_per_node=gpus_per_node,
    )


def hierarchical_phases(
    p: Plan, model: cost_model.CostModel | None = None
) -> tuple[tuple[str, int, float], ...]:
    """``(phase, rounds, modelled seconds)`` of a hierarchical plan's three phases."""
    if p.algorithm != "hierarchical" or p.gpus_per_node is None:
        raise CollectiveError(f"{p.algorithm} is not the hierarchical all_reduce")
    times = p.step_times(model)
    out, start = [], 0
    for name, rounds in phase_rounds(p.ranks // p.gpus_per_node, p.gpus_per_node):
        out.append((name, rounds, float(times[start : start + rounds].sum())))
        start += rounds
    return tuple(out)


@dataclass(frozen=True, eq=False)
class CollectiveResult:
    """What :func:`run` returns: outputs, exact traffic and the trace."""

    collective: Collective
    algorithm: str
    op: Op
    plan: Plan
    outputs: list[np.ndarray | None]

    @property
    def ranks(self) -> int:
        return self.plan.ranks

    @property
    def steps(self) -> int:
        """Communication rounds."""
        return self.plan.steps

    @property
    def bytes_sent(self) -> np.ndarray:
        return self.plan.bytes_sent

    @property
    def bytes_received(self) -> np.ndarray:
        return self.plan.bytes_received

    @property
    def trace(self) -> Trace:
        return self.plan.trace


def _check_inputs(
    collective: Collective, inputs: Sequence[np.ndarray], split_sizes: object
) -> tuple[list[np.ndarray], np.ndarray | None]:
    if isinstance(inputs, np.ndarray) and inputs.ndim == 2:
        inputs = list(inputs)
    if not isinstance(inputs, Sequence) or isinstance(inputs, str | bytes):
        raise CollectiveError("inputs must be a list of N one-dimensional arrays (one per rank)")
    arrays = [np.asarray(x) for x in inputs]
    if not arrays:
        raise CollectiveError("inputs is empty: give one array per rank")
    _check_ranks(len(arrays))
    for r, a in enumerate(arrays):
        if a.ndim != 1:
            raise CollectiveError(f"input of rank {r} must be one-dimensional, got shape {a.shape}")
        if a.dtype != arrays[0].dtype:
            raise CollectiveError(
                f"input of rank {r} has dtype {a.dtype}, rank 0 has {arrays[0].dtype}"
            )
    dtype_of_array(arrays[0])
    lengths = [len(a) for a in arrays]
    splits = None
    if split_sizes is not None:
        if collective is not Collective.ALL_TO_ALL:
            raise CollectiveError("split_sizes applies to all_to_all only")
        splits = check_split_sizes(split_sizes, len(arrays), lengths)
        if sum(lengths) == 0:
            raise CollectiveError("all_to_all needs at least one element in total")
    else:
        if min(lengths) < 1:
            raise CollectiveError("every input needs at least one element")
        if len(set(lengths)) != 1:
            raise CollectiveError(f"inputs must all have the same length, got lengths {lengths}")
    return [np.ascontiguousarray(a) for a in arrays], splits


def run(
    name: str | Collective,
    inputs: Sequence[np.ndarray],
    algorithm: str | None = None,
    op: str | Op = "sum",
    root: int = 0,
    split_sizes: object = None,
    *,
    budget_bytes: int = DEFAULT_BUDGET,
    gpus_per_node: int | None = None,
) -> CollectiveResult:
    """Simulate collective ``name`` over ``inputs`` (one 1-D array per rank) with the
    chosen algorithm; refuse work whose buffers would exceed ``budget_bytes``.
    ``algorithm="hierarchical"`` (all_reduce) needs ``gpus_per_node``."""
    collective = get_collective(name)
    algorithm = check_algorithm(collective, algorithm, topology=gpus_per_node is not None)
    if gpus_per_node is not None:
        _check_topology_algorithm(algorithm)
        return run_hierarchical(
            inputs, gpus_per_node, op, budget_bytes=budget_bytes, algorithm=algorithm
        )
    reduction = get_op(op)
    arrays, splits = _check_inputs(collective, inputs, split_sizes)
    n = len(arrays)
    _check_root(root, n)
    kind = dtype_of_array(arrays[0])
    if splits is not None:
        p = _make_plan(collective, algorithm, n, len(arrays[0]), kind, int(root), splits)
    else:
        p = plan(collective, n, len(arrays[0]), algorithm=algorithm, dtype=kind, root=int(root))
    return _execute(p, arrays, reduction, budget_bytes)


def run_hierarchical(
    inputs: Sequence[np.ndarray],
    gpus_per_node: int,
    op: str | Op = "sum",
    *,
    budget_bytes: int = DEFAULT_BUDGET,
    algorithm: str = "hierarchical",
) -> CollectiveResult:
    """Hierarchical (or ``nccl_tree``) all-reduce of ``inputs`` over nodes of
    ``gpus_per_node`` ranks."""
    reduction = get_op(op)
    arrays, _ = _check_inputs(Collective.ALL_REDUCE, inputs, None)
    if not isinstance(gpus_per_node, int) or gpus_per_node < 1 or len(arrays) % gpus_per_node:
        raise CollectiveError(
            f"gpus_per_node must be a positive divisor of the {len(arrays)} ranks, "
            f"got {gpus_per_node!r}"
        )
    p = plan_hierarchical(
        len(arrays) // gpus_per_node,
        gpus_per_node,
        len(arrays[0]),
        dtype=dtype_of_array(arrays[0]),
        algorithm=algorithm,
    )
    return _execute(p, arrays, reduction, budget_bytes)


def _execute(p: Plan, arrays: list[np.ndarray], op: Op, budget_bytes: int) -> CollectiveResult:
    need = p.buffer_bytes()
    if need > budget_bytes:
        raise CollectiveError(
            f"simulating {p.collective.value} ({p.algorithm}) on {p.ranks} ranks needs "
            f"{format_bytes(need)} of buffers, over the budget of {format_bytes(budget_bytes)}; "
            f"use fewer ranks or elements, or raise the budget"
        )
    dtype = arrays[0].dtype
    if p.uses_ring_kernel:
        outputs = run_ring(p.collective, arrays, p.layout, op, dtype)
    else:
        outputs = run_generic(p, arrays, op)
    return CollectiveResult(p.collective, p.algorithm, op, p, outputs)


def run_generic(p: Plan, arrays: Sequence[np.ndarray], op: Op) -> list[np.ndarray | None]:
    """Outputs of plan ``p`` on ``arrays`` through the general executor."""
    buffer = pack(p.layout, arrays, arrays[0].dtype)
    run_schedule(p.schedule, buffer, op)
    outputs = [unpack(p.layout, buffer, r) for r in range(p.ranks)]
    if p.collective.reduces:
        outputs = [None if o is None else finish(op, o, p.ranks) for o in outputs]
    return outputs


def verify(
    result: CollectiveResult, inputs: Sequence[np.ndarray], split_sizes: object = None
) -> bool:
    """Whether ``result.outputs`` equal the definition of the collective on ``inputs``:
    exactly for data movement, integers, max and min; within the error bound of
    reassociated floating-point sums and products otherwise. O(ranks × elements) in
    time and memory: the reduction and its error bound are computed once."""
    arrays = [np.asarray(x) for x in inputs]
    splits = None if split_sizes is None else np.asarray(split_sizes, dtype=np.int64)
    return outputs_agree(
        result.collective,
        result.outputs,
        arrays,
        op=result.op,
        root=result.plan.root,
        split_sizes=splits,
    )
