"""One collective on torch.distributed, compared with the simulator and timed like
nccl-tests: call this on every rank of an initialised process group.

Comparison: every rank makes the simulation's inputs (the same generator and seed as
``sim``'s check), runs the collective once on its own row, runs the simulator on all
rows, and compares its output with the simulator's for its rank (exact for data
movement, integers, max and min; within twice the reassociation bound of a floating
sum, average or product, since both sides reassociate). The verdicts meet in an
all-reduce (min).

Timing (nccl-tests, ``common.cu``): ``warmup`` untimed iterations, a barrier, then
``iters`` back-to-back iterations between two clock reads (after a device synchronise
for NCCL); the time per iteration is averaged over the ranks. The timed run uses the
full size; reducing collectives run in place (torch has no out-of-place all_reduce),
the others out of place.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from quizcoll.collectives.backends import BackendError, Measurement, RunSpec
from quizcoll.collectives.cost import bandwidths
from quizcoll.collectives.dtypes import get_dtype
from quizcoll.collectives.ops import Op, get_op
from quizcoll.collectives.sample import sample_inputs
from quizcoll.collectives.semantics import Collective, get_collective

TORCH_OPS = {Op.SUM: "SUM", Op.PROD: "PRODUCT", Op.MAX: "MAX", Op.MIN: "MIN", Op.AVG: "AVG"}


def node_name() -> str:
    """The host this rank reports (``QUIZCOLL_NODE_NAME`` names a simulated node)."""
    return os.environ.get("QUIZCOLL_NODE_NAME") or socket.gethostname()


def torch_dtype(name: str) -> Any:
    import torch

    kind = get_dtype(name)
    return getattr(torch, kind.name)


def measure_in_group(
    spec: RunSpec, launch: str, clock: Callable[[], float] = time.perf_counter
) -> Measurement | None:
    """Compare and time ``spec`` on this rank; rank 0 gets the measurement, the others
    None. Every rank of the group must call it with the same spec."""
    import torch
    import torch.distributed as dist

    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device(
        f"cuda:{torch.cuda.current_device()}" if spec.backend == "nccl" else "cpu"
    )
    collective, op = get_collective(spec.collective), get_op(spec.op)
    notes: list[str] = []
    matches = None
    if spec.check_count:
        agreed = _compare(spec, collective, op, rank, world, device)
        flag = torch.tensor([int(agreed)], dtype=torch.int32, device=device)
        dist.all_reduce(flag, op=dist.ReduceOp.MIN)
        matches = bool(flag.item())
    mean_s = _time(spec, collective, op, rank, world, device, clock)
    members: list[Any] = [None] * world
    dist.all_gather_object(members, [os.getpid(), node_name()])
    if rank != 0:
        return None
    kind = get_dtype(spec.dtype)
    input_bytes = _input_elems(spec, collective, rank, world) * kind.itemsize
    algbw, busbw = bandwidths(collective, world, input_bytes, mean_s)
    if collective is Collective.ALL_TO_ALL and spec.split_sizes is not None:
        notes.append("uneven all_to_all: S is rank 0's input buffer")
    return Measurement(
        backend=spec.backend,
        ranks=world,
        launch=launch,
        device=device.type,
        torch_version=torch.__version__,
        time_s=mean_s,
        algbw=algbw,
        busbw=busbw,
        warmup=spec.warmup,
        iters=spec.iters,
        matches=matches,
        checked_elements=spec.check_count,
        notes=notes,
        members=[list(m) for m in members],
    )


def _input_elems(spec: RunSpec, collective: Collective, rank: int, world: int) -> int:
    if collective is Collective.ALL_TO_ALL and spec.split_sizes is not None:
        return int(sum(spec.split_sizes[rank]))
    return spec.count


def _compare(
    spec: RunSpec, collective: Collective, op: Op, rank: int, world: int, device: Any
) -> bool:
    """Whether this rank's output on the simulation's inputs equals the simulator's."""
    import torch

    from quizcoll import collectives as co
    from quizcoll.collectives.verification import agrees_with

    kind = np.dtype(get_dtype(spec.dtype).numpy or np.float32)  # bfloat16: float32, as sim
    splits = None if spec.split_sizes is None else np.asarray(spec.split_sizes, dtype=np.int64)
    if splits is None:
        inputs = list(sample_inputs(kind, op, world, spec.check_count, spec.seed))
    else:  # uneven all_to_all: each rank's row is as long as its pieces
        rows = sample_inputs(kind, op, world, int(splits.sum(axis=1).max()), spec.seed)
        inputs = [rows[r, : int(splits[r].sum())] for r in range(world)]
    try:
        simulated = co.run(
            collective,
            inputs,
            algorithm=spec.algorithm,
            op=op,
            root=spec.root,
            split_sizes=splits,
            budget_bytes=spec.budget_bytes,
            gpus_per_node=spec.gpus_per_node,
        )
    except co.CollectiveError as exc:
        raise BackendError(f"the simulator cannot run the comparison: {exc}") from None
    mine = torch.from_numpy(np.ascontiguousarray(inputs[rank])).to(device)
    got = _run(collective, op, mine, spec, rank, world)
    want = simulated.outputs[rank]
    if want is None:
        return True  # no defined result on this rank (non-roots of gather and reduce)
    return agrees_with(collective, got.cpu().numpy(), want, inputs, op, rank=rank, slack=2.0)


