"""Open the terminal app on the built-in collection (or --cards folders)."""

from __future__ import annotations

import argparse

from quizcoll.cli.common import add_cards_argument, add_cluster_argument, add_db_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_cards_argument(parser)
    add_db_argument(parser)
    add_cluster_argument(parser)


def run(args: argparse.Namespace) -> int:
    from quizcoll.cli.common import default_db_path
    from quizcoll.tui.app import run_app

    return run_app(cards=args.cards, db_path=args.db or default_db_path(), cluster=args.cluster)
