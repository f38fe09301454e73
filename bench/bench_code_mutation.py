"""Benchmark: does ``check`` fail when the code or the data that computes an answer is wrong?

Single mutants (:mod:`deck.proving.codemutation`) of the numbers, arithmetic operators
and comparisons of ``quizcoll/{executables,memory,systems,collectives,constants}`` and of
the numbers of the data tables (``quizcoll/data/*.yaml``, ``quizcoll/memory/models/*.json``),
on a fixed random sample of distinct sites (``--sites``, default 320, ``--seed`` 2026).

Each mutant is applied to a copy of the tree and judged in a fresh process:

- *visible* when the rendered collection (every card's question, options, answer, worked
  solution, hint and claims, at seeds 0, 1, 2) differs from the original's, or the
  program no longer runs;
- then *caught* when ``check`` (all cards, 5 seeds, no proof cache) fails, or the program
  no longer loads; a visible mutant that passes ``check`` *survived*;
- *invisible* when nothing a learner reads changes (not judged further).

A mutant whose worker runs out of memory (3 GiB) or time (180 s), or exits abnormally, is
counted visible and caught: the program no longer runs, so ``check`` cannot pass.

Goal: at least 95% of the visible mutants caught. Survivors are listed by file.
Run: ``python bench/bench_code_mutation.py [--sites N] [--seed S] [--jobs J] [--json OUT]``;
it takes a few seconds per mutant, ``--jobs`` of them at once (one copy of the tree each).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deck.proving.codemutation import Mutant

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (
    "quizcoll/executables",
    "quizcoll/memory",
    "quizcoll/systems",
    "quizcoll/collectives",
    "quizcoll/constants",
)
DATA = ("quizcoll/data/*.yaml", "quizcoll/memory/models/*.json")
SEEDS = (0, 1, 2)
GOAL = 0.95
WORKER_TIMEOUT_S = 180  # the unmutated worker takes about 5 s
MAX_WORKER_BYTES = 3 * 1024**3

_WORKER = r"""
import hashlib, json, sys
digest_wanted = sys.argv[1]
try:
    from deck.cards.loader import load_collection
    from deck.interchange.export.common import render_card
    from deck.proving.verify import run_checks
    from quizcoll.cli.common import builtin_cards_dir
    from quizcoll.executables import build_registry
    registry = build_registry()
    collection = load_collection([builtin_cards_dir()], registry)
except Exception as exc:  # a mutant that breaks loading: the program no longer runs
    print(json.dumps({"visible": True, "caught": True, "why": f"load: {type(exc).__name__}"}))
    sys.exit(0)
h = hashlib.sha256()
h.update(repr([p.format() for p in collection.problems]).encode())
for card in collection.cards:
    for seed in SEEDS:
        try:
            r = render_card(card, seed, registry)
            shown = (r.question, r.options, r.answer, r.solution, r.hint, r.claims())
        except Exception as exc:
            shown = ("raised", type(exc).__name__)
        h.update(repr(shown).encode("utf-8", "surrogatepass"))
digest = h.hexdigest()
if digest_wanted == "-":
    print(json.dumps({"digest": digest}))
    sys.exit(0)
if digest == digest_wanted:
    print(json.dumps({"visible": False}))
    sys.exit(0)
try:
    report = run_checks(collection, registry, seeds=5)
    caught = bool(collection.problems) or not report.ok
    why = report.errors[0].format()[:200] if report.errors else ""
except Exception as exc:
    caught, why = True, f"check raised {type(exc).__name__}"
print(json.dumps({"visible": True, "caught": caught, "why": why}))
""".replace("SEEDS", repr(SEEDS))


def _limits() -> None:
    """In the worker: at most MAX_WORKER_BYTES of memory (a mutant that makes a schedule
    explode must not take the machine with it)."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MAX_WORKER_BYTES, MAX_WORKER_BYTES))


