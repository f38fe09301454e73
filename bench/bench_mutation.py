"""Mutation score of the built-in collection: how much of what the cards state ``check`` guards.

Every card is edited one number, formula factor, unit, correct option or computation
argument at a time (deck.proving.mutation), and each mutated card is checked on its own. The figure
is the share of non-equivalent mutations that ``check`` catches (goal ≥ 95%), printed with
every survivor. The baseline beside it, measured in the same run on a sample, is the same
collection written the way cards were before they were provable: every checked figure
``{~3.73 GiB=fact}`` typed as plain text (``3.73 GiB``) and unproven text allowed
(``unproven: warn``) — what ``check`` guards when the text a learner reads is not tied to the
runs. Run: ``python bench/bench_mutation.py [--sample K]``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

from deck.cards.loader import card_files
from deck.proving.mutation import run_mutations
from quizcoll.cli.common import builtin_cards_dir
from quizcoll.executables import build_registry

_CHECKED = re.compile(r"\{~([^{}\n]*?)\s*!?=[^{}\n]*\}")


def _as_warn(files: list[Path], folder: Path) -> list[Path]:
    """Copies of ``files`` with checked figures typed as text and ``unproven: warn``: what
    check guarded before the text was tied to the runs."""
    out = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        text = _CHECKED.sub(lambda m: m.group(1), text)
        text = re.sub(r"(?m)^unproven:.*\n", "", text)
        text = re.sub(r"(?m)^(deck:)", r"unproven: warn\n\1", text, count=1)
        copy = folder / path.name
        copy.write_text(text, encoding="utf-8")
        out.append(copy)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=int, default=None, help="only K mutations (seeded)")
    args = parser.parse_args()
    registry = build_registry()
    files = card_files([builtin_cards_dir()])
    t0 = time.perf_counter()
    report = run_mutations(files, registry, sample=args.sample)
    elapsed = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        weak = run_mutations(_as_warn(files, Path(tmp)), registry, sample=args.sample or 400)
    for kind, (caught, total) in report.by_kind.items():
        print(f"  {kind:<36} {caught:>5} / {total:<5}")
    for m in report.survivors:
        print(f"  survived: {m.describe()}")
    print(
        f"mutations: {report.total:,} non-equivalent ({len(report.equivalent):,} equivalent set "
        f"apart) in {elapsed:.0f} s"
    )
    print(f"baseline (figures typed, unproven text allowed): {weak.percent} caught")
    print(
        f"mutation score (edits of what a learner reads): {report.visible_caught:,} of "
        f"{report.visible_total:,} caught, {report.visible_percent} (goal ≥ 95%)"
    )
    print(f"all edits, the proofs' own expect/args/tolerances/sweeps included: {report.percent}")
    sys.exit(0 if report.visible_score >= 0.95 else 1)


if __name__ == "__main__":
    main()
