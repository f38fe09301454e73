"""The text of ``quizcoll sim``: the summary table of a collective (flat, or the
hierarchical all-reduce with its traffic per link class, phases and the flat ring beside
it), the per-rank bytes, the real run's figures and, with ``--trace``, every round.

Kept apart from :mod:`.cmd_sim` (flags, checks and the run) so each stays small; like it,
nothing heavy is imported at the top: the unit formatting (:mod:`deck.units`, already loaded
by the command line) but not numpy or the simulator (the plan and its trace arrive as
arguments).
"""

from __future__ import annotations

from typing import Any

from deck.units import format_bytes, format_bytes_both, format_number, format_rate
from deck.units import format_seconds as secs
from quizcoll.cli.sim_backend import measured_lines

TRACE_MAX_RANKS = 16  # per-rank rows and --trace: at most this many ranks


def table(doc: dict[str, Any], p: Any, trace: bool, link: str) -> str:
    def rate(x: float | None) -> str:
        return "n/a (one rank: no communication)" if x is None else format_rate(x)

    verified = _verified_text(doc, p)
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
    return _ending(lines, doc, p, trace)


def _verified_text(doc: dict[str, Any], p: Any) -> str:
    verified = {True: "yes", False: "NO — outputs differ from the definition", None: "not run"}[
        doc["verified"]
    ]
    if doc["verified"] is None:
        return verified
    ranks, elements = doc["verified_ranks"], doc["verified_elements"]
    if ranks != doc["ranks"]:
        shape = f"{ranks:,} ranks"
        if doc.get("verified_gpus_per_node"):
            shape += f" ({ranks // doc['verified_gpus_per_node']:,} nodes × {doc['verified_gpus_per_node']})"
        shape += f" × {elements:,} element{'s' * (elements != 1)} per rank"
        if doc.get("verified_root", doc["root"]) != doc["root"]:
            shape += f", root {doc['verified_root']}"
        verified += (
            f" (data moved at {shape}; counts and time above are for all {doc['ranks']:,} ranks)"
        )
    elif elements * p.dtype.itemsize != doc["size_bytes"]:
        verified += f" (simulated at {elements:,} elements per rank)"
    return verified