def _time(
    spec: RunSpec,
    collective: Collective,
    op: Op,
    rank: int,
    world: int,
    device: Any,
    clock: Callable[[], float],
) -> float:
    """Mean seconds per iteration over ``spec.iters`` timed iterations, averaged over
    the ranks."""
    import torch
    import torch.distributed as dist

    count = _input_elems(spec, collective, rank, world)
    # zeros: every op keeps them finite over repeated in-place iterations, and values do
    # not change the time (no denormals)
    data = torch.zeros(count, dtype=torch_dtype(spec.dtype), device=device)
    buffers = _buffers(collective, data, spec, rank, world)

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for _ in range(spec.warmup):
        _call(collective, op, buffers, spec, rank)
    sync()
    dist.barrier()
    start = clock()
    for _ in range(spec.iters):
        _call(collective, op, buffers, spec, rank)
    sync()
    per_iter = (clock() - start) / max(spec.iters, 1)
    total = torch.tensor([per_iter], dtype=torch.float64, device=device)
    dist.all_reduce(total)  # nccl-tests' default report: the average over ranks
    return float(total.item()) / world


def _buffers(
    collective: Collective, data: Any, spec: RunSpec, rank: int, world: int
) -> dict[str, Any]:
    """The input and output tensors of one call (outputs preallocated, as nccl-tests)."""
    import torch

    c = collective
    out: Any = None
    if c in (Collective.ALL_GATHER, Collective.GATHER):
        out = torch.empty(world * data.numel(), dtype=data.dtype, device=data.device)
    elif c in (Collective.REDUCE_SCATTER, Collective.SCATTER):
        out = torch.empty(data.numel() // world, dtype=data.dtype, device=data.device)
    elif c is Collective.ALL_TO_ALL:
        size = data.numel() if spec.split_sizes is None else sum(r[rank] for r in spec.split_sizes)
        out = torch.empty(size, dtype=data.dtype, device=data.device)
    return {"input": data, "output": out, "world": world}


def _run(collective: Collective, op: Op, data: Any, spec: RunSpec, rank: int, world: int) -> Any:
    """One call on ``data``; this rank's result."""
    buffers = _buffers(collective, data.clone(), spec, rank, world)
    _call(collective, op, buffers, spec, rank)
    return buffers["output"] if buffers["output"] is not None else buffers["input"]


def _call(
    collective: Collective, op: Op, buffers: dict[str, Any], spec: RunSpec, rank: int
) -> None:
    import torch.distributed as dist

    x, out, world = buffers["input"], buffers["output"], buffers["world"]
    reduce_op = getattr(dist.ReduceOp, TORCH_OPS[op])
    c, root = collective, spec.root
    if c is Collective.ALL_REDUCE:
        dist.all_reduce(x, op=reduce_op)
    elif c is Collective.BROADCAST:
        dist.broadcast(x, src=root)
    elif c is Collective.REDUCE:
        dist.reduce(x, dst=root, op=reduce_op)
    elif c is Collective.ALL_GATHER:
        dist.all_gather(list(out.chunk(world)), x)  # views of one buffer: no copy after
    elif c is Collective.REDUCE_SCATTER:
        dist.reduce_scatter(out, list(x.chunk(world)), op=reduce_op)
    elif c is Collective.GATHER:
        dist.gather(x, gather_list=list(out.chunk(world)) if rank == root else None, dst=root)
    elif c is Collective.SCATTER:
        dist.scatter(out, scatter_list=list(x.chunk(world)) if rank == root else None, src=root)
    elif spec.split_sizes is None:
        dist.all_to_all_single(out, x)
    else:
        dist.all_to_all_single(
            out,
            x,
            output_split_sizes=[row[rank] for row in spec.split_sizes],
            input_split_sizes=list(spec.split_sizes[rank]),
        )
