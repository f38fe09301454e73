"""Simulate a collective: steps, bytes per rank, modelled time, and (--trace) every round.

Counts and time come from the algorithm's real schedule at the full size; the outputs
are simulated on data and checked against the collective's definition (at a smaller
element count when the full size would exceed the memory budget).
"""

from __future__ import annotations

import argparse
from typing import Any

from quizcoll.cli.common import UsageError, add_json_argument, print_json

TRACE_MAX_RANKS = 16
COLLECTIVES = (
    "broadcast",
    "scatter",
    "gather",
    "reduce",
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "all_to_all",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("collective", metavar="COLLECTIVE", help=", ".join(COLLECTIVES))
    parser.add_argument("--algorithm", metavar="A", help="algorithm (default: the usual one)")
    parser.add_argument("--ranks", metavar="N", type=int, default=8, help="ranks (default 8)")
    parser.add_argument(
        "--size",
        metavar="SIZE",
        default="1MiB",
        help="per-rank input buffer, e.g. 1GiB, 256MiB, 16MB, 4e6 (default 1MiB)",
    )
    parser.add_argument("--dtype", metavar="DT", default="float32", help="element type")
    parser.add_argument("--op", metavar="OP", default="sum", help="sum, prod, max, min, avg")
    parser.add_argument("--root", metavar="R", type=int, default=0, help="root rank (default 0)")
    parser.add_argument(
        "--link",
        choices=("nvlink", "infiniband"),
        default="nvlink",
        help="cost-model preset for latency and bandwidth (default nvlink)",
    )
    parser.add_argument("--latency", metavar="T", help="per-message latency α, e.g. 5us")
    parser.add_argument("--bandwidth", metavar="BW", help="per-direction bandwidth, e.g. 900GB/s")
    parser.add_argument(
        "--budget", metavar="SIZE", default="1GiB", help="memory budget of the data simulation"
    )
    parser.add_argument("--seed", metavar="N", type=int, default=0, help="seed of the input data")
    parser.add_argument(
        "--trace",
        action="store_true",
        help=f"show every round and every rank's buffer (at most {TRACE_MAX_RANKS} ranks)",
    )
    add_json_argument(parser)


def _quantity(text: str, flag: str, dim: Any) -> float:
    from deck import units

    try:
        return float(units.to_base(text, dim))
    except units.UnitError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from deck import units
    from quizcoll import collectives as co

    try:
        collective = co.get_collective(args.collective)
        algorithm = co.algorithms(collective)
        algorithm = args.algorithm or algorithm[0]
        op = co.get_op(args.op)
        dtype = co.get_dtype(args.dtype)
    except co.CollectiveError as exc:
        raise UsageError(str(exc)) from None
    size = _quantity(args.size, "--size", units.Dim.BYTES)
    budget = _quantity(args.budget, "--budget", units.Dim.BYTES)
    if size <= 0 or not float(size).is_integer() or size % dtype.itemsize:
        raise UsageError(
            f"--size: {args.size} is not a positive whole number of {dtype.name} elements "
            f"({dtype.itemsize} bytes each)"
        )
    if args.trace and args.ranks > TRACE_MAX_RANKS:
        raise UsageError(f"--trace shows at most {TRACE_MAX_RANKS} ranks, got --ranks {args.ranks}")
    link = co.get_preset(args.link)
    latency = (
        link.latency_s
        if args.latency is None
        else _quantity(args.latency, "--latency", units.Dim.SECONDS)
    )
    bandwidth = (
        link.bandwidth
        if args.bandwidth is None
        else _quantity(args.bandwidth, "--bandwidth", units.Dim.RATE)
    )
    count = int(size) // dtype.itemsize
    try:
        model = co.CostModel(co.LinkModel(args.link, latency, bandwidth))
        p = co.plan(collective, args.ranks, count, algorithm=algorithm, dtype=dtype, root=args.root)
        verified, verified_elements = _verify(p, op, int(budget), args.seed)
    except co.CollectiveError as exc:
        raise UsageError(str(exc)) from None
    time_s = p.time(model)
    algbw, busbw = co.bandwidths(collective, p.ranks, p.input_bytes, time_s)
    message = co.message_bytes(collective, p.ranks, p.input_bytes)
    doc: dict[str, Any] = {
        "collective": collective.value,
        "algorithm": p.algorithm,
        "ranks": p.ranks,
        "size_bytes": p.input_bytes,
        "dtype": dtype.name,
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
        "latency_s": latency,
        "bandwidth": bandwidth,
        "algbw": algbw,
        "busbw": busbw,
        "busbw_factor": co.busbw_factor(collective, p.ranks),
        "verified": verified,
        "verified_elements": verified_elements,
    }
    if args.trace:
        doc["trace"] = p.trace.to_json()
    if args.json:
        print_json(doc)
    else:
        print(_table(doc, p, args.trace, link.name if args.latency is None else "custom"))
    return 0


def _verify(p: Any, op: Any, budget: int, seed: int) -> tuple[bool | None, int]:
    """Simulate the plan's algorithm on random data and check it; at the full size when
    the buffers fit the budget, else at a small count with the same remainder mod N."""
    import numpy as np

    from quizcoll import collectives as co

    count = p.count
    if p.buffer_bytes() > budget:
        n = p.ranks
        small = 1 if p.collective in (co.Collective.GATHER, co.Collective.ALL_GATHER) else 0
        count = small or min(count, 4 * n + count % n)
    rng = np.random.default_rng(seed)
    kind = p.dtype.numpy or np.float32  # bfloat16 has no numpy type: check with float32
    inputs = []
    for _ in range(p.ranks):
        if np.issubdtype(kind, np.integer):
            low = 0 if np.issubdtype(kind, np.unsignedinteger) else -8
            inputs.append(rng.integers(low, 9, count).astype(kind))
        elif op is co.Op.PROD:
            inputs.append(rng.uniform(0.5, 1.5, count).astype(kind))
        else:
            inputs.append(rng.standard_normal(count).astype(kind))
    try:
        result = co.run(
            p.collective, inputs, algorithm=p.algorithm, op=op, root=p.root, budget_bytes=budget
        )
    except co.CollectiveError:
        return None, 0
    return co.verify(result, inputs), count


def _table(doc: dict[str, Any], p: Any, trace: bool, link: str) -> str:
    from deck.units import format_bytes, format_bytes_both, format_number, format_rate
    from deck.units import format_seconds as secs

    def rate(x: float | None) -> str:
        return "n/a (one rank: no communication)" if x is None else format_rate(x)

    verified = {True: "yes", False: "NO — outputs differ from the definition", None: "not run"}[
        doc["verified"]
    ]
    if (
        doc["verified"] is not None
        and doc["verified_elements"] * p.dtype.itemsize != doc["size_bytes"]
    ):
        verified += f" (simulated at {doc['verified_elements']:,} elements per rank)"
    lines = [
        f"{doc['collective']} · {doc['algorithm']} · {doc['ranks']} ranks · "
        f"{format_bytes_both(doc['size_bytes'])} per rank ({doc['dtype']}"
        + (f", op {doc['op']}" if p.collective.reduces else "")
        + (f", root {doc['root']}" if p.collective.rooted else "")
        + ")",
        "",
        f"  steps (rounds)     {doc['steps']}",
        f"  max bytes sent     {format_bytes_both(doc['max_bytes_sent'])}"
        f"  = {format_number(doc['traffic_factor'])} × S  (S = {format_bytes(doc['message_bytes'])})",
        f"  total bytes        {format_bytes_both(doc['total_bytes'])}",
        f"  time (α-β model)   {secs(doc['time_s'])}  ({link}: α = {secs(doc['latency_s'])}, "
        f"{format_rate(doc['bandwidth'])} per direction)",
        f"  algbw              {rate(doc['algbw'])}",
        f"  busbw              {rate(doc['busbw'])}  (factor {format_number(doc['busbw_factor'])})",
        f"  verified           {verified}",
    ]
    if p.ranks <= TRACE_MAX_RANKS:
        lines += ["", "  rank        sent            received"]
        for r in range(p.ranks):
            lines.append(
                f"  {r:>4}  {format_bytes(doc['bytes_sent'][r]):>14}  "
                f"{format_bytes(doc['bytes_received'][r]):>14}"
            )
    if trace:
        lines += ["", *_trace_lines(p)]
    return "\n".join(lines)


def _trace_lines(p: Any) -> list[str]:
    from deck.units import format_bytes

    trace = p.trace
    held = trace.holdings()
    n = p.ranks
    width = len(str(n))
    full = f"{n} = fully reduced" if p.collective.reduces else "1 = present"
    slots = (
        f" Slots {n}..{2 * n - 1} receive (slot {n} + s holds what rank s sent)."
        if p.collective.value == "all_to_all"
        else ""
    )
    lines = [
        "Trace: '+' combines into the receiver's chunk, '=' stores it. Buffers show, per "
        f"chunk, how many ranks' data it holds ({full}, · = empty).{slots}",
        "",
        "  before step 1:",
        *_buffer_lines(held[0], width),
    ]
    for step in trace:
        lines.append("")
        lines.append(f"  step {step.index + 1} of {len(trace)}:")
        for src, dst, chunk, dchunk, size, red in zip(
            step.src, step.dst, step.chunk, step.dst_chunk, step.bytes, step.reduce, strict=True
        ):
            lands = "" if chunk == dchunk else f" → slot {dchunk}"
            lines.append(
                f"    rank {src:>{width}} → rank {dst:>{width}}  chunk {chunk}{lands}  "
                f"{format_bytes(size)}  {'+' if red else '='}"
            )
        lines += _buffer_lines(held[step.index + 1], width)
    return lines


def _buffer_lines(state: Any, width: int) -> list[str]:
    rows = []
    for r, chunks in enumerate(state):
        cells = " ".join(f"{c:>{width}}" if c else f"{'·':>{width}}" for c in chunks)
        rows.append(f"    rank {r:>{width}} [ {cells} ]")
    return rows
