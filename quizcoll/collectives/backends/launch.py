"""Starting a real run: checks before anything starts, the spec from a plan, and runs
inside a ``torchrun`` launch.

:func:`real_run` is what ``quizcoll sim --backend gloo|nccl`` calls: inside a torchrun
launch it joins that group (``env://``: ``MASTER_ADDR``, ``MASTER_PORT``, ``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK``), so the run spans the launch's machines; otherwise it
starts a :class:`~.local.LocalGroup` of N processes here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from quizcoll.collectives.backends import REAL_BACKENDS, BackendError, Measurement, RunSpec
from quizcoll.collectives.backends.processes import socket_env

LOCAL_MAX_PROCESSES = 64  # one process per rank on this machine
TORCHRUN_VARIABLES = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


def launched_by_torchrun() -> bool:
    """Whether this process is one rank of a torchrun (or any ``env://``) launch."""
    return all(os.environ.get(name) for name in TORCHRUN_VARIABLES)


def _pin_sockets(interface: str | None) -> None:
    """Inside a torchrun launch: bind to ``interface``, else to loopback — which works
    only when every rank is on this machine (``MASTER_ADDR`` a loopback address)."""
    if interface is None:
        master = os.environ.get("MASTER_ADDR", "")
        if master not in ("localhost", "127.0.0.1", "::1") and not master.startswith("127."):
            raise BackendError(
                f"MASTER_ADDR={master!r} is another machine: name the network interface to "
                "use with --interface NAME (sockets bind to loopback unless told)"
            )
    os.environ.update(socket_env(interface))


def launch_size() -> int:
    """The world size of the launch this process belongs to."""
    try:
        return int(os.environ["WORLD_SIZE"])
    except ValueError:
        raise BackendError(
            f"WORLD_SIZE={os.environ.get('WORLD_SIZE')!r} must be a whole number"
        ) from None


def require_torch(backend: str, local_ranks: int) -> None:
    """One clear line if ``backend`` cannot run ``local_ranks`` ranks on this machine."""
    if backend not in REAL_BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; choose one of sim, gloo, nccl")
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        raise BackendError(
            f'--backend {backend} needs PyTorch: pip install "quizcoll[torch]"'
        ) from None
    if not dist.is_available():
        raise BackendError(f"this PyTorch build has no torch.distributed for --backend {backend}")
    if backend == "gloo" and not dist.is_gloo_available():
        raise BackendError("this PyTorch build has no gloo backend")
    if backend == "nccl":
        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if not dist.is_nccl_available() or gpus < local_ranks:
            raise BackendError(
                f"--backend nccl needs {local_ranks} CUDA GPU(s) on this machine (one per "
                f"rank), found {gpus}{'' if dist.is_nccl_available() else ' and no NCCL'}"
            )


def join_group(backend: str, init_method: str, timeout: timedelta) -> None:
    """Join the process group; for NCCL, on GPU ``LOCAL_RANK``."""
    import torch
    import torch.distributed as dist

    if backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group(
        backend,
        init_method=init_method,
        rank=int(os.environ["RANK"]),
        world_size=launch_size(),
        timeout=timeout,
    )


def spec_for(plan: Any, op: Any, backend: str, **options: Any) -> RunSpec:
    """The run of ``plan`` on ``backend``: the timed run at the plan's full size, the
    comparison at the size :mod:`.sample` picks for one process's share of the budget."""
    from quizcoll.collectives.sample import sample_for

    budget = int(options.pop("budget_bytes"))
    world = plan.ranks
    sample = sample_for(plan, budget // world)
    check = sample.count if sample.ranks == world and sample.root == plan.root else 0
    return RunSpec(
        backend=backend,
        collective=plan.collective.value,
        algorithm=plan.algorithm,
        op=op.value,
        dtype=plan.dtype.name,
        count=plan.count,
        root=plan.root,
        check_count=check,
        gpus_per_node=plan.gpus_per_node,
        budget_bytes=budget // world,
        **options,
    )


def buffer_bytes(spec: RunSpec, world: int) -> int:
    """Bytes of one rank's input and output buffers in the timed run."""
    from quizcoll.collectives.dtypes import get_dtype
    from quizcoll.collectives.semantics import Collective, get_collective

    c = get_collective(spec.collective)
    if c in (Collective.ALL_GATHER, Collective.GATHER):
        output = world * spec.count
    elif c in (Collective.SCATTER, Collective.REDUCE_SCATTER):
        output = spec.count // world
    elif c is Collective.ALL_TO_ALL:
        output = spec.count
    else:  # broadcast, reduce, all_reduce: in place
        output = 0
    return (spec.count + output) * get_dtype(spec.dtype).itemsize


def real_run(
    spec: RunSpec, world: int, budget_bytes: int, *, interface: str | None = None
) -> Measurement | None:
    """Run ``spec`` on ``world`` ranks: in the surrounding torchrun launch (every rank
    calls this; rank 0 gets the measurement, the others None) or on local processes."""
    runs = real_runs([spec], world, budget_bytes, interface=interface)
    return None if runs is None else runs[0]


def real_runs(
    specs: Sequence[RunSpec],
    world: int,
    budget_bytes: int,
    *,
    interface: str | None = None,
    node_size: int | None = None,
) -> list[Measurement] | None:
    """Run every spec, one after another, on one group of ``world`` ranks (a sweep): in
    the surrounding torchrun launch, or on local processes — whose ranks report
    simulated nodes of ``node_size`` ranks each when given. Sockets bind to loopback
    unless ``interface`` names one. Rank 0 gets the measurements; the others None."""
    if launched_by_torchrun():
        return measure_launched(specs, world, budget_bytes, interface)
    if world > LOCAL_MAX_PROCESSES:
        raise BackendError(
            f"--backend {specs[0].backend} starts one process per rank here: at most "
            f"{LOCAL_MAX_PROCESSES}, got {world}; launch with torchrun to span machines"
        )
    for spec in specs:
        _check_memory(spec, world, world, budget_bytes)
    require_torch(specs[0].backend, world)
    from quizcoll.collectives.backends.local import LocalGroup

    env = socket_env(interface)
    with LocalGroup(specs[0].backend, world, env=env, node_size=node_size) as group:
        return [group.run(spec) for spec in specs]


def measure_launched(
    specs: Sequence[RunSpec], world: int, budget_bytes: int, interface: str | None = None
) -> list[Measurement] | None:
    """This process's part of the runs across a torchrun launch of ``world`` ranks."""
    size = launch_size()
    if size != world:
        raise BackendError(
            f"--ranks {world} does not match the launch's WORLD_SIZE={size}; "
            "leave --ranks out or make it equal"
        )
    local = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    for spec in specs:
        _check_memory(spec, world, local, budget_bytes)
    require_torch(specs[0].backend, local)
    _pin_sockets(interface)
    import torch.distributed as dist

    from quizcoll.collectives.backends.torch_ops import measure_in_group

    join_group(specs[0].backend, "env://", timedelta(seconds=300))
    try:
        results = [measure_in_group(spec, "torchrun") for spec in specs]
    finally:
        dist.destroy_process_group()
    if any(r is None for r in results):
        return None
    return [r for r in results if r is not None]


def _check_memory(spec: RunSpec, world: int, here: int, budget_bytes: int) -> None:
    need = buffer_bytes(spec, world) * here
    if need > budget_bytes:
        from quizcoll.collectives.display import format_bytes

        raise BackendError(
            f"the {spec.backend} run needs {format_bytes(need)} of buffers for its {here} "
            f"process(es) on this machine, over --budget {format_bytes(budget_bytes)}; "
            "lower --size or raise --budget"
        )
