"""Show one card: an instance drawn for --seed, its options, exact answer and worked solution.

With --review K, the card's K-th stored review (1 = first, -1 = last) is shown exactly as it
was asked: the same instance (its seed is stored with the review), what was typed and how
it was rated.
"""

from __future__ import annotations

import argparse

from quizcoll.cli.common import (
    MAX_SEED,
    add_cards_argument,
    add_cluster_argument,
    add_db_argument,
    add_json_argument,
    number_flag,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card_id", metavar="CARD_ID")
    parser.add_argument(
        "--seed",
        type=number_flag(low=0, high=MAX_SEED),
        default=0,
        help="which instance to draw (default 0; 0 to 2^63-1)",
    )
    parser.add_argument(
        "--review",
        type=number_flag(low=-(10**9), high=10**9),
        metavar="K",
        help="show the card's K-th stored review as it was asked (1 = first, -1 = last)",
    )
    add_cards_argument(parser)
    add_db_argument(parser)
    add_cluster_argument(parser)
    add_json_argument(parser)


def _stored_review(args: argparse.Namespace) -> object:
    """The review ``--review`` names, read from the database without creating one."""
    from deck.review.store import Store
    from quizcoll.cli.common import UsageError, default_db_path

    path = args.db or default_db_path()
    with Store.open(path, create=False) as store:
        reviews = store.reviews(args.card_id)
    if not reviews:
        raise UsageError(f"card {args.card_id!r} has no stored review in {path}")
    k = args.review
    if k == 0 or not -len(reviews) <= k <= len(reviews):
        raise UsageError(
            f"--review: card {args.card_id!r} has {len(reviews)} review(s); use 1..{len(reviews)} or -1"
        )
    return reviews[k - 1 if k > 0 else k]


def run(args: argparse.Namespace) -> int:
    from deck.answers.checking import solve
    from deck.cards.instances import (
        draw,
        render_front,
        render_options,
        render_text,
        stored_given,
    )
    from quizcoll.cli.common import cluster_given, find_card, print_json

    card, registry = find_card(args.card_id, args.cards)
    review = _stored_review(args) if args.review is not None else None
    seed = review.seed if review is not None and review.seed is not None else args.seed
    given = cluster_given(args)
    if review is not None and review.given:
        # asked with a cluster's values: the same values again (whatever --cluster says)
        given = stored_given(card, review.given)
    inst = draw(card, seed, registry, given=given)
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
                "seed": seed,
                "given_values": dict(inst.given),
                "review": review.to_dict() if review is not None else None,
                "front": front,
                "options": options,
                "hint": render_text(card.hint, inst).strip() if card.hint else None,
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
    if review is not None:
        verdict = {True: "right", False: "wrong", None: "self-graded"}[review.correct]
        typed = f"answered {review.answer!r} ({verdict})" if review.answer else verdict
        print(
            f"review of {review.reviewed_at:%Y-%m-%d %H:%M} UTC (seed {seed}): {typed}, "
            f"rated {review.rating.name.capitalize()}"
        )
    print()
    print(front.strip())
    for i, opt in enumerate(options):
        print(f"  {chr(ord('a') + i)}) {opt}")
    if card.hint:
        print(f"\nHint: {render_text(card.hint, inst).strip()}")
    print()
    if sol.text:
        print(f"Answer: {sol.text}")
    if sol.markdown():
        print()
        print(sol.markdown())
    if card.source:
        print(f"\nSource: {card.source}")
    return 0
