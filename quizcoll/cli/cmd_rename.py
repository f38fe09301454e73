"""Carry a card's review history to a new id (after renaming the card in its YAML file).

History is keyed on the card id, so a card whose id changes in the YAML starts over as
new unless its history follows it: ``quizcoll rename OLD_ID NEW_ID`` moves the card's
state and every review of it to NEW_ID in one transaction. It refuses when NEW_ID already
has a history (two histories are never mixed), and while a review session (the app or
`review --plain`) has the database open: that session would go on rating OLD_ID and split
the history. It never creates a database.
"""

from __future__ import annotations

import argparse

from quizcoll.cli.common import add_cards_argument, add_db_argument, add_json_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old_id", metavar="OLD_ID", help="the id the history is stored under")
    parser.add_argument("new_id", metavar="NEW_ID", help="the card's new id")
    add_cards_argument(parser)
    add_db_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from deck.cards.loader import ID_PATTERN
    from deck.review.store import Store
    from quizcoll.cli.common import UsageError, default_db_path, emit
    from quizcoll.collection import load

    for name, value in (("OLD_ID", args.old_id), ("NEW_ID", args.new_id)):
        if not ID_PATTERN.fullmatch(value):
            raise UsageError(f"{name} {value!r} is not a card id (lowercase letters, digits and -)")
    if args.old_id == args.new_id:
        raise UsageError("OLD_ID and NEW_ID are the same")
    path = args.db or default_db_path()
    if not path.exists():
        raise UsageError(f"no review database at {path}")
    with Store.open(path) as store:
        moved = store.rename_card(args.old_id, args.new_id)
    ids = {c.id for c in load(args.cards)[0].cards}
    notes = []
    if args.new_id not in ids:
        notes.append(f"no card has the id {args.new_id!r} yet: rename it in its YAML file too")
    if args.old_id in ids:
        notes.append(f"a card still has the id {args.old_id!r}: it starts over as new")
    for note in notes:
        print(f"quizcoll rename: note: {note}", file=sys.stderr)
    document = {
        "old_id": args.old_id,
        "new_id": args.new_id,
        "reviews_moved": moved,
        "database": str(path),
        "notes": notes,
    }
    return emit(
        args, document, f"renamed {args.old_id} to {args.new_id}: {moved} review(s) moved in {path}"
    )
