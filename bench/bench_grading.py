"""Benchmark: grading wrong and hostile answers, against grading the right one.

For every formula card: the mean time to grade its structural mutations (wrong answers, each
matched against the named mistakes) and its worst hostile inputs (the longest answer read,
nested as deep as allowed), as ratios of the time to grade the exact answer in the same run;
and for one numeric card the time of a 160,000-character run of "(" (18 s before answers
were capped and read without a backtracking regex) as a ratio of a normal answer's.
Run: ``python bench/bench_grading.py [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from formula_mutations import mutations, rewritings

from deck.answers.checking import check_answer, solve
from deck.cards.instances import draw
from deck.cards.model import Card, CardType
from deck.formula import MAX_DEPTH, MAX_LENGTH
from quizcoll.collection import load


def _timed(step: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    collection, registry = load()
    seeds = range(args.seeds)
    hostile = [
        "(" * (MAX_DEPTH - 1) + "N" + ")" * (MAX_DEPTH - 1),
        "+".join(["N"] * (MAX_LENGTH // 2)),
        "N^" * 30 + "2",
    ]
    print(f"{'card':40} {'right ms':>9} {'wrong ×':>8} {'hostile ×':>10} {'hostile ms':>11}")
    for card in collection.cards:
        if card.type is not CardType.FORMULA or card.answer is None:
            continue
        formula = card.answer.formula or ""
        # The baseline: a right answer written differently (not the answer's own text, which
        # is recognised as the same tree at once).
        right_text = [rewritings(formula, card.variables)["reordered"]]
        wrong = [str(m) for m in mutations(formula, card.variables).values()]
        names = [v.name for v in card.variables]
        bad = [h.replace("N", names[0]) for h in hostile]

        def grade(texts: list[str], card: Card = card) -> None:
            for seed in seeds:
                instance = draw(card, seed)
                for text in texts:
                    check_answer(card, instance, text, registry)

        right = _timed(partial(grade, right_text)) / args.seeds
        per_wrong = _timed(partial(grade, wrong)) / (args.seeds * len(wrong))
        per_hostile = _timed(partial(grade, bad)) / (args.seeds * len(bad))
        print(
            f"{card.id:40} {right * 1e3:9.2f} {per_wrong / right:8.1f} "
            f"{per_hostile / right:10.1f} {per_hostile * 1e3:11.2f}"
        )
    numeric = collection.by_id()["weights-in-gib-strict"]
    instance = draw(numeric, 1)
    sol = solve(numeric, instance, registry)
    normal = _timed(lambda: check_answer(numeric, instance, "12.5 GiB", registry, solution=sol))
    flood = _timed(lambda: check_answer(numeric, instance, "(" * 160_000, registry, solution=sol))
    print(f"numeric card, 160,000 '(' vs a normal answer: {flood / normal:.2f}×")


if __name__ == "__main__":
    main()
