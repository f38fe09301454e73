"""Validate card files and prove them: every problem with file and line, every verify claim
run over its sweep, every computed card solved for several seeds.

Exit 0 when all is well, 1 when a claim or an answer fails, 2 when a card file is bad.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from quizcoll.cli.common import add_json_argument, number_flag


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="card files or folders (default: the built-in collection)",
    )
    parser.add_argument(
        "--seeds",
        type=number_flag(low=1, high=1000),
        default=5,
        metavar="N",
        help="instances to solve per parametric card (default 5)",
    )
    parser.add_argument(
        "--list-executables",
        action="store_true",
        help="list the registered executables with their parameters and fields",
    )
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from deck.verify import run_checks
    from quizcoll.cli.common import UsageError, print_json, report_problems
    from quizcoll.cli.progress import Progress
    from quizcoll.collection import load

    if args.seeds < 1 or args.seeds > 1000:
        raise UsageError("--seeds must be between 1 and 1000")
    if args.list_executables:
        return _list_executables(args.json)
    progress = Progress("loading", enabled=False if args.json else None)
    collection, registry = load(args.paths or None, on_file=progress)
    progress.done()
    progress.label = "checking"
    report = run_checks(collection, registry, seeds=args.seeds, on_card=progress)
    progress.done()
    if args.json:
        print_json(
            {
                "ok": report.ok and not collection.problems,
                "files": len(collection.files),
                "cards": len(collection.cards),
                "problems": [p.to_dict() | {"text": p.format()} for p in collection.problems],
                "claims": report.claims,
                "claim_points": report.claim_points,
                "instances": report.instances,
                "failures": [f.to_dict() | {"text": f.format()} for f in report.failures],
            }
        )
    else:
        report_problems(collection.problems)
        for f in report.failures:
            print(f.format(), file=sys.stderr)
        print(
            f"{len(collection.cards)} valid card(s) in {len(collection.files)} file(s); "
            f"{report.claims} claim(s) checked at {report.claim_points:,} point(s); "
            f"{report.instances:,} instance(s) solved; "
            f"{len(collection.problems)} problem(s), {len(report.failures)} failure(s)"
        )
    if collection.problems:
        return 2
    return 1 if report.failures else 0


def _list_executables(as_json: bool) -> int:
    from quizcoll.cli.common import print_json
    from quizcoll.executables import build_registry

    registry = build_registry()
    rows = []
    for ex in registry:
        rows.append(
            {
                "name": ex.name,
                "summary": ex.summary,
                "params": [
                    {
                        "name": p.name,
                        "kind": p.kind.value,
                        "required": p.required,
                        "min": p.minimum,
                        "max": p.maximum,
                        "choices": list(p.choices) if p.choices else None,
                        "help": p.help,
                    }
                    for p in ex.params
                ],
                "fields": [
                    {"name": f.name, "dimension": f.dimension.value, "help": f.help}
                    for f in ex.fields
                ],
            }
        )
    if as_json:
        print_json(rows)
        return 0
    for row in rows:
        print(f"{row['name']}: {row['summary']}")
        for p in row["params"]:
            bounds = ""
            if p["choices"]:
                bounds = " one of " + ", ".join(p["choices"])
            elif p["min"] is not None or p["max"] is not None:
                bounds = f" in [{p['min']}, {p['max']}]"
            opt = "" if p["required"] else " (optional)"
            print(f"    arg   {p['name']}: {p['kind']}{bounds}{opt}")
        for f in row["fields"]:
            print(f"    field {f['name']}: {f['dimension']}  {f['help']}")
    return 0
