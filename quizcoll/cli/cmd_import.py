"""Import cards from an Anki package (.apkg: basic and cloze notes, and notes quizcoll
exported) or a CSV file (front, back, tags) into a card file (YAML) that `quizcoll check`
accepts. Ids are slugs of the questions, the same on every import, and never clash with
the other cards of your collection. Notes of other types are listed on stderr, one line
per note type. Newer Anki packages (collection.anki21b) need `pip install 'quizcoll[anki]'`.

Without -o the card file goes into your card folder (see `quizcoll paths`) as DECK.yaml;
`-o -` writes it to stdout. An existing file is never replaced without --force, and a link,
folder, FIFO or device in the way is refused, --force or not. The file is checked before it
replaces anything: what lands on disk is a card file `quizcoll check` accepts.
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
        help="the card file to write ('-': stdout; default: DECK.yaml in your card folder)",
    )
    parser.add_argument(
        "--deck",
        metavar="NAME",
        help="put every card in this deck (default: the Anki deck names, as slugs)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing card file")


def _collection_ids() -> dict[Path, frozenset[str]]:
    """The card ids of each file of the collection (built-in and your card folder)."""
    from deck.cards.loader import card_files, load_file
    from quizcoll.cli.common import builtin_cards_dir, user_cards_dir

    user = user_cards_dir()
    out = {}
    for path in card_files([builtin_cards_dir(), *([user] if user.is_dir() else [])]):
        cards, _ = load_file(path)
        out[path.absolute()] = frozenset(card.id for card in cards)
    return out


def _taken(ids: dict[Path, frozenset[str]], target: Path | None) -> frozenset[str]:
    """The ids the imported cards must not reuse: every file's but the one being replaced."""
    skip = target.absolute() if target is not None else None
    return frozenset().union(*(v for k, v in ids.items() if k != skip))


def _refuse_existing(path: Path, force: bool) -> Path:
    from deck.base import safeio
    from quizcoll.cli.common import UsageError

    checked = safeio.check_output(path, "card file")  # a link or special file: refused
    if checked.exists() and not force:
        raise UsageError(f"{checked}: already exists; --force replaces it")
    return checked


def run(args: argparse.Namespace) -> int:
    import sys

    from deck.base import safeio
    from deck.interchange.importing import ImportFailure, build_cards, card_file_text
    from quizcoll.cli.common import UsageError, user_cards_dir

    path: Path = args.file
    kind = path.suffix.lower()
    to_stdout = args.output == "-"
    target = None if to_stdout or args.output is None else Path(args.output)
    if target is not None:
        target = _refuse_existing(target, args.force)  # before any work is spent
    if kind in (".apkg", ".colpkg"):
        from deck.interchange.importing.apkg import read_package

        notes, skipped = read_package(path)
    elif kind in (".csv", ".tsv", ".txt"):
        from deck.interchange.importing.table import read_csv

        notes, skipped = read_csv(path), []
    else:
        raise UsageError(f"{path}: expected an .apkg or .csv file")
    ids = _collection_ids()
    if not to_stdout and target is None:  # DECK.yaml in the card folder: DECK from the notes
        main = build_cards(notes, args.deck)[0]
        target = _refuse_existing(user_cards_dir() / f"{main}.yaml", args.force)
    deck, cards, empty = build_cards(notes, args.deck, _taken(ids, target))
    for item in [*skipped, *empty]:
        print(f"{path}: {item.line()}", file=sys.stderr)
    if not cards:
        raise UsageError(f"{path}: no basic or cloze notes to import")
    text = card_file_text(deck, cards, path.name)
    _must_load(text, str(target) if target else "<stdout>")
    if target is None:
        sys.stdout.write(text)
    else:

        def check(tmp: Path) -> None:  # what is on disk is what we checked
            if tmp.read_text(encoding="utf-8") != text:
                raise ImportFailure(f"{target}: the written file differs; nothing replaced")

        safeio.write_text(target, text, what="card file", check=check)
    counts: dict[str, int] = {}
    for note in notes:
        counts[note.kind] = counts.get(note.kind, 0) + 1
    what = ", ".join(f"{n} {k}" for k, n in counts.items())
    where = f" to {target}" if target else ""
    print(f"imported {len(cards)} card(s) ({what}){where}", file=sys.stderr)
    return 0


def _must_load(text: str, shown: str) -> None:
    """The card file must load against the executables with no problem, as `check` loads it."""
    from deck.cards.loader import load_text
    from deck.interchange.importing import ImportFailure
    from quizcoll.executables import build_registry

    _, problems = load_text(text, shown, build_registry())
    if problems:
        raise ImportFailure(
            f"{shown}: the imported card file would not pass check ({problems[0].format()}); "
            "nothing written"
        )
