"""Moving real data for a plan at a bounded size, and checking it.

Counts and modelled time come from the schedule's structure at any size; the data
simulation that earns ``verified`` runs the same algorithm at a size that fits: the full
size when its buffers fit the budget and it has at most :data:`MAX_FULL_ELEMENTS` input
elements in all, else two elements per block, and beyond
:data:`MAX_SAMPLE_RANKS` ranks on fewer ranks (a power of two stays a power of two, any
other count stays one; a hierarchical all-reduce keeps its GPUs per node where it can).
:class:`Sample` says what was run, so the output can say so.

Inputs come from one generator seeded with ``seed``, row r for rank r, so a real
backend's processes and the simulator see the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from quizcoll.collectives.api import Plan, run, verify
from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.ops import Op
from quizcoll.collectives.schedules.layouts import block_count
from quizcoll.collectives.semantics import Collective

MAX_SAMPLE_RANKS = 1024  # the data simulation of every algorithm stays well under a second
SAMPLE_PER_BLOCK = 2  # elements per block of a shrunk sample
# The full size is moved only up to this many input elements in all (64 MiB of float32):
# beyond, the data check shrinks as for sizes over the budget, so it stays well under a
# second whatever the size.
MAX_FULL_ELEMENTS = 1 << 24


@dataclass(frozen=True)
class Sample:
    """The size the data was moved at."""

    ranks: int
    count: int  # elements per rank
    root: int
    gpus_per_node: int | None = None

    @property
    def nodes(self) -> int | None:
        return None if self.gpus_per_node is None else self.ranks // self.gpus_per_node


@dataclass(frozen=True)
class Check:
    """The outcome of moving data: ``verified`` is None when it could not run."""

    verified: bool | None
    sample: Sample


def sample_for(p: Plan, budget_bytes: int) -> Sample:
    """The size at which ``p``'s algorithm is run on data (see the module docstring)."""
    ranks, gpus = _sample_ranks(p)
    small = ranks * p.count <= MAX_FULL_ELEMENTS
    if ranks == p.ranks and small and p.buffer_bytes() <= budget_bytes:
        return Sample(ranks, p.count, p.root, gpus)
    c = p.collective
    if c in (Collective.GATHER, Collective.ALL_GATHER):
        count = 1
    elif c in (Collective.SCATTER, Collective.REDUCE_SCATTER, Collective.ALL_TO_ALL):
        count = SAMPLE_PER_BLOCK * ranks  # these need a multiple of the ranks
    else:  # a few elements per block, keeping the full size's uneven blocks if any
        blocks = block_count(c, p.algorithm, ranks)
        count = min(p.count, SAMPLE_PER_BLOCK * blocks + p.count % blocks)
    return Sample(ranks, count, p.root % ranks, gpus)


def _sample_ranks(p: Plan) -> tuple[int, int | None]:
    n, cap = p.ranks, MAX_SAMPLE_RANKS
    if p.gpus_per_node is not None:
        g, nodes = p.gpus_per_node, p.ranks // p.gpus_per_node
        if n <= cap:
            return n, g
        if g <= cap // 2:
            return g * min(nodes, cap // g), g
        keep = min(nodes, 2)
        return keep * (cap // keep), cap // keep
    if n <= cap:
        return n, None
    return (cap if n & (n - 1) == 0 else cap - 1), None


def sample_inputs(dtype: np.dtype, op: Op, ranks: int, count: int, seed: int) -> np.ndarray:
    """``(ranks, count)`` inputs, row r for rank r, from one generator seeded with
    ``seed``: small integers, values near 1 for ``prod`` (so products stay finite),
    else standard normal."""
    rng = np.random.default_rng(seed)
    shape = (ranks, count)
    if np.issubdtype(dtype, np.integer):
        low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -8
        return rng.integers(low, 9, shape).astype(dtype)
    if op is Op.PROD:
        return rng.uniform(0.5, 1.5, shape).astype(dtype)
    exact = dtype if dtype in (np.float32, np.float64) else np.float32  # what numpy draws
    return rng.standard_normal(shape, dtype=exact).astype(dtype, copy=False)


def sample_dtype(p: Plan) -> np.dtype:
    """The numpy type the data runs in (bfloat16 has none: float32 stands in)."""
    return np.dtype(p.dtype.numpy or np.float32)


def check_plan(p: Plan, op: Op, budget_bytes: int, seed: int) -> Check:
    """Run ``p``'s algorithm on data at :func:`sample_for`'s size and verify the outputs
    against the definition (O(ranks × elements))."""
    if seed < 0:
        raise CollectiveError(f"the seed must be a whole number ≥ 0, got {seed}")
    sample = sample_for(p, budget_bytes)
    inputs = list(sample_inputs(sample_dtype(p), op, sample.ranks, sample.count, seed))
    try:
        result = run(
            p.collective,
            inputs,
            algorithm=p.algorithm,
            op=op,
            root=sample.root,
            budget_bytes=budget_bytes,
            gpus_per_node=sample.gpus_per_node,
        )
    except CollectiveError:
        return Check(None, sample)
    return Check(verify(result, inputs), sample)
