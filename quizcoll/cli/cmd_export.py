"""Export the cards to Markdown (one file, or one per deck into a folder) or to Obsidian's
spaced-repetition card syntax. Same cards and seed: byte-identical output."""

from __future__ import annotations

import argparse
from pathlib import Path

from quizcoll.cli.common import MAX_SEED, add_cards_argument, number_flag


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["markdown", "obsidian"], default="markdown")
    parser.add_argument("--deck", help="only this deck")
    parser.add_argument(
        "--seed",
        type=number_flag(low=0, high=MAX_SEED),
        default=0,
        help="which instance parametric cards show (default 0; 0 to 2^63-1)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=str,
        metavar="OUT",
        help="a file, or a folder for one file per deck (default: stdout)",
    )
    add_cards_argument(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from deck import safeio
    from deck.export import export_markdown, export_obsidian, filter_deck
    from quizcoll.cli.common import UsageError, report_problems
    from quizcoll.cli.progress import Progress
    from quizcoll.collection import load

    collection, registry = load(args.cards)
    report_problems(collection.problems)
    cards = filter_deck(collection.cards, args.deck)
    if not cards:
        decks = ", ".join(collection.decks())
        raise UsageError(
            f"no cards to export (decks: {decks})" if args.deck else "no cards to export"
        )
    progress = Progress("exporting", enabled=None if args.output else False)
    # Path() drops a trailing slash, so read "a folder was meant" from the text as typed.
    out: Path | None = safeio.expand(args.output, "output") if args.output else None
    as_dir = out is not None and (out.is_dir() or args.output.endswith(("/", "\\")))
    if out is not None and not as_dir:
        safeio.check_output(out)  # a bad target is refused before the work, not after
    if args.format == "obsidian":
        notes = export_obsidian(cards, registry, seed=args.seed, on_card=progress)
        if out is None:
            sys.stdout.write("\n".join(notes.values()))
        elif as_dir or len(notes) > 1:
            folder = safeio.output_dir(out)
            for deck, text in notes.items():
                safeio.write_text(safeio.child(folder, f"{deck}.md"), text)
        else:
            safeio.write_text(out, next(iter(notes.values())))
    else:
        if as_dir:
            assert out is not None
            folder = safeio.output_dir(out)
            for deck in sorted({c.deck for c in cards}):
                text = export_markdown(
                    filter_deck(cards, deck), registry, seed=args.seed, title=f"quizcoll: {deck}"
                )
                safeio.write_text(safeio.child(folder, f"{deck}.md"), text)
        else:
            text = export_markdown(cards, registry, seed=args.seed, on_card=progress)
            if out is None:
                sys.stdout.write(text)
            else:
                safeio.write_text(out, text)
    progress.done()
    if out is not None:
        print(f"exported {len(cards)} card(s) to {out}", file=sys.stderr)
    return 2 if collection.problems else 0
