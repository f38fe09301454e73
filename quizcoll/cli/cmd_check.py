"""Validate card files and prove them: every problem with file and line, every verify claim
run over its sweep, every computed card solved for several seeds.

Exit 0 when all is well, 1 when a claim or an answer fails, 2 when a card file is bad.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from quizcoll.cli.common import add_json_argument, number_flag

if TYPE_CHECKING:
    from deck.cards.model import Collection
    from deck.cards.registry import Constant, Registry
    from deck.proving.proofcache import ProofCache


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
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes that prove cards at once (default: the CPUs this process may use)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="prove every card afresh: do not use or update the proofs remembered in the "
        "user cache directory (cards and code unchanged since they passed)",
    )
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="how many displayed numbers each card proves, and by what (collection figure last)",
    )
    parser.add_argument(
        "--explanations",
        action="store_true",
        help="fail on a number of an executable's explanation (the worked solution under "
        "a card's answer) that traces to no proven value (plain check does too: "
        "deck.proving.explanations.FAIL_ON_UNTRACED is on)",
    )
    parser.add_argument(
        "--mutate",
        action="store_true",
        help="mutation score: edit each card one number, unit, option or argument at a time "
        "and count the edits check catches (survivors listed)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="K",
        help="with --mutate: only K mutations, drawn with a fixed seed",
    )
    parser.add_argument(
        "--list-constants",
        action="store_true",
        help="list the declared constants cards may use, with their values and sources",
    )
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    import gc

    # A batch run that builds a few hundred thousand long-lived objects (the cards) and
    # frees little: young collections found nothing to free and took a seventh of loading.
    # The collector is put back as it was (the command may run inside another program).
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 50)
    try:
        return _run(args)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def _run(args: argparse.Namespace) -> int:
    import gc
    import sys

    from deck.proving.explanations import FAIL_ON_UNTRACED
    from deck.proving.verify import run_checks
    from quizcoll.cli.common import UsageError, print_json, report_problems
    from quizcoll.cli.progress import Progress
    from quizcoll.collection import load

    if args.seeds < 1 or args.seeds > 1000:
        raise UsageError("--seeds must be between 1 and 1000")
    if args.list_executables:
        return _list_executables(args.json)
    if args.list_constants:
        return _list_constants(args.json)
    if args.sample is not None and not (1 <= args.sample <= 1_000_000):
        raise UsageError("--sample must be between 1 and 1,000,000")
    if args.mutate:
        return _mutate(args)
    jobs = _jobs(args.jobs)
    progress = Progress("loading", enabled=False if args.json else None)
    collection, registry = load(args.paths or None, on_file=progress, jobs=jobs)
    progress.done()
    collection = _with_interviews(collection, args.paths)
    if args.coverage:
        report_problems(collection.problems)
        return _coverage(collection, registry, args.json) or (2 if collection.problems else 0)
    progress.label = "checking"
    gc.freeze()  # the loaded cards are never garbage: no collection (nor forked worker) scans them
    cache = None if args.no_cache else _proof_cache()
    report = run_checks(
        collection,
        registry,
        seeds=args.seeds,
        on_card=progress,
        jobs=jobs,
        cache=cache,
        explanations=args.explanations or FAIL_ON_UNTRACED,
    )
    progress.done()
    if cache is not None and (why := cache.save()):
        print(f"note: proofs not remembered: {why}", file=sys.stderr)
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
                "remembered": report.remembered,
                "failures": [f.to_dict() | {"text": f.format()} for f in report.errors],
                "warnings": [f.to_dict() | {"text": f.format()} for f in report.warnings],
            }
        )
    else:
        report_problems(collection.problems)
        for f in report.failures:
            print(f.format(), file=sys.stderr)
        warned = f", {len(report.warnings)} warning(s)" if report.warnings else ""
        if report.remembered:
            warned += (
                f" ({report.remembered} card(s) unchanged since they passed, not proven again:"
                " --no-cache proves all)"
            )
        print(
            f"{len(collection.cards)} valid card(s) in {len(collection.files)} file(s); "
            f"{report.claims} claim(s) checked at {report.claim_points:,} point(s); "
            f"{report.instances:,} instance(s) solved; "
            f"{len(collection.problems)} problem(s), {len(report.errors)} failure(s){warned}"
        )
    if collection.problems:
        return 2
    return 1 if report.errors else 0


def _with_interviews(collection: Collection, paths: list[Path]) -> Collection:
    """The collection with the problems of the interview scripts added: the built-in
    scripts when no paths are given, else the script files among ``paths``. Their card ids
    must name cards of the collection (or, for scripts given as paths, the built-in one)."""
    from dataclasses import replace

    from deck.interview.loader import card_problems, load_scripts
    from quizcoll.paths import builtin_scripts_dir

    if not paths:
        root = builtin_scripts_dir()
        scripts, problems = load_scripts([root], display_root=root.parent.parent)
        ids: set[str] = set(collection.by_id())
    else:
        scripts, problems = load_scripts(paths, display_root=Path.cwd(), skip_other=True)
        if not scripts and not problems:
            return collection
        from quizcoll.collection import load

        ids = set(collection.by_id()) | set(load()[0].by_id())
    problems += card_problems(scripts, ids)
    return replace(collection, problems=collection.problems + tuple(problems))


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


def _list_constants(as_json: bool) -> int:
    from deck.cards.spans import Format, FormatKind, format_value
    from deck.units import UnitError
    from quizcoll.cli.common import print_json
    from quizcoll.executables import build_registry

    def shown(c: Constant) -> str:
        if not c.unit:
            return format_value(c.value, c.dimension, Format())
        try:
            return format_value(c.value, c.dimension, Format(FormatKind.UNIT, c.unit))
        except UnitError:  # a label the source prints (``FLOPS/B``), not a unit we scale
            return f"{c.value:g} {c.unit}"

    rows = []
    for c in build_registry().constants.values():
        rows.append(
            {
                "name": c.name,
                "value": c.value,
                "dimension": c.dimension.value,
                "shown": shown(c),
                "source": c.source,
                "provenance": "cited" if c.cited else "derived",
                "quote": c.quote or None,
                "quote_index": c.quote_index,
                "derived_by": c.derived or None,
                "where": c.where or None,
            }
        )
    if as_json:
        print_json(rows)
        return 0
    for row in rows:
        how = f"derived by {row['derived_by']}" if row["derived_by"] else row["source"]
        quote = " ⏎ ".join(line.strip() for line in (row["quote"] or "").splitlines())
        place = "" if row["quote_index"] is None else f" at number {row['quote_index'] + 1}"
        quoted = f'; quoted{place} "{quote}"' if quote else ""
        print(f"{row['name']} = {row['shown']}  ({how}{quoted})")
    return 0


def _proof_cache() -> ProofCache:
    from deck.proving.proofcache import ProofCache
    from quizcoll.fingerprint import code_fingerprint, proof_cache_path

    return ProofCache.open(proof_cache_path(), code_fingerprint())


def _jobs(requested: int | None) -> int:
    """Worker processes for proving: ``--jobs``, else the CPUs this process may run on."""
    import os

    from quizcoll.cli.common import UsageError

    if requested is not None:
        if not 1 <= requested <= 64:
            raise UsageError(f"--jobs must be between 1 and 64, got {requested}")
        return requested
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _coverage(collection: Collection, registry: Registry | None, as_json: bool) -> int:
    """Print per-card and collection coverage; 1 when anything shown is unproven."""
    from deck.proving.coverage import collection_coverage
    from deck.proving.explanations import explanation_numbers
    from deck.proving.independence import collection_independence
    from quizcoll.cli.common import print_json

    rows = collection_coverage(collection, registry)
    held = collection_independence(collection.cards, registry)
    explained = [explanation_numbers(card, registry) for card in collection.cards]
    shown = sum(len(e) for e in explained)
    traced = sum(1 for e in explained for n in e if n.proven)
    proven = sum(r.proven for r in rows)
    total = sum(r.total for r in rows)
    share = proven / total if total else 1.0
    computed = [h for h in held if h.computed]
    independent = sum(1 for h in computed if h.independent)
    if as_json:
        print_json(
            {
                "cards": [
                    {
                        "card": r.card_id,
                        "proven": r.proven,
                        "total": r.total,
                        "computed": h.computed,
                        "independent": h.independent if h.computed else None,
                        "derivations": [p.to_dict() for p in h.pairs],
                        "explanation_numbers": len(e),
                        "explanation_untraced": sorted({n.text for n in e if not n.proven}),
                        "items": [
                            {
                                "field": i.field,
                                "text": i.text,
                                "proof": i.proof or None,
                                "location": str(i.location),
                            }
                            for i in r.items
                        ],
                    }
                    for r, h, e in zip(rows, held, explained, strict=True)
                ],
                "proven": proven,
                "total": total,
                "share": share,
                "computed_cards": len(computed),
                "independent_cards": independent,
                "explanation_numbers": shown,
                "explanation_traced": traced,
            }
        )
    else:
        for r, h in zip(rows, held, strict=True):
            held_by = ""
            if h.computed:
                held_by = (
                    "; answer held independently"
                    if h.independent
                    else "; answer: closed forms only"
                )
            print(f"{r.card_id}: {r.proven}/{r.total} proven{held_by}")
            for i in r.items:
                if not i.proven:
                    print(f"    {i.location}: {i.field}: unproven {i.text!r}")
        print(
            f"coverage: {proven:,} of {total:,} displayed numbers proven "
            f"({share * 100:.1f}%) in {len(rows)} card(s); {independent} of {len(computed)} "
            "computed answers held to a derivation sharing no formula with their executable; "
            f"{traced:,} of {shown:,} numbers in the executables' explanations traced to a "
            "proven value"
        )
    return 1 if proven < total else 0


def _mutate(args: argparse.Namespace) -> int:
    """Print the mutation score of the cards; 1 when any non-equivalent mutation survives."""
    from deck.cards.loader import card_files
    from deck.proving.mutation import run_mutations
    from quizcoll.cli.common import builtin_cards_dir, print_json
    from quizcoll.cli.progress import Progress
    from quizcoll.executables import build_registry

    files = card_files(args.paths or [builtin_cards_dir()])
    progress = Progress("mutating", enabled=False if args.json else None)
    report = run_mutations(files, build_registry(), sample=args.sample, on_mutation=progress)
    progress.done()
    if args.json:
        print_json(
            {
                "total": report.total,
                "caught": report.caught,
                "score": report.score,
                "visible_total": report.visible_total,
                "visible_caught": report.visible_caught,
                "visible_score": report.visible_score,
                "by_kind": {k: {"caught": c, "total": t} for k, (c, t) in report.by_kind.items()},
                "survivors": [m.describe() for m in report.survivors],
            }
        )
    else:
        for kind, (c, t) in report.by_kind.items():
            print(f"{kind}: {c}/{t}")
        for m in report.survivors:
            print(f"survived: {m.describe()}")
        print(
            f"mutation score: {report.visible_caught:,} of {report.visible_total:,} edits of "
            f"what a learner reads caught ({report.visible_percent}); all edits, proofs' own "
            f"expect/args/tolerances/sweeps included: {report.caught:,} of {report.total:,} "
            f"({report.percent})"
        )
    return 1 if report.survivors else 0
