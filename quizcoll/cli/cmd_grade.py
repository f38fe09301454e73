"""Grade one answer to one card instance, exactly as a review would.

The instance is the card drawn for --seed; the answer is judged by the same function as the
TUI and `review --plain` (deck.answers.checking.check_answer): the verdict, the expected answer, the
named mistake when the answer is a known one, the feedback and the suggested rating.
Exit 0 when the answer is correct, 1 when it is wrong, 2 when the input is invalid (an
unknown card, a self-graded card, text that cannot be read as an answer).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from quizcoll.cli.common import add_cards_argument, add_cluster_argument, add_json_argument

EXIT_CORRECT, EXIT_WRONG, EXIT_INVALID = 0, 1, 2
MAX_SEED = 2**63 - 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card_id", metavar="CARD_ID")
    parser.add_argument("--seed", type=int, default=0, help="which instance (default 0)")
    parser.add_argument("--answer", required=True, metavar="TEXT", help="the answer to grade")
    add_cards_argument(parser)
    add_cluster_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from deck.answers.checking import check_answer
    from deck.cards.instances import draw
    from deck.cards.model import CardType
    from quizcoll.cli.common import UsageError, cluster_given, find_card, print_json

    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be between 0 and {MAX_SEED}, got {args.seed}")
    card, registry = find_card(args.card_id, args.cards)
    if card.type is CardType.BASIC:
        raise UsageError(f"card {card.id!r} is self-graded (basic): there is nothing to grade")
    instance = draw(card, args.seed, registry, given=cluster_given(args))
    verdict = check_answer(card, instance, args.answer, registry)
    outcome = "invalid" if verdict.invalid else "correct" if verdict.correct else "wrong"
    document: dict[str, Any] = {
        "card": card.id,
        "seed": args.seed,
        "verdict": outcome,
        "expected": verdict.exact,
        "given": verdict.given,
        "mistake": verdict.mistake.to_dict() if verdict.mistake else None,
        "feedback": verdict.feedback,
        "suggested_rating": None if verdict.invalid else verdict.suggested.name.lower(),
    }
    code = {"correct": EXIT_CORRECT, "wrong": EXIT_WRONG, "invalid": EXIT_INVALID}[outcome]
    if args.json:
        print_json(document)
        return code
    if verdict.invalid:
        print(f"quizcoll grade: error: {verdict.message}", file=sys.stderr)
        return code
    print(f"{outcome}: {verdict.given}")
    print(f"expected: {verdict.exact}")
    if verdict.mistake is not None:
        print(f"mistake: {verdict.mistake.id}")
    print(verdict.feedback)
    print(f"suggested rating: {int(verdict.suggested)} {verdict.suggested.name.lower()}")
    return code
