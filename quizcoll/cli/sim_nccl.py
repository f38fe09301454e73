"""``quizcoll sim … --model nccl``: what NCCL's own tuner would pick, and why.

``--gpu`` (a100, h100, h200, b200, l40s), ``--nodes``, ``--gpus-per-node``, ``--nic``,
``--nics-per-node``, ``--pcie``, ``--cpu`` and ``--sharp`` describe the cluster;
``--algorithm`` and ``--protocol`` force NCCL's choice like ``NCCL_ALGO``/``NCCL_PROTO``.
The output gives the chosen (algorithm, protocol), its time and nccl-tests bandwidths,
and every other candidate's time beside it (``--json``: see docs/collectives.md).

Only the flag definitions and the dispatch live in ``cmd_sim``; this module imports
nothing heavy at the top (``quizcoll sim --help`` stays free of numpy).
"""

from __future__ import annotations

import argparse
import difflib
from typing import Any

from quizcoll.cli.common import UsageError, print_json

MODELS = ("alpha-beta", "nccl", "measured")
SIMPLE_ONLY = "runs the Simple protocol only"  # quizcoll.collectives.nccl.tuner.SIMPLE_ONLY
GPUS = ("a100", "h100", "h200", "b200", "l40s")  # quizcoll.collectives.hardware.GPUS
NCCL_FLAGS = (
    ("--gpu", "gpu"),
    ("--protocol", "protocol"),
    ("--nic", "nic"),
    ("--nics-per-node", "nics_per_node"),
    ("--pcie", "pcie"),
    ("--cpu", "cpu"),
    ("--sharp", "sharp"),
)
ALPHA_BETA_FLAGS = (
    ("--link", "link"),
    ("--latency", "latency"),
    ("--bandwidth", "bandwidth"),
    ("--intra-link", "intra_link"),
    ("--inter-link", "inter_link"),
    ("--intra-latency", "intra_latency"),
    ("--intra-bandwidth", "intra_bandwidth"),
    ("--inter-latency", "inter_latency"),
    ("--inter-bandwidth", "inter_bandwidth"),
    ("--trace", "trace"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "NCCL's cost model (--model nccl; --nodes and --gpus-per-node give the cluster)"
    )
    group.add_argument(
        "--model",
        metavar="M",
        help="alpha-beta (default: the simulator's schedule, priced per round), nccl "
        "(NCCL's tuner: the algorithm and protocol NCCL picks and their times) or measured "
        "(NCCL's pick timed as nccl-tests prints it: launch, per-step and latency terms "
        "fitted to published sweeps)",
    )
    group.add_argument("--gpu", metavar="NAME", help=f"{', '.join(GPUS)} (default h100)")
    group.add_argument("--protocol", metavar="P", help="force LL, LL128 or Simple")
    group.add_argument("--nic", metavar="NAME", help="hdr, ndr or xdr (default: the server's)")
    group.add_argument(
        "--nics-per-node", metavar="K", type=int, help="NICs per node (default: one per GPU)"
    )
    group.add_argument("--pcie", metavar="GEN", help="gen3 … gen6 (default: the GPU's)")
    group.add_argument("--cpu", metavar="VENDOR", help="intel or amd (default: the server's)")
    group.add_argument(
        "--sharp", action="store_true", help="the network reduces in-switch (IB SHARP, CollNet)"
    )


def _given(args: argparse.Namespace, flags: tuple[tuple[str, str], ...]) -> list[str]:
    return [flag for flag, name in flags if getattr(args, name, None) not in (None, False)]


def wanted(args: argparse.Namespace) -> bool:
    """Whether ``args`` ask for NCCL's model; refuses NCCL-only flags without it."""
    model = (args.model or "alpha-beta").strip().lower().replace("_", "-")
    if model in ("alphabeta", "ab"):
        model = "alpha-beta"
    if model not in MODELS:
        close = difflib.get_close_matches(model, MODELS, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UsageError(f"--model: {args.model!r} is not one of {', '.join(MODELS)}{hint}")
    if model in ("nccl", "measured"):
        args.model = model
        return True
    _apply_profile(args)
    extra = _given(args, NCCL_FLAGS)
    if extra:
        raise UsageError(f"{extra[0]} applies to --model nccl (NCCL's cost model)")
    return False


def _apply_profile(args: argparse.Namespace) -> None:
    """``--gpu NAME`` naming a profile of ``quizcoll calibrate`` (not a GPU preset): the
    α-β link becomes the measured one — the profile's bus bandwidth (the ring-equivalent
    link rate nccl-tests reports) and its latency floor spread over the ring steps of the
    measured run; ``--latency``/``--bandwidth`` still override."""
    if not args.gpu or args.gpu.strip().lower() in GPUS:
        return
    from quizcoll import profiles

    profile = profiles.load(args.gpu.strip())
    if profile is None:
        where = profiles.profiles_dir()
        raise UsageError(
            f"--gpu {args.gpu!r} is neither a GPU ({', '.join(GPUS)}) nor a profile in "
            f"{where} (make one with: quizcoll calibrate LOG --name NAME)"
        )
    measured = profiles.link(profile)
    if args.latency is None:
        args.latency = measured.latency_s
    if args.bandwidth is None:
        args.bandwidth = measured.bandwidth
    args.gpu = None
    args.profile = profile.name


def _topology(args: argparse.Namespace) -> Any:
    from quizcoll.collectives import nccl

    gpu = args.gpu or "h100"
    per_node = args.gpus_per_node
    nodes = 1 if args.nodes is None else args.nodes
    if args.ranks is not None:
        if args.nodes is None and per_node is None:
            width = nccl.topology(gpu).gpus_per_node
            if args.ranks > width:
                raise UsageError(
                    f"--ranks {args.ranks} does not fit one node of {width} GPUs; give "
                    "--nodes and --gpus-per-node"
                )
            per_node = args.ranks
        else:
            width = per_node if per_node is not None else nccl.topology(gpu).gpus_per_node
            if args.ranks != nodes * width:
                raise UsageError(
                    f"--ranks {args.ranks} does not match --nodes {nodes} × --gpus-per-node "
                    f"{width} = {nodes * width}; leave --ranks out or make it {nodes * width}"
                )
    return nccl.topology(
        gpu,
        nodes,
        per_node,
        nic=args.nic,
        nics_per_node=args.nics_per_node,
        pcie=args.pcie,
        cpu=args.cpu,
        sharp=args.sharp,
    )


def run(args: argparse.Namespace) -> int:
    from deck import units
    from quizcoll import collectives as co
    from quizcoll.collectives import nccl
    from quizcoll.collectives.nccl.report import choice_doc

    extra = _given(args, ALPHA_BETA_FLAGS)
    if extra:
        raise UsageError(f"{extra[0]} applies to --model alpha-beta, not --model nccl")
    try:
        collective = co.get_collective(args.collective)
        dtype = co.get_dtype(args.dtype)
        co.get_op(args.op)  # NCCL's time does not depend on it, but junk is refused
        func = nccl.func(collective.value)
        topo = _topology(args)
        algo = nccl.algorithm(args.algorithm)
        proto = nccl.protocol(args.protocol)
    except (co.CollectiveError, nccl.NcclModelError) as exc:
        raise UsageError(str(exc)) from None
    try:
        size = units.to_base(args.size, units.Dim.BYTES)
    except units.UnitError as exc:
        raise UsageError(f"--size: {exc}") from None
    if not (size > 0 and float(size).is_integer() and size % dtype.itemsize == 0):
        raise UsageError(
            f"--size: {args.size} is not a positive whole number of {dtype.name} elements "
            f"({dtype.itemsize} bytes each)"
        )
    if collective.rooted and not 0 <= args.root < topo.ranks:
        raise UsageError(f"--root must be a rank between 0 and {topo.ranks - 1}, got {args.root}")
    size = int(size)
    message = topo.ranks * size if func is nccl.Func.ALL_GATHER else size
    try:
        choice = nccl.choose(func, message, topo, algo=algo, proto=proto)
    except nccl.NcclModelError as exc:
        raise UsageError(str(exc)) from None
    doc = choice_doc(choice)
    doc.update(
        size_bytes=size,
        dtype=dtype.name,
        forced_algorithm=algo.value if algo else None,
        forced_protocol=proto.value if proto else None,
    )
    if args.model == "measured":
        _measured(doc, choice)
    if args.json:
        print_json(doc)
    else:
        print(_text(doc, topo.describe()))
    return 0


def _measured(doc: dict[str, Any], choice: Any) -> None:
    """``--model measured``: the tuner's pick priced as nccl-tests would time it."""
    from quizcoll.collectives import measured, nccl

    p = measured.fitted()
    terms = measured.price(choice, p)
    time_s = sum(terms.values()) * 1e-6
    algbw = choice.nbytes / time_s
    doc.update(
        model="measured",
        tuner_time_s=doc["time_s"],
        time_s=time_s,
        algbw=algbw,
        busbw=algbw * nccl.busbw_factor(choice.func, choice.topology.ranks),
        measured_terms_s={k: v * 1e-6 for k, v in terms.items()},
        measured_params={
            "launch_s": p.launch_us * 1e-6,
            "k_latency": p.k_latency,
            "step_s": p.step_us * 1e-6,
            "k_fill": p.k_fill(choice),
            "k_fill_by_family": dict(
                zip(measured.FAMILIES, (p.k_fill_tree, p.k_fill_nvls), strict=True)
            ),
            "chunk_bytes": p.chunk,
        },
    )


def _text(doc: dict[str, Any], cluster: str) -> str:
    from deck.units import format_bytes, format_bytes_both, format_number, format_rate
    from deck.units import format_seconds as secs

    pick = f"{doc['algorithm']}/{doc['protocol']}"
    forced = [doc[k] for k in ("forced_algorithm", "forced_protocol") if doc[k]]
    verb = f"runs (forced: {' '.join(forced)})" if forced else "picks"
    lines = [
        f"{doc['collective']} · {format_bytes_both(doc['size_bytes'])} per rank · "
        f"{doc['ranks']} ranks = {cluster}",
        f"NCCL {doc['nccl_version']} {verb} {pick}: {secs(doc['time_s'])}"
        f"{' (measured model)' if doc['model'] == 'measured' else ''}, "
        f"algbw {format_rate(doc['algbw'])}, busbw {format_rate(doc['busbw'])} "
        f"(factor {format_number(doc['busbw_factor'])})",
        "",
        f"  why: {secs(doc['latency_s'])} latency + S = {format_bytes(doc['message_bytes'])} "
        f"over {format_rate(doc['bandwidth'])} ({doc['channels']} channels; bus bandwidth "
        f"{format_rate(doc['bus_bandwidth'])})",
    ]
    for note in doc["corrections"]:
        lines.append(f"       {note}")
    if doc["model"] == "measured":
        parts = " + ".join(
            f"{name.replace('_', ' ')} {secs(t)}"
            for name, t in doc["measured_terms_s"].items()
            if t
        )
        lines += [
            "",
            f"  measured model (fitted to published nccl-tests sweeps): {secs(doc['time_s'])} "
            f"= {parts}; NCCL's own estimate {secs(doc['tuner_time_s'])}",
        ]
    lines += [
        "",
        f"  {'algorithm':<14}{'protocol':<10}{'time':>11}{'latency':>12}{'bandwidth':>14}",
    ]
    off: dict[str, list[str]] = {}
    for c in doc["candidates"]:
        name = f"{c['algorithm']}/{c['protocol']}"
        if not c["available"]:
            if not c["reason"].endswith(SIMPLE_ONLY):  # not a candidate NCCL lists at all
                off.setdefault(c["reason"], []).append(name)
            continue
        mark = "  ← chosen" if name == pick else ""
        lines.append(
            f"  {c['algorithm']:<14}{c['protocol']:<10}{secs(c['time_s']):>11}"
            f"{secs(c['latency_s']):>12}{format_rate(c['bandwidth']):>14}{mark}"
        )
    if off:
        lines += ["", "  not available (NVLS, NVLSTree, CollNet and PAT run Simple only):"]
        lines += [f"    {', '.join(names)}: {reason}" for reason, names in off.items()]
    g = doc["graphs"]
    shown = []
    for key in ("ring", "tree", "nvls", "collnet_direct", "collnet_chain"):
        if g[key] is not None:
            intra, inter = g[key]["bw_intra"] / 1e9, g[key]["bw_inter"] / 1e9
            shown.append(
                f"{key} {g[key]['channels']} × {format_number(intra)}/{format_number(inter)}"
            )
    lines += [
        "",
        f"  channels × GB/s per channel (intra/inter): {' · '.join(shown)}",
        "  links (per direction, NCCL's figure vs line rate): " + _links(doc, format_rate),
    ]
    return "\n".join(lines)


def _links(doc: dict[str, Any], rate: Any) -> str:
    parts = []
    if doc["nvlink_nccl_bw"]:
        parts.append(f"NVLink {rate(doc['nvlink_nccl_bw'])} vs {rate(doc['nvlink_line_rate'])}")
    parts.append(f"PCIe {rate(doc['pcie_nccl_bw'])} vs {rate(doc['pcie_line_rate'])}")
    if doc["nodes"] > 1:
        parts.append(f"NIC {rate(doc['nic_nccl_bw'])} vs {rate(doc['nic_line_rate'])}")
    return " · ".join(parts)
