"""Export the review history to JSON, or import (merge) one back without duplicating reviews.

``history export`` prints the history itself as one JSON document; ``history import
--json`` prints what the merge did (reviews added, skipped, card states updated)."""

from __future__ import annotations

import argparse
from pathlib import Path

from quizcoll.cli.common import add_db_argument, add_json_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    export = sub.add_parser("export", help="write the whole history as JSON")
    export.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write here (default: stdout)"
    )
    add_db_argument(export)
    imp = sub.add_parser("import", help="merge a history JSON file into the database")
    imp.add_argument("file", type=Path, metavar="FILE")
    add_db_argument(imp)
    add_json_argument(imp)


def run(args: argparse.Namespace) -> int:
    import os
    import sys
    from datetime import UTC, datetime

    from deck.history import dumps, export_history, import_history, read_history_file
    from deck.store import Store
    from quizcoll.cli.common import UsageError, default_db_path

    if args.action is None:
        raise UsageError("say what to do: `history export [-o FILE]` or `history import FILE`")
    path = args.db or default_db_path()
    if args.action == "export":
        with Store.open(path) as store:
            text = dumps(export_history(store, datetime.now(UTC)))
        if args.output is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return 0
        tmp = args.output.with_name(f".{args.output.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, args.output)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise UsageError(f"{args.output}: cannot write: {exc}") from None
        print(f"exported to {args.output}", file=sys.stderr)
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
