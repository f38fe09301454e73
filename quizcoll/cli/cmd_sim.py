"""Simulate a collective: steps, bytes per rank, modelled time, and (--trace) every round.

Counts and time come from the algorithm's real schedule at the full size; the outputs
are simulated on data and checked against the collective's definition (at a smaller
element count when the full size would exceed the memory budget).

``--algorithm hierarchical --nodes B --gpus-per-node A`` runs the two-level all-reduce
over A × B ranks with an intra-node and an inter-node link class, and reports the bytes
per GPU on each, the time per phase and a flat ring over the same ranks for comparison.

``--model nccl`` asks NCCL's own cost model instead (``quizcoll.cli.sim_nccl``): which
algorithm and protocol NCCL picks on ``--nodes`` × ``--gpus-per-node`` ``--gpu`` GPUs, and
every other candidate's time beside it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from quizcoll.cli import sim_nccl
from quizcoll.cli.common import (
    MAX_FLAG_COUNT,
    MAX_SEED,
    UsageError,
    add_json_argument,
    number_flag,
    print_json,
)
from quizcoll.cli.sim_backend import real_run
from quizcoll.cli.sim_text import TRACE_MAX_RANKS, hierarchical_table, table
from quizcoll.executables.collectives import COLLECTIVES  # light: no numpy

BACKENDS = ("sim", "gloo", "nccl")  # quizcoll.collectives.backends.BACKENDS
MAX_RANKS = 131_072  # quizcoll.collectives.MAX_RANKS (not imported here: it pulls in numpy)
DEFAULT_RANKS = 8
# Per-rank buffers up to 1 TiB: every byte count (ranks × size, summed over ranks) stays an
# exact int64 even at the largest rank counts. Latency up to a minute, bandwidth up to 1 PB/s.
MAX_SIZE = 2**40
MAX_LATENCY_S = 60.0
MAX_BANDWIDTH = 1e15
LINKS = ("nvlink", "infiniband")
HIERARCHICAL = "hierarchical"
NCCL_TREE = "nccl_tree"  # NCCL's trees: a double binary tree over nodes, chains inside
TOPOLOGY_FLAGS = (
    ("--nodes", "nodes"),
    ("--gpus-per-node", "gpus_per_node"),
    ("--intra-link", "intra_link"),
    ("--inter-link", "inter_link"),
    ("--intra-latency", "intra_latency"),
    ("--intra-bandwidth", "intra_bandwidth"),
    ("--inter-latency", "inter_latency"),
    ("--inter-bandwidth", "inter_bandwidth"),
)
FLAT_LINK_FLAGS = (("--link", "link"), ("--latency", "latency"), ("--bandwidth", "bandwidth"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("collective", metavar="COLLECTIVE", help=", ".join(COLLECTIVES))
    parser.add_argument("--algorithm", metavar="A", help="algorithm (default: the usual one)")
    parser.add_argument(
        "--ranks",
        metavar="N",
        type=number_flag(low=1, high=MAX_FLAG_COUNT),
        help="ranks (default 8; hierarchical: nodes × GPUs)",
    )
    parser.add_argument(
        "--size",
        metavar="SIZE",
        default="1MiB",
        type=number_flag(low=1, high=MAX_SIZE, unit="bytes"),
        help="per-rank input buffer, e.g. 1GiB, 256MiB, 16MB, 4e6 (default 1MiB; at most 1 TiB)",
    )
    parser.add_argument("--dtype", metavar="DT", default="float32", help="element type")
    parser.add_argument("--op", metavar="OP", default="sum", help="sum, prod, max, min, avg")
    parser.add_argument(
        "--root",
        metavar="R",
        type=number_flag(low=0, high=MAX_FLAG_COUNT),
        default=0,
        help="root rank (default 0)",
    )
    parser.add_argument(
        "--link",
        choices=LINKS,
        help="cost-model preset for latency and bandwidth (default nvlink)",
    )
    parser.add_argument(
        "--latency",
        metavar="T",
        type=_latency_flag,
        help="per-message latency α, e.g. 5us (0 to 60 s)",
    )
    parser.add_argument(
        "--bandwidth",
        metavar="BW",
        type=_bandwidth_flag,
        help="per-direction bandwidth, e.g. 900GB/s (up to 1 PB/s)",
    )
    topo = parser.add_argument_group(
        "hierarchical all_reduce (--algorithm hierarchical; implied by --nodes)"
    )
    topo.add_argument(
        "--nodes", metavar="B", type=number_flag(low=1, high=MAX_FLAG_COUNT), help="nodes b"
    )
    topo.add_argument(
        "--gpus-per-node",
        metavar="A",
        type=number_flag(low=1, high=MAX_FLAG_COUNT),
        help="GPUs per node a",
    )
    topo.add_argument("--intra-link", choices=LINKS, help="link inside a node (default nvlink)")
    topo.add_argument("--inter-link", choices=LINKS, help="link between nodes (default infiniband)")
    topo.add_argument("--intra-latency", metavar="T", type=_latency_flag, help="α inside a node")
    topo.add_argument(
        "--intra-bandwidth", metavar="BW", type=_bandwidth_flag, help="bandwidth inside a node"
    )
    topo.add_argument("--inter-latency", metavar="T", type=_latency_flag, help="α between nodes")
    topo.add_argument(
        "--inter-bandwidth", metavar="BW", type=_bandwidth_flag, help="bandwidth between nodes"
    )
    parser.add_argument(
        "--budget",
        metavar="SIZE",
        default="1GiB",
        type=number_flag(low=1, high=MAX_SIZE, unit="bytes"),
        help="memory budget of the data simulation (default 1GiB; at most 1 TiB)",
    )
    parser.add_argument(
        "--seed",
        metavar="N",
        type=number_flag(low=0, high=MAX_SEED),
        default=0,
        help="seed of the input data (0 to 2^63-1)",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help=f"show every round and every rank's buffer (at most {TRACE_MAX_RANKS} ranks)",
    )
    real = parser.add_argument_group(
        'real runs on torch.distributed (pip install "quizcoll[torch]")'
    )
    real.add_argument(
        "--backend",
        choices=BACKENDS,
        default="sim",
        help="also run it for real: gloo (CPU processes) or nccl (GPUs), one process per "
        "rank here or across a torchrun launch (default sim: the simulation only)",
    )
    real.add_argument(
        "--warmup", metavar="N", type=int, default=5, help="untimed iterations (default 5)"
    )
    real.add_argument(
        "--iters", metavar="N", type=int, default=20, help="timed iterations (default 20)"
    )
    real.add_argument(
        "--sweep",
        metavar="MIN:MAX",
        help="with --backend: run sizes doubling from MIN to MAX (e.g. 8:64MiB) and print "
        "nccl-tests' table (quizcoll calibrate reads it)",
    )
    real.add_argument(
        "--interface",
        metavar="NAME",
        help="network interface gloo/NCCL sockets bind to (default: loopback)",
    )
    add_json_argument(parser)
    sim_nccl.add_arguments(parser)  # --model nccl: NCCL's cost model


# The flags' own bounds; the link's sign rules (α ≥ 0, bandwidth > 0) are part of them.
_latency_flag = number_flag(low=0, high=MAX_LATENCY_S, integer=False, unit="seconds")
_bandwidth_flag = number_flag(low=1, high=MAX_BANDWIDTH, integer=False, unit="bytes/s")


def _given(args: argparse.Namespace, flags: tuple[tuple[str, str], ...]) -> list[str]:
    return [flag for flag, name in flags if getattr(args, name) is not None]


def _is_hierarchical(args: argparse.Namespace, collective: Any) -> bool:
    """Whether the request is the hierarchical all-reduce; one-line errors for flags that
    belong to the other kind of request."""
    key = (args.algorithm or "").strip().lower().replace("-", "_")
    if key == NCCL_TREE:
        _check_nccl_tree(args, collective)
        return False
    topology = _given(args, TOPOLOGY_FLAGS)
    implied = args.nodes is not None or args.gpus_per_node is not None
    wanted = key == HIERARCHICAL or (not key and implied)
    if not wanted:
        if topology:
            raise UsageError(
                f"{topology[0]} applies to the hierarchical all_reduce only "
                f"(--algorithm hierarchical --nodes B --gpus-per-node A)"
            )
        return False
    if collective.value != "all_reduce":
        raise UsageError(
            f"hierarchical is an all_reduce algorithm (over --nodes × --gpus-per-node); "
            f"{collective.value} has no hierarchical variant"
        )
    missing = [flag for flag, name in TOPOLOGY_FLAGS[:2] if getattr(args, name) is None]
    if missing:
        raise UsageError(
            f"--algorithm hierarchical needs --nodes B and --gpus-per-node A "
            f"(ranks = A × B); missing {' and '.join(missing)}"
        )
    ranks = args.nodes * args.gpus_per_node
    if ranks > MAX_RANKS:
        raise UsageError(
            f"--nodes {args.nodes} × --gpus-per-node {args.gpus_per_node} = {ranks} ranks; "
            f"the simulator takes at most {MAX_RANKS:,}"
        )
    if args.ranks is not None and args.ranks != ranks:
        raise UsageError(
            f"--ranks {args.ranks} does not match --nodes {args.nodes} × --gpus-per-node "
            f"{args.gpus_per_node} = {ranks}; leave --ranks out or make it {ranks}"
        )
    flat = _given(args, FLAT_LINK_FLAGS)
    if flat:
        raise UsageError(
            f"{flat[0]} sets a single link class; the hierarchical all_reduce takes "
            "--intra-link, --inter-link, --intra-latency, --intra-bandwidth, "
            "--inter-latency and --inter-bandwidth"
        )
    return True


def _check_nccl_tree(args: argparse.Namespace, collective: Any) -> None:
    """``--algorithm nccl_tree`` takes ``--nodes`` and ``--gpus-per-node`` (the trees span
    the nodes) and one link class; one-line errors otherwise."""
    if collective.value != "all_reduce":
        raise UsageError(f"nccl_tree is an all_reduce algorithm; {collective.value} has none")
    if args.nodes is None or args.gpus_per_node is None:
        raise UsageError("--algorithm nccl_tree needs --nodes B and --gpus-per-node A")
    ranks = args.nodes * args.gpus_per_node
    if ranks > MAX_RANKS:
        raise UsageError(f"--nodes × --gpus-per-node = {ranks} ranks; at most {MAX_RANKS:,}")
    if args.ranks is not None and args.ranks != ranks:
        raise UsageError(
            f"--ranks {args.ranks} does not match --nodes {args.nodes} × --gpus-per-node "
            f"{args.gpus_per_node} = {ranks}"
        )
    two_level = _given(args, TOPOLOGY_FLAGS[2:])
    if two_level:
        raise UsageError(f"{two_level[0]} applies to the hierarchical all_reduce only")


def _link(preset: str, latency: float | None, bandwidth: float | None, prefix: str) -> Any:
    """A link model from a preset with optional overrides (named ``custom`` if any)."""
    from quizcoll import collectives as co

    return co.with_overrides(preset, latency, bandwidth)


def run(args: argparse.Namespace) -> int:
    if args.sweep is not None:
        from quizcoll.cli.sim_sweep import run_sweep

        return run_sweep(args)
    if sim_nccl.wanted(args):
        return sim_nccl.run(args)
    from quizcoll import collectives as co

    try:
        collective = co.get_collective(args.collective)
        hierarchical = _is_hierarchical(args, collective)
        algorithm = HIERARCHICAL if hierarchical else args.algorithm or co.algorithms(collective)[0]
        op = co.get_op(args.op)
        dtype = co.get_dtype(args.dtype)
    except co.CollectiveError as exc:
        raise UsageError(str(exc)) from None
    size, budget = args.size, args.budget  # whole byte counts, bounded by their flags
    if size % dtype.itemsize:
        raise UsageError(
            f"--size: {size:,} bytes is not a positive whole number of {dtype.name} elements "
            f"({dtype.itemsize} bytes each)"
        )
    nccl_tree = algorithm.strip().lower().replace("-", "_") == NCCL_TREE
    if hierarchical or nccl_tree:
        ranks = args.nodes * args.gpus_per_node
    else:
        ranks = DEFAULT_RANKS if args.ranks is None else args.ranks
        if args.ranks is None and args.backend != "sim":
            from quizcoll.collectives.backends.launch import launch_size, launched_by_torchrun

            ranks = launch_size() if launched_by_torchrun() else ranks
        if ranks == 1:  # one rank has nobody to talk to (other bad counts: checked below)
            raise UsageError("--ranks must be at least 2 for a collective, got 1")
    if args.trace and ranks > TRACE_MAX_RANKS:
        shape = f" (--nodes {args.nodes} × --gpus-per-node {args.gpus_per_node})" * hierarchical
        raise UsageError(f"--trace shows at most {TRACE_MAX_RANKS} ranks, got {ranks}{shape}")
    count = int(size) // dtype.itemsize
    if hierarchical:
        return _run_hierarchical(args, op, dtype, count, int(budget))
    link = co.get_preset(args.link or "nvlink")
    latency = link.latency_s if args.latency is None else args.latency
    bandwidth = link.bandwidth if args.bandwidth is None else args.bandwidth
    try:
        model = co.CostModel(co.LinkModel(link.name, latency, bandwidth))
        per_node = args.gpus_per_node if nccl_tree else None
        p = co.plan(
            collective,
            ranks,
            count,
            algorithm=algorithm,
            dtype=dtype,
            root=args.root,
            gpus_per_node=per_node,
        )
        check = _verify(p, op, int(budget), args.seed)
    except co.CollectiveError as exc:
        raise UsageError(str(exc)) from None
    time_s = p.time(model)
    doc = _document(p, op, time_s, check)
    doc.update(latency_s=latency, bandwidth=bandwidth)
    link_name = link.name if args.latency is None else "custom"
    return _report(args, doc, p, op, int(budget), lambda: table(doc, p, args.trace, link_name))


def _document(p: Any, op: Any, time_s: float, check: Any) -> dict[str, Any]:
    """The keys every ``sim --json`` document has (DESIGN.md, plus a few more)."""
    from quizcoll import collectives as co

    algbw, busbw = co.bandwidths(p.collective, p.ranks, p.input_bytes, time_s)
    message = co.message_bytes(p.collective, p.ranks, p.input_bytes)
    return {
        "collective": p.collective.value,
        "algorithm": p.algorithm,
        "ranks": p.ranks,
        "size_bytes": p.input_bytes,
        "dtype": p.dtype.name,
        "op": op.value,
        "root": p.root,
        "steps": p.steps,
        "bytes_sent": p.bytes_sent.tolist(),
        "bytes_received": p.bytes_received.tolist(),
        "max_bytes_sent": int(p.bytes_sent.max()),
        "total_bytes": int(p.bytes_sent.sum()),
        "message_bytes": message,
        "traffic_factor": int(p.bytes_sent.max()) / message,
        "time_s": time_s,
        "algbw": algbw,
        "busbw": busbw,
        "busbw_factor": co.busbw_factor(p.collective, p.ranks),
        "verified": check.verified,
        "verified_ranks": check.sample.ranks,
        "verified_elements": check.sample.count if check.verified is not None else 0,
        **({"verified_root": check.sample.root} if p.collective.rooted else {}),
    }


def _link_doc(link: Any) -> dict[str, Any]:
    return {"name": link.name, "latency_s": link.latency_s, "bandwidth": link.bandwidth}


def _run_hierarchical(
    args: argparse.Namespace, op: Any, dtype: Any, count: int, budget: int
) -> int:
    """``sim all_reduce --algorithm hierarchical``: the two-level all-reduce, its traffic
    on each link class, its phases, and a flat ring over the same ranks."""
    from quizcoll import collectives as co
    from quizcoll.collectives.cost import per_nic_rings

    b, a = args.nodes, args.gpus_per_node
    n = a * b
    try:
        intra = _link(
            args.intra_link or "nvlink", args.intra_latency, args.intra_bandwidth, "--intra-"
        )
        inter = _link(
            args.inter_link or "infiniband", args.inter_latency, args.inter_bandwidth, "--inter-"
        )
        model = co.CostModel(intra, inter=inter, gpus_per_node=a)
        p = co.plan("all_reduce", n, count, algorithm=HIERARCHICAL, dtype=dtype, gpus_per_node=a)
        flat = co.plan("all_reduce", n, count, algorithm="ring", dtype=dtype)
        check = _verify(p, op, budget, args.seed)
    except co.CollectiveError as exc:
        raise UsageError(str(exc)) from None
    time_s = p.time(model)
    # the flat ring as NCCL runs it: one ring per NIC, so the NICs' bandwidth adds up
    flat_time = flat.time(per_nic_rings(model))
    intra_sent, inter_sent = p.bytes_by_link(a)
    _, flat_inter = flat.bytes_by_link(a)
    size = p.input_bytes
    doc = _document(p, op, time_s, check)
    doc.update(
        nodes=b,
        verified_gpus_per_node=check.sample.gpus_per_node,
        gpus_per_node=a,
        intra_link=_link_doc(intra),
        inter_link=_link_doc(inter),
        intra_node_bytes_per_gpu=int(intra_sent.max()),
        inter_node_bytes_per_gpu=int(inter_sent.max()),
        intra_node_bytes_sent=intra_sent.tolist(),
        inter_node_bytes_sent=inter_sent.tolist(),
        intra_node_factor=int(intra_sent.max()) / size,
        inter_node_factor=int(inter_sent.max()) / size,
        intra_node_factor_formula=2 * (a - 1) / a,  # 2(a−1)/a
        inter_node_factor_formula=2 * (b - 1) / (a * b),  # 2(b−1)/(ab)
        phases=[
            {"phase": name, "steps": rounds, "time_s": seconds}
            for name, rounds, seconds in co.hierarchical_phases(p, model)
        ],
        flat_ring_steps=flat.steps,
        flat_ring_time_s=flat_time,
        flat_ring_inter_node_bytes_per_gpu=int(flat_inter.max()),  # one ring, one NIC
        flat_ring_nics=a,
        flat_ring_inter_node_bytes_per_nic=int(flat_inter.max()) / a,
        speedup_vs_flat_ring=flat_time / time_s if time_s > 0 else 1.0,
    )
    return _report(args, doc, p, op, budget, lambda: hierarchical_table(doc, p, args.trace))


def _report(
    args: argparse.Namespace,
    doc: dict[str, Any],
    p: Any,
    op: Any,
    budget: int,
    text: Callable[[], str],
) -> int:
    """Add the real run's keys (``--backend``) and the trace (``--trace``) to ``doc`` and
    print it: as JSON with ``--json``, else as ``text()`` (drawn only then)."""
    report, measured = real_run(args, p, op, budget)
    if not report:
        return 0  # a rank other than 0 of a torchrun launch: rank 0 reports
    doc.update(measured)
    if args.trace:
        doc["trace"] = p.trace.to_json()
    if args.json:
        print_json(doc)
    else:
        print(text())
    return 0


def _verify(p: Any, op: Any, budget: int, seed: int) -> Any:
    """Move data for the plan's algorithm at a bounded size and check it (see
    :mod:`quizcoll.collectives.sample`)."""
    from quizcoll.collectives.sample import check_plan

    return check_plan(p, op, budget, seed)
