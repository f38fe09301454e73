"""``quizcoll sim COLLECTIVE --backend gloo|nccl --sweep MIN:MAX``: an nccl-tests-like
sweep on a real backend, printed in nccl-tests' table format (so ``quizcoll calibrate``
reads it back), each size beside the α-β model of the simulated algorithm.

One process group serves every size (local processes, or the surrounding torchrun launch
over ``env://``); sockets bind to loopback unless ``--interface`` names one. With
``--nodes B --gpus-per-node A`` on local processes, the ranks report B simulated nodes
(``HOST-node0`` …) of A ranks each. ``--json`` prints the rows instead of the table.
"""

from __future__ import annotations

import argparse
from typing import Any

from quizcoll.cli.common import UsageError, print_json
from quizcoll.cli.sim_backend import MAX_ITERS


def _sizes(text: str) -> tuple[int, int]:
    from deck import units

    parts = text.split(":")
    if len(parts) != 2:
        raise UsageError(f"--sweep {text!r}: give MIN:MAX, e.g. 8:64MiB")
    try:
        low, high = (units.to_base(p.strip(), units.Dim.BYTES) for p in parts)
    except units.UnitError as exc:
        raise UsageError(f"--sweep: {exc}") from None
    if not (1 <= low <= high <= 2**40 and float(low).is_integer() and float(high).is_integer()):
        raise UsageError(f"--sweep {text!r}: need whole byte counts 1 ≤ MIN ≤ MAX ≤ 1 TiB")
    return int(low), int(high)


def _ranks(args: argparse.Namespace) -> tuple[int, int | None]:
    from quizcoll.collectives.backends.launch import launch_size, launched_by_torchrun

    node_size = None
    if args.nodes is not None or args.gpus_per_node is not None:
        if args.nodes is None or args.gpus_per_node is None:
            raise UsageError("--sweep with simulated nodes needs --nodes B and --gpus-per-node A")
        ranks, node_size = args.nodes * args.gpus_per_node, args.gpus_per_node
        if args.ranks is not None and args.ranks != ranks:
            raise UsageError(f"--ranks {args.ranks} does not match --nodes × --gpus-per-node")
        return ranks, node_size
    if args.ranks is not None:
        return args.ranks, None
    return (launch_size() if launched_by_torchrun() else 8), None


def run_sweep(args: argparse.Namespace) -> int:
    from quizcoll import collectives as co
    from quizcoll.collectives.backends import BackendError, launch
    from quizcoll.collectives.backends.sweep import (
        SweepRow,
        nccl_tests_text,
        size_of,
        sweep_counts,
    )

    if args.backend == "sim":
        raise UsageError("--sweep runs on a real backend: add --backend gloo or nccl")
    if (args.model or "alpha-beta") != "alpha-beta":
        raise UsageError("--sweep compares with the α-β model; leave --model out")
    for flag, value, low in (("--warmup", args.warmup, 0), ("--iters", args.iters, 1)):
        if not low <= value <= MAX_ITERS:
            raise UsageError(f"{flag} must be between {low} and {MAX_ITERS:,}, got {value}")
    low, high = _sizes(args.sweep)
    ranks, node_size = _ranks(args)
    if ranks < 2:
        raise UsageError("--ranks must be at least 2 for a collective")
    try:
        collective = co.get_collective(args.collective)
        op = co.get_op(args.op)
        dtype = co.get_dtype(args.dtype)
        algorithm = args.algorithm or co.algorithms(collective)[0]
        counts = sweep_counts(collective, low, high, dtype.itemsize, ranks)
        link = co.get_preset(args.link or "nvlink")
        model = co.CostModel(
            co.LinkModel(
                link.name,
                link.latency_s if args.latency is None else args.latency,
                link.bandwidth if args.bandwidth is None else args.bandwidth,
            )
        )
        plans = [
            co.plan(collective, ranks, c, algorithm=algorithm, dtype=dtype, root=args.root)
            for c in counts
        ]
        budget = int(args.budget)
        specs = [
            launch.spec_for(
                p, op, args.backend, budget_bytes=budget, seed=args.seed,
                warmup=args.warmup, iters=args.iters,
            )
            for p in plans
        ]  # fmt: skip
        measured = launch.real_runs(
            specs, ranks, budget, interface=args.interface, node_size=node_size
        )
    except (co.CollectiveError, ValueError) as exc:
        if isinstance(exc, BackendError | co.CollectiveError):
            raise UsageError(str(exc)) from None
        raise UsageError(f"--sweep: {exc}") from None
    if measured is None:
        return 0  # a rank other than 0 of a torchrun launch
    rows = [
        SweepRow(size_of(collective, c, dtype.itemsize, ranks), c, m, p.time(model))
        for c, m, p in zip(counts, measured, plans, strict=True)
    ]
    if args.json:
        print_json(_document(args, collective, algorithm, rows, link.name))
        return 0
    print(
        nccl_tests_text(
            collective,
            dtype.name,
            op.value,
            args.root,
            rows,
            backend=args.backend,
            model_name=f"α-β {algorithm} on the {link.name} preset"
            + (" with overrides" if args.latency or args.bandwidth else ""),
        )
    )
    return 0


def _document(
    args: argparse.Namespace, collective: Any, algorithm: str, rows: list[Any], link: str
) -> dict[str, Any]:
    first = rows[0].measurement
    return {
        "collective": collective.value,
        "backend": args.backend,
        "ranks": first.ranks,
        "algorithm": algorithm,
        "link": link,
        "members": first.members,
        "rows": [
            {
                "size": r.size,
                "count": r.count,
                "measured_time_s": r.measurement.time_s,
                "model_time_s": r.model_s,
                "matches_simulation": r.measurement.matches,
            }
            for r in rows
        ],
    }
