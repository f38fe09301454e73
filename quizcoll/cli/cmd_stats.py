"""Review statistics: reviews per day, true retention, due forecast, streak, decks, leeches."""

from __future__ import annotations

import argparse

from quizcoll.cli.common import add_cards_argument, add_db_argument, add_json_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_cards_argument(parser)
    add_db_argument(parser)
    add_json_argument(parser)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def run(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from deck.review.scheduler import load_config
    from deck.review.stats import compute_stats
    from quizcoll.cli.common import open_store_read_only, print_json
    from quizcoll.collection import load

    config = load_config()
    collection, _registry = load(args.cards)
    store, path = open_store_read_only(args.db)  # stats never creates a database
    with store:
        stats = compute_stats(store, collection.cards, config, datetime.now(UTC))
    if args.json:
        print_json(stats.to_dict())
        return 0
    print(f"database: {path}")
    print(
        f"reviews: {stats.reviews} stored ({stats.practice_reviews} practice), "
        f"{stats.reviews_today} today; cards seen: {stats.cards_seen}"
    )
    print(f"today: {stats.due_now} due now, {stats.new_today} new "
        f"({stats.due_today} due by the end of the day, learning steps included)")
    print(
        f"true retention (mature cards): {_percent(stats.retention)} "
        f"over {stats.mature_reviews} review(s); "
        f"average retrievability: {_percent(stats.average_retrievability)}"
    )
    print(f"streak: {stats.streak_days} day(s)")
    recent = [(d, n) for d, n in stats.reviews_per_day if n]
    if recent:
        print("reviews per day (last 30 days): " + ", ".join(f"{d:%m-%d} {n}" for d, n in recent))
    week = stats.forecast[:7]
    print(
        "due forecast: "
        + " ".join(f"+{i}d {n}" for i, n in enumerate(week))
        + f"; next 30 days {sum(stats.forecast)}"
    )
    if stats.decks:
        print("decks:")
        width = max(len(name) for name, _ in stats.decks)
        for name, c in stats.decks:
            print(
                f"  {name:<{width}}  {c.total} cards: {c.new} new, {c.learning} learning, "
                f"{c.review} review; {c.due} due; {c.suspended} suspended"
                + (f"; {c.orphaned} orphaned" if c.orphaned else "")
            )
    if stats.leeches:
        print(f"leeches ({len(stats.leeches)}, suspended): " + ", ".join(stats.leeches))
    return 0