def hierarchical_table(doc: dict[str, Any], p: Any, trace: bool) -> str:
    a, b, n = doc["gpus_per_node"], doc["nodes"], doc["ranks"]
    size = doc["size_bytes"]

    def link(key: str) -> str:
        spec = doc[key]
        return f"{spec['name']}: α {secs(spec['latency_s'])}, {format_rate(spec['bandwidth'])}"

    def rate(x: float | None) -> str:
        return "n/a (one rank: no communication)" if x is None else format_rate(x)

    def times_s(x: float) -> str:
        return f"{format_number(x)} × S"

    exact = "=" if p.count % n == 0 else "≈"  # the closed form assumes ab | elements
    intra_formula = doc["intra_node_factor_formula"] * size
    inter_formula = doc["inter_node_factor_formula"] * size
    lines = [
        f"all_reduce · hierarchical · {n} ranks = {b} nodes × {a} GPUs per node · "
        f"{format_bytes_both(size)} per rank ({doc['dtype']}, op {doc['op']})",
        "",
        f"  steps (rounds)     {doc['steps']}",
        f"  max bytes sent     {format_bytes_both(doc['max_bytes_sent'])}"
        f"  = {times_s(doc['traffic_factor'])}  (S = {format_bytes(doc['message_bytes'])})",
        f"  total bytes        {format_bytes_both(doc['total_bytes'])}",
        f"  time (α-β model)   {secs(doc['time_s'])}",
        f"  links              intra {link('intra_link')} · inter {link('inter_link')} "
        "(per direction)",
        f"  algbw              {rate(doc['algbw'])}",
        f"  busbw              {rate(doc['busbw'])}  (factor {format_number(doc['busbw_factor'])})",
        f"  verified           {_verified_text(doc, p)}",
        "",
        f"  {'bytes per GPU':<15}  {'simulated (busiest GPU)':<30}  closed form "
        f"(a = {a} GPUs per node, b = {b} nodes)",
        _traffic_row(
            "intra-node",
            doc["intra_node_bytes_per_gpu"],
            doc["intra_node_factor"],
            f"2(a−1)/a · S    = 2·{a - 1}/{a} · S",
            intra_formula,
            exact,
        ),
        _traffic_row(
            "inter-node",
            doc["inter_node_bytes_per_gpu"],
            doc["inter_node_factor"],
            f"2(b−1)/(ab) · S = 2·{b - 1}/{a * b} · S",
            inter_formula,
            exact,
        ),
    ]
    if exact != "=":
        lines.append(
            f"    (≈: {p.count:,} elements do not split into {n} equal blocks; "
            "the closed forms assume they do)"
        )
    lines += ["", "  time by phase"]
    width = max(len(ph["phase"]) for ph in doc["phases"])
    for ph in doc["phases"]:
        lines.append(
            f"    {ph['phase']:<{width}}  {ph['steps']:>4} "
            f"{'round' if ph['steps'] == 1 else 'rounds':<6}  {secs(ph['time_s']):>10}"
        )
    flat_inter = doc["flat_ring_inter_node_bytes_per_gpu"]
    lines += [
        "",
        f"  flat ring over all {n} ranks as NCCL runs it: one ring per NIC ({a} NICs per "
        "node, their bandwidth adds up)",
        f"    steps {doc['flat_ring_steps']} · time {secs(doc['flat_ring_time_s'])} "
        f"(×{format_number(doc['speedup_vs_flat_ring'], 3)} the hierarchical time)",
        f"    inter-node bytes per NIC {format_bytes(flat_inter / a)} = "
        f"{times_s(flat_inter / a / size)} (one ring through a single NIC: "
        f"{format_bytes(flat_inter)} = {times_s(flat_inter / size)})",
    ]
    if n <= TRACE_MAX_RANKS:
        lines += ["", "  rank  node        sent        received     to other nodes"]
        for r in range(n):
            lines.append(
                f"  {r:>4}  {r // a:>4}  {format_bytes(doc['bytes_sent'][r]):>14}  "
                f"{format_bytes(doc['bytes_received'][r]):>14}  "
                f"{format_bytes(doc['inter_node_bytes_sent'][r]):>14}"
            )
    return _ending(lines, doc, p, trace)


def _ending(lines: list[str], doc: dict[str, Any], p: Any, trace: bool) -> str:
    """``lines`` and what both tables end with: the real run's figures (``--backend``) and,
    with ``--trace``, every round."""
    lines += measured_lines(doc)
    if trace:
        lines += ["", *_trace_lines(p)]
    return "\n".join(lines)


def _traffic_row(
    label: str, sent: int, factor: float, formula: str, closed: float, exact: str
) -> str:
    """One row of the bytes-per-GPU section: the simulated figure, then the closed form."""
    simulated = f"{format_bytes(sent):>11} = {format_number(factor)} × S"
    return f"    {label:<13}  {simulated:<30}  {formula} {exact} {format_bytes(closed)}"


def _trace_lines(p: Any) -> list[str]:
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
            crosses = p.gpus_per_node and src // p.gpus_per_node != dst // p.gpus_per_node
            lines.append(
                f"    rank {src:>{width}} → rank {dst:>{width}}  chunk {chunk}{lands}  "
                f"{format_bytes(size)}  {'+' if red else '='}{'  inter-node' if crosses else ''}"
            )
        lines += _buffer_lines(held[step.index + 1], width)
    return lines


def _buffer_lines(state: Any, width: int) -> list[str]:
    rows = []
    for r, chunks in enumerate(state):
        cells = " ".join(f"{c:>{width}}" if c else f"{'·':>{width}}" for c in chunks)
        rows.append(f"    rank {r:>{width}} [ {cells} ]")
    return rows
