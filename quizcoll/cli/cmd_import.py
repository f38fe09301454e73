"""Import cards from an Anki package (.apkg: basic and cloze notes, and notes quizcoll
exported) or a CSV file (front, back, tags) into a card file (YAML) that `quizcoll check`
accepts. Ids are slugs of the questions, the same on every import. Notes of other types are
listed on stderr, one line per note type. Newer Anki packages (collection.anki21b) need
`pip install 'quizcoll[anki]'`.

Without -o the card file goes to the user's card folder (`quizcoll paths`), named after the
deck, where the app and every command load it; an existing file there is never replaced
(pass -o to say which file to write). `-o -` prints the card file on stdout. A file written
anywhere else is not loaded by the app: the command says so and where to move it.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, metavar="FILE", help="an .apkg or .csv file")
    parser.add_argument(
        "-o",
        "--output",
        metavar="DECK.yaml",
        help="the card file to write (default: DECK.yaml in your card folder; - for stdout)",
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
    output = _output(args.output, deck)
    if output is None:
        sys.stdout.write(text)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_file(output, text)
    counts = {}
    for note in notes:
        counts[note.kind] = counts.get(note.kind, 0) + 1
    what = ", ".join(f"{n} {k}" for k, n in counts.items())
    where = f" to {output}" if output else ""
    print(f"imported {len(cards)} card(s) ({what}){where}", file=sys.stderr)
    if output is not None and not _loaded_by_the_app(output):
        from quizcoll.cli.common import user_cards_dir

        print(
            f"note: the app loads card files from {user_cards_dir()}; move {output.name} there "
            f"(or pass --cards {output} to a command) to review it",
            file=sys.stderr,
        )
    return 0


def _output(option: str | None, deck: str) -> Path | None:
    """The file to write: ``-o`` as given, stdout for ``-o -``, else DECK.yaml in the user's
    card folder, which must not exist yet (a user's file is never replaced unasked)."""
    from quizcoll.cli.common import UsageError, user_cards_dir

    if option == "-":
        return None
    if option is not None:
        return Path(option).expanduser()
    target = user_cards_dir() / f"{deck or 'imported'}.yaml"
    if target.exists() or target.is_symlink():
        raise UsageError(
            f"{target} exists; pass -o FILE to choose the file to write (or -o - for stdout)"
        )
    return target


def _loaded_by_the_app(path: Path) -> bool:
    from quizcoll.cli.common import user_cards_dir

    try:
        path.resolve().relative_to(user_cards_dir().resolve())
    except ValueError:
        return False
    return True
