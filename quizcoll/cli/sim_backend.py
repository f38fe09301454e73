"""`quizcoll sim --backend gloo|nccl`: the real run's flags checked, its keys and its text.

Kept apart from :mod:`.cmd_sim` (the simulation) so each stays small; torch is imported
only once a real run starts (:mod:`quizcoll.collectives.backends`).
"""

from __future__ import annotations

import argparse
from typing import Any

from quizcoll.cli.common import UsageError

MAX_ITERS = 100_000


def real_run(args: argparse.Namespace, p: Any, op: Any, budget: int) -> tuple[bool, dict]:
    """``(report, keys)``: the measured keys of ``--backend gloo|nccl`` (none for sim);
    ``report`` is false on the ranks of a torchrun launch other than 0."""
    if args.backend == "sim":
        return True, {}
    for flag, value, low in (("--warmup", args.warmup, 0), ("--iters", args.iters, 1)):
        if not low <= value <= MAX_ITERS:
            raise UsageError(f"{flag} must be between {low} and {MAX_ITERS:,}, got {value}")
    from quizcoll.collectives.backends import BackendError, launch

    try:
        spec = launch.spec_for(
            p,
            op,
            args.backend,
            budget_bytes=budget,
            seed=args.seed,
            warmup=args.warmup,
            iters=args.iters,
        )
        measurement = launch.real_run(spec, p.ranks, budget, interface=args.interface)
    except BackendError as exc:
        raise UsageError(str(exc)) from None
    if measurement is None:
        return False, {}
    return True, measurement.document()


def measured_lines(doc: dict[str, Any]) -> list[str]:
    """The text of a real run, under the simulation's figures."""
    if "backend" not in doc:
        return []
    from deck.units import format_rate
    from deck.units import format_seconds as secs

    def rate(x: float | None) -> str:
        return "n/a" if x is None else format_rate(x)

    where = f"{doc['measured_ranks']} {doc['measured_launch']}"
    if doc["measured_launch"] == "torchrun":
        where = f"{doc['measured_ranks']} ranks of a torchrun launch"
    matches = {True: "yes", False: "NO — the outputs differ", None: "not compared"}[
        doc["matches_simulation"]
    ]
    if doc["matches_simulation"] is not None:
        matches += (
            f" (on the simulation's inputs, {doc['measured_checked_elements']:,} elements per rank)"
        )
    return [
        "",
        f"  measured on {doc['backend']} ({where}, {doc['measured_device']}, torch "
        f"{doc['torch_version']}): {doc['measured_warmup_iters']} warm-up + "
        f"{doc['measured_iters']} timed iterations, mean over ranks",
        f"    time             {secs(doc['measured_time_s'])}  (model: {secs(doc['time_s'])})",
        f"    algbw            {rate(doc['measured_algbw'])}",
        f"    busbw            {rate(doc['measured_busbw'])}",
        f"    matches sim      {matches}",
        *(f"    note: {note}" for note in doc["measured_notes"]),
    ]
