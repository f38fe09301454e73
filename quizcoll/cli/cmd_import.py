"""Import cards from an Anki package (.apkg: basic and cloze notes, and notes quizcoll
exported) or a CSV file (front, back, tags) into a card file (YAML) that `quizcoll check`
accepts. Ids are slugs of the questions, the same on every import. Notes of other types are
listed on stderr, one line per note type. Newer Anki packages (collection.anki21b) need
`pip install 'quizcoll[anki]'`. Without -o the card file goes to stdout.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, metavar="FILE", help="an .apkg or .csv file")
    parser.add_argument(
        "-o", "--output", type=Path, metavar="DECK.yaml", help="the card file to write"
    )
    parser.add_argument(
        "--deck",
        metavar="NAME",
        help="put every card in this deck (default: the Anki deck names, as slugs)",
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from deck.interchange.importing import build_cards, card_file_text
    from quizcoll.cli.cmd_export import write_file
    from quizcoll.cli.common import UsageError

    path: Path = args.file
    kind = path.suffix.lower()
    if kind in (".apkg", ".colpkg"):
        from deck.interchange.importing.apkg import read_package

        notes, skipped = read_package(path)
    elif kind in (".csv", ".tsv", ".txt"):
        from deck.interchange.importing.table import read_csv

        notes, skipped = read_csv(path), []
    else:
        raise UsageError(f"{path}: expected an .apkg or .csv file")
    deck, cards, empty = build_cards(notes, args.deck)
    for item in [*skipped, *empty]:
        print(f"{path}: {item.line()}", file=sys.stderr)
    if not cards:
        raise UsageError(f"{path}: no basic or cloze notes to import")
    text = card_file_text(deck, cards, path.name)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_file(args.output, text)
    counts = {}
    for note in notes:
        counts[note.kind] = counts.get(note.kind, 0) + 1
    what = ", ".join(f"{n} {k}" for k, n in counts.items())
    where = f" to {args.output}" if args.output else ""
    print(f"imported {len(cards)} card(s) ({what}){where}", file=sys.stderr)
    return 0
