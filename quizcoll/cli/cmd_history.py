"""Export the review history to JSON, or import (merge) one back without duplicating reviews.

``history export`` prints the history itself as one JSON document; ``history import
--json`` prints what the merge did (reviews added, skipped, card states updated)."""

from __future__ import annotations

import argparse

from quizcoll.cli.common import add_db_argument, add_json_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    export = sub.add_parser("export", help="write the whole history as JSON")
    export.add_argument(
        "-o", "--output", type=str, metavar="FILE", help="write here (default: stdout)"
    )
    add_db_argument(export)
    imp = sub.add_parser("import", help="merge a history JSON file into the database")
    imp.add_argument("file", type=str, metavar="FILE")
    add_db_argument(imp)
    add_json_argument(imp)


def run(args: argparse.Namespace) -> int:
    import sys
    from datetime import UTC, datetime

    from deck.base import safeio
    from deck.review.history import dumps, export_history, import_history, read_history_file
    from deck.review.store import Store
    from quizcoll.cli.common import UsageError, default_db_path

    if args.action is None:
        raise UsageError("say what to do: `history export [-o FILE]` or `history import FILE`")
    path = args.db or default_db_path()
    if args.action == "export":
        output = None if args.output is None else safeio.check_output(args.output)
        with Store.open(path, create=False) as store:  # exporting never creates a database
            text = dumps(export_history(store, datetime.now(UTC)))
        if output is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return 0
        safeio.write_text(output, text)
        print(f"exported to {output}", file=sys.stderr)
        return 0
    document = read_history_file(args.file)
    with Store.open(path) as store:
        result = import_history(store, document, str(args.file))
    if args.json:
        from quizcoll.cli.common import print_json

        print_json(
            {
                "file": str(args.file),
                "database": str(path),
                "added": result.added,
                "skipped": result.skipped,
                "cards_updated": result.cards_updated,
            }
        )
        return 0
    print(
        f"imported {args.file}: {result.added} review(s) added, {result.skipped} already there, "
        f"{result.cards_updated} card state(s) updated"
    )
    return 0