def _run_worker(tree: Path, digest: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _WORKER, digest],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=WORKER_TIMEOUT_S,
            preexec_fn=_limits,
        )
    except subprocess.TimeoutExpired:
        # check would never finish: it does not pass, and the learner sees nothing at all.
        return {"visible": True, "caught": True, "why": f"timeout {WORKER_TIMEOUT_S} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        # The interpreter died (a mutant that recurses or loops): the program no longer runs.
        return {"visible": True, "caught": True, "why": f"exit {proc.returncode}"}
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from deck.proving.codemutation import sample, tree_mutants

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=320)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, default=None, help="write the full results here")
    parser.add_argument(
        "--jobs", type=int, default=1, help="mutants judged at once (one tree copy each)"
    )
    parser.add_argument(
        "--rejudge",
        type=Path,
        default=None,
        help="judge again, on the tree as it is now, the survivors of an earlier --json run "
        "(found by file, edit and source line: their line numbers may have moved)",
    )
    args = parser.parse_args(argv)

    # The witnesses' registrations are proofs, not what a learner reads: mutating the
    # checker is not the question (quizcoll/witnesses is outside SOURCES for the same reason).
    everything = [
        m for m in tree_mutants(ROOT, SOURCES, DATA) if not Path(m.path).name.startswith("witness_")
    ]
    if args.rejudge is not None:
        chosen = _survivors_now(json.loads(args.rejudge.read_text(encoding="utf-8")), everything)
    else:
        chosen = sample(everything, args.sites, args.seed)
    sites = len({(m.path, m.line, m.col) for m in everything})
    print(
        f"{len(everything):,} mutants at {sites:,} sites; judging {len(chosen)} (seed {args.seed})"
    )
    with tempfile.TemporaryDirectory(prefix="qc-mutate-") as tmp:
        # One copy of the tree per job: a job mutates its own copy, one mutant at a time.
        trees = [Path(tmp) / f"tree{j}" for j in range(max(1, args.jobs))]
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        for tree in trees:
            for package in ("deck", "quizcoll"):
                shutil.copytree(ROOT / package, tree / package, ignore=ignore)
        digest = str(_run_worker(trees[0], "-")["digest"])
        start = time.perf_counter()
        free: queue.Queue[Path] = queue.Queue()
        for tree in trees:
            free.put(tree)

        def judge(i: int, m: Mutant) -> dict[str, object]:
            tree = free.get()
            try:
                return _judge_in(tree, i, m, digest)
            finally:
                free.put(tree)

        done = 0
        verdicts: dict[int, dict[str, object]] = {}
        with ThreadPoolExecutor(max_workers=len(trees)) as pool:
            futures = {pool.submit(judge, i, m): i for i, m in enumerate(chosen, start=1)}
            for future in as_completed(futures):
                i = futures[future]
                verdicts[i] = verdict = future.result()
                done += 1
                mark = (
                    "invisible"
                    if not verdict["visible"]
                    else ("caught" if verdict["caught"] else "SURVIVED")
                )
                elapsed = time.perf_counter() - start
                print(f"[{done}/{len(chosen)} {elapsed:.0f}s] {mark}: {chosen[i - 1].describe()}")
        results = [(m, verdicts[i]) for i, m in enumerate(chosen, start=1)]
    return _report(results, args.json)


def _judge_in(tree: Path, i: int, m: Mutant, digest: str) -> dict[str, object]:
    """Apply mutant ``m`` to ``tree``, judge it in a fresh process, restore the file."""
    path = tree / m.path
    text = path.read_text(encoding="utf-8")
    stat = path.stat()
    path.write_text(m.apply(text), encoding="utf-8")
    # A distinct mtime per mutant: no stale byte code for an edit of the same size.
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + i * 1_000_000_000))
    try:
        return _run_worker(tree, digest)
    finally:
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _survivors_now(earlier: dict, everything: list) -> list:
    """The earlier run's survivors, located in the current tree: the same file and edit, on
    the line that now holds the same source text."""
    out = []
    for r in earlier["results"]:
        if not r["visible"] or r["caught"]:
            continue
        for m in everything:
            same = m.path == r["path"] and (m.old, m.new, m.kind) == (r["old"], r["new"], r["kind"])
            if same and _line(m) == r["line_text"]:
                out.append(m)
                break
    return out


def _line(m) -> str:  # type: ignore[no-untyped-def]
    return (ROOT / m.path).read_text(encoding="utf-8").splitlines()[m.line - 1]


def _report(results: list, out: Path | None) -> int:
    visible = [(m, v) for m, v in results if v["visible"]]
    caught = [(m, v) for m, v in visible if v["caught"]]
    survivors = [m for m, v in visible if not v["caught"]]
    share = len(caught) / len(visible) if visible else 1.0
    print()
    print(f"judged {len(results)}: visible {len(visible)}, invisible {len(results) - len(visible)}")
    print(f"caught {len(caught)} of {len(visible)} visible ({share:.1%}); goal {GOAL:.0%}")
    by_kind = Counter(m.kind for m, _ in visible)
    caught_kind = Counter(m.kind for m, _ in caught)
    for kind in sorted(by_kind):
        print(f"  {kind}: {caught_kind[kind]} of {by_kind[kind]} caught")
    by_file: dict[str, list[str]] = defaultdict(list)
    for m in survivors:
        by_file[m.path].append(m.describe())
    if survivors:
        print(f"survivors ({len(survivors)}), by file:")
        for path in sorted(by_file, key=lambda p: (-len(by_file[p]), p)):
            print(f"  {path}: {len(by_file[path])}")
            for line in by_file[path]:
                print(f"    {line}")
    if out is not None:
        out.write_text(
            json.dumps(
                {
                    "judged": len(results),
                    "visible": len(visible),
                    "caught": len(caught),
                    "share": share,
                    "results": [m.__dict__ | v | {"line_text": _line(m)} for m, v in results],
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    digest = hashlib.sha256(repr(sorted(m.describe() for m in survivors)).encode()).hexdigest()
    print(f"survivor digest {digest[:12]}")
    return 0 if share >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
