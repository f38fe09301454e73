"""Fit personal FSRS parameters from your review history (needs the optimizer extra).

The fit is fsrs's own optimizer run over your schedule reviews (practice reviews are left
out). It learns only from reviews that came at least a day after the card's previous review;
with fewer than 512 of those, fsrs returns its defaults, so that is the default minimum
(--min-reviews). --write stores the parameters as `parameters = [...]` under [review], or
[deck.NAME] with --deck, in config.toml in the user config directory; reviews use them from
then on. Install the extra with: pip install "quizcoll[optimizer]".
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from quizcoll.cli.common import add_db_argument, add_json_argument, number_flag

EXIT_NOT_ENOUGH = 1
DEFAULT_MIN_REVIEWS = 512  # quizcoll.optimize.FSRS_MIN_SPACED_REVIEWS, kept import-free here


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db_argument(parser)
    parser.add_argument(
        "--deck", metavar="D", help="fit one deck's reviews and write under [deck.D]"
    )
    parser.add_argument(
        "--min-reviews",
        type=number_flag(low=0, high=10**9),
        default=DEFAULT_MIN_REVIEWS,
        metavar="N",
        help="refuse with fewer than N reviews a day or more after the card's previous one "
        f"(default {DEFAULT_MIN_REVIEWS}: below it fsrs keeps its defaults)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="store the fitted parameters in the settings file (config.toml)",
    )
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from deck.review.scheduler import config_path, load_config
    from deck.review.store import Store
    from quizcoll import optimize
    from quizcoll.cli.common import UsageError, default_db_path, print_json
    from quizcoll.config_file import table_header

    if args.min_reviews < 0:
        raise UsageError(f"--min-reviews must be 0 or more, got {args.min_reviews}")
    if args.deck is not None and not args.deck.strip():
        raise UsageError("--deck needs a deck name")
    db_path = args.db or default_db_path()
    settings_path = config_path()
    document: dict[str, Any] = {
        "database": str(db_path),
        "deck": args.deck,
        "min_reviews": args.min_reviews,
        "config": str(settings_path),
        "table": table_header(args.deck)[1:-1],
    }

    def refuse(message: str) -> int:
        print(f"quizcoll optimize: {message}; nothing written", file=sys.stderr)
        if args.json:
            print_json(document | {"fitted": False, "written": False, "error": message})
        return EXIT_NOT_ENOUGH

    if not db_path.exists():  # do not create an empty database just to say it is empty
        return refuse(f"no review database at {db_path} yet")
    with Store.open(db_path, create=False) as store:
        history = optimize.review_logs(store.reviews(), deck=args.deck)
    document |= history.to_dict()
    if args.deck is not None and args.deck not in history.decks:
        known = ", ".join(d for d in history.decks if d) or "none"
        return refuse(f"no reviews of deck {args.deck!r} (decks with reviews: {known})")
    if history.spaced < args.min_reviews:
        return refuse(
            f"not enough history to fit: {history.reviews} review(s), of which "
            f"{history.spaced} came a day or more after the card's previous review; "
            f"the fit needs at least {args.min_reviews} of those (--min-reviews)"
        )

    config = load_config(settings_path)  # a broken settings file fails before the long fit
    current = config.for_deck(args.deck).parameters
    try:
        fit = optimize.fit_parameters(
            history.logs, current=current, progress=not args.json and sys.stderr.isatty()
        )
    except optimize.OptimizerMissing as exc:  # no optimizer extra: still one JSON document
        if args.json:
            print_json(document | {"fitted": False, "written": False, "error": str(exc)})
        raise
    document |= fit.to_dict() | {"current_parameters": None if current is None else list(current)}
    if fit.parameters is None:
        return refuse("the optimizer found no parameters (its loss never became finite)")
    if not fit.changed:
        return refuse(
            f"fsrs kept its default parameters: it fits only from {optimize.FSRS_MIN_SPACED_REVIEWS} "
            f"reviews a day or more after the card's previous review, and there are {history.spaced}"
        )

    written = False
    if args.write:
        note = (
            f"fitted by quizcoll optimize from {history.reviews} reviews, "
            f"{datetime.now(UTC):%Y-%m-%d}"
        )
        optimize.write_parameters(settings_path, fit.parameters, args.deck, note=note)
        written = True
    document |= {"fitted": True, "written": written}
    if args.json:
        print_json(document)
        return 0
    _print_report(document, history, fit, current, settings_path, written)
    return 0


def _print_report(
    document: dict[str, Any],
    history: Any,
    fit: Any,
    current: tuple[float, ...] | None,
    settings_path: Any,
    written: bool,
) -> None:
    scope = f"deck {document['deck']}" if document["deck"] is not None else "all decks"
    print(
        f"history ({scope}): {history.reviews} review(s) of {history.cards} card(s), "
        f"{history.spaced} of them a day or more after the card's previous review"
    )
    left_out = []
    if history.practice_left_out:
        left_out.append(f"{history.practice_left_out} practice review(s)")
    if history.cards_left_out:
        left_out.append(f"{len(history.cards_left_out)} card(s) whose history starts mid-way")
    if left_out:
        print("left out: " + ", ".join(left_out))

    def loss(value: float | None) -> str:
        return "–" if value is None else f"{value:.4f}"

    columns = [("default", fit.default_parameters, fit.default_log_loss)]
    if current is not None and current != fit.default_parameters:
        columns.append(("current", current, fit.current_log_loss))
    columns.append(("fitted", fit.parameters, fit.log_loss))
    print(
        "log loss over those reviews (lower is better): "
        + ", ".join(f"{name} {loss(value)}" for name, _, value in columns)
    )
    print("       " + "".join(f"{name:>10}" for name, _, _ in columns))
    for i in range(len(fit.parameters)):
        print(f"  w{i:<4}" + "".join(f"{values[i]:>10.4f}" for _, values, _ in columns))
    table = f"[{document['table']}]"
    if written:
        print(f"written to {settings_path} under {table}; reviews use them from now on")
    else:
        print(f"not written: add --write to store them in {settings_path} under {table}")
