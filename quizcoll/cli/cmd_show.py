"""Show one card: an instance drawn for --seed, its options, exact answer and worked solution."""

from __future__ import annotations

import argparse

from quizcoll.cli.common import add_cards_argument, add_json_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card_id", metavar="CARD_ID")
    parser.add_argument("--seed", type=int, default=0, help="which instance to draw (default 0)")
    add_cards_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from deck.checking import solve
    from deck.instances import draw, render_front, render_options
    from deck.registry import suggest
    from quizcoll.cli.common import UsageError, print_json, report_problems
    from quizcoll.collection import load

    collection, registry = load(args.cards)
    by_id = collection.by_id()
    card = by_id.get(args.card_id)
    if card is None:
        report_problems(collection.problems)
        raise UsageError(f"no card with id {args.card_id!r}{suggest(args.card_id, by_id)}")
    inst = draw(card, args.seed)
    sol = solve(card, inst, registry)
    front = render_front(card, inst)
    options = render_options(card, inst)
    if args.json:
        print_json(
            {
                "id": card.id,
                "deck": card.deck,
                "type": card.type.value,
                "tags": list(card.tags),
                "seed": args.seed,
                "front": front,
                "options": options,
                "values": dict(inst.shown),
                "answer": sol.text,
                "answer_value": sol.value,
                "solution": sol.markdown(),
                "source": card.source,
                "file": card.location.path,
                "line": card.location.line,
            }
        )
        return 0
    print(f"{card.id}  [{card.deck} · {card.type.value} · {', '.join(card.tags)}]")
    print()
    print(front.strip())
    for i, opt in enumerate(options):
        print(f"  {chr(ord('a') + i)}) {opt}")
    print()
    if sol.text:
        print(f"Answer: {sol.text}")
    if sol.markdown():
        print()
        print(sol.markdown())
    if card.source:
        print(f"\nSource: {card.source}")
    return 0
