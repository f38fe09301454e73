"""List the cards of the collection (or of --cards folders), filtered by deck or tag."""

from __future__ import annotations

import argparse
import sys

from quizcoll.cli.common import add_cards_argument, add_json_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deck", help="only cards of this deck")
    parser.add_argument("--tag", help="only cards with this tag")
    add_cards_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from quizcoll.cli.common import UsageError, print_json, report_problems
    from quizcoll.collection import load

    collection, _ = load(args.cards)
    report_problems(collection.problems)
    # A deck or tag nobody has is a typo, not an empty list (as export and review say).
    if args.deck is not None and args.deck not in collection.decks():
        raise UsageError(f"no deck {args.deck!r} (decks: {', '.join(collection.decks())})")
    if args.tag is not None and not any(args.tag in c.tags for c in collection.cards):
        raise UsageError(f"no card has the tag {args.tag!r}")
    cards = [
        c
        for c in collection.cards
        if (args.deck is None or c.deck == args.deck) and (args.tag is None or args.tag in c.tags)
    ]
    if args.json:
        print_json(
            [
                {
                    "id": c.id,
                    "deck": c.deck,
                    "type": c.type.value,
                    "tags": list(c.tags),
                    "front": c.front,
                    "file": c.location.path,
                    "line": c.location.line,
                    "parametric": c.parametric,
                    "computed": c.computed,
                    "claims": len(c.verify),
                }
                for c in cards
            ]
        )
    else:
        width = max((len(c.id) for c in cards), default=10)
        for c in cards:
            front = " ".join(c.front.split())
            if len(front) > 70:
                front = front[:67] + "..."
            print(f"{c.id:<{width}}  {c.deck:<12} {c.type.value:<8} {front}")
        print(f"{len(cards)} card(s)", file=sys.stderr)
    return 2 if collection.problems else 0
