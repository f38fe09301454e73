"""Fit a hardware profile ("your cluster") to an nccl-tests log.

``quizcoll calibrate FILE`` reads the output of ``all_reduce_perf``, ``all_gather_perf``,
``reduce_scatter_perf``, ``alltoall_perf``, ``broadcast_perf`` … (single-process ``-g``
runs and MPI launches, out-of-place and in-place columns, any size range), fits the
latency floor α and the best bandwidth, prints the fit against every measured size
(the efficiency column: fitted ÷ measured time), and saves the profile as NAME
(``sim --gpu NAME`` then prices collectives with it). A broken or truncated log gets one
line naming the line; exit 2.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING

from quizcoll.cli.common import UsageError, add_json_argument, number_flag

if TYPE_CHECKING:
    from quizcoll.collectives.calibrate import Profile

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="an nccl-tests log (text)")
    parser.add_argument("--name", metavar="NAME", help="profile name (default: from the file name)")
    parser.add_argument(
        "--collective",
        metavar="C",
        choices=COLLECTIVES,
        help="the test, when the log does not name its *_perf binary",
    )
    parser.add_argument(
        "--ranks",
        metavar="N",
        type=number_flag(low=2, high=2**20),
        help="ranks of the run, when the log has no '#  Rank' lines",
    )
    parser.add_argument("--force", action="store_true", help="replace a profile of that name")
    parser.add_argument(
        "--no-save", action="store_true", help="print the fit without writing a profile"
    )
    add_json_argument(parser)


def _default_name(path: str) -> str:
    stem = re.sub(r"[^a-z0-9._-]+", "-", Path(path).stem.lower()).strip("-._")
    return (stem or "cluster")[:64]


def run(args: argparse.Namespace) -> int:
    from deck.base.safeio import read_text
    from quizcoll import profiles
    from quizcoll.cli.common import emit
    from quizcoll.collectives.calibrate import CalibrationError, fit
    from quizcoll.collectives.nccl_tests_log import MAX_CHARS, LogError, parse

    text = read_text(args.file, limit=MAX_CHARS, what="nccl-tests log")
    name = args.name or _default_name(args.file)
    try:
        sweep = parse(text, source=args.file, collective=args.collective)
        profile = fit(sweep, name=name, source=Path(args.file).name, ranks=args.ranks)
    except (LogError, CalibrationError) as exc:
        raise UsageError(str(exc)) from None
    path = None if args.no_save else profiles.save(profile, force=args.force)
    doc = profile.to_json()
    doc["path"] = None if path is None else str(path)
    return emit(args, doc, _text(profile, path))


def _text(p: Profile, path: Path | None) -> str:
    from deck.units import format_bytes, format_rate
    from deck.units import format_seconds as secs

    shape = f"{p.ranks} ranks" + (f" on {p.hosts} hosts" if p.hosts else "")
    lines = [
        f"{p.collective} · {shape} · {p.gpu or 'GPU not named'} · NCCL "
        f"{p.nccl_version or 'version not named'} · {p.source}",
        f"fit: α = {secs(p.line.alpha_s)} (latency floor), busbw = "
        f"{format_rate(p.line.busbw)} (best size; algbw {format_rate(p.line.algbw)})",
        "",
        f"  {'size':>10}{'measured':>12}{'fit':>12}{'busbw meas.':>14}{'busbw fit':>14}"
        f"{'efficiency':>12}  algorithm",
    ]
    for q in p.points:
        lines.append(
            f"  {format_bytes(q.size):>10}{secs(q.measured_time_s):>12}{secs(q.model_time_s):>12}"
            f"{format_rate(q.measured_busbw):>14}{format_rate(q.model_busbw):>14}"
            f"{q.efficiency:>12.2f}  {q.algorithm or ''}"
        )
    for algo, line in p.per_algorithm:
        lines.append(f"  {algo}: α = {secs(line.alpha_s)}, busbw = {format_rate(line.busbw)}")
    lines.append("")
    if path is None:
        lines.append("not saved (--no-save)")
    else:
        lines.append(
            f"saved profile {p.name!r} to {path}; use it with: quizcoll sim all_reduce "
            f"--gpu {p.name} --ranks N --size S, and in the cards and the lab: "
            f"quizcoll --cluster {p.name}"
        )
    return "\n".join(lines)
