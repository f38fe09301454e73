"""Benchmark: checking a typed answer, executable included, for every shipped computed card.

For each numeric and formula card: draw an instance, solve it (running its executable
through the registry) and check the exact answer as a user would type it. The figure is
the slowest card's time as a ratio of the 100 ms interactive budget (goal well under 1),
beside the time of merely parsing the same typed answers (the baseline in the same run).
Run: ``python bench/bench_check.py [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time

from deck.answers.checking import check_answer, solve
from deck.cards.instances import draw
from deck.cards.model import CardType
from deck.units import UnitError, parse_quantity
from quizcoll.collection import load

BUDGET_S = 0.100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    collection, registry = load()
    cards = [c for c in collection.cards if c.type in (CardType.NUMERIC, CardType.FORMULA)]
    # The first call of an executable family pays its imports (numpy, the simulator); the
    # app pays them once while it loads, so they are measured apart.
    t0 = time.perf_counter()
    for card in cards:
        solve(card, draw(card, 10_000), registry)
    warmup = time.perf_counter() - t0
    timings: list[tuple[float, str]] = []
    parse_times: list[float] = []
    for card in cards:
        worst = 0.0
        for seed in range(args.seeds):
            inst = draw(card, seed)
            t0 = time.perf_counter()
            sol = solve(card, inst, registry)
            verdict = check_answer(card, inst, sol.typed, registry, solution=sol)
            elapsed = time.perf_counter() - t0
            assert verdict.correct, (card.id, verdict.message)
            worst = max(worst, elapsed)
            t1 = time.perf_counter()
            with contextlib.suppress(UnitError):
                parse_quantity(sol.typed)
            parse_times.append(time.perf_counter() - t1)
        timings.append((worst, card.id))
    timings.sort(reverse=True)
    median = statistics.median(t for t, _ in timings)
    print(f"computed cards: {len(cards)} × {args.seeds} seeds")
    print(f"warm-up pass (imports included), all cards once: {warmup * 1000:.0f} ms")
    print(f"median per check (solve + judge): {median * 1000:.2f} ms")
    print("slowest cards:")
    for t, card_id in timings[:5]:
        print(f"  {t * 1000:7.2f} ms  {card_id}")
    print(
        f"baseline, parsing the typed answer alone: {statistics.median(parse_times) * 1e6:.1f} µs"
    )
    print(f"ratio of slowest check to the 100 ms budget: {timings[0][0] / BUDGET_S:.2f} (goal < 1)")


if __name__ == "__main__":
    main()
