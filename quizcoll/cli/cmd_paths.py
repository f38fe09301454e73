"""Where quizcoll keeps things: the review database, the settings file, the built-in cards,
your own card folder with the card files in it, and your calibrated cluster profiles."""

from __future__ import annotations

import argparse

from quizcoll.cli.common import add_db_argument, add_json_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from deck.cards.loader import card_files
    from deck.review.scheduler import config_path
    from quizcoll import profiles
    from quizcoll.cli.common import builtin_cards_dir, default_db_path, emit, user_cards_dir

    db = args.db or default_db_path()
    config = config_path()
    builtin = builtin_cards_dir()
    user = user_cards_dir()
    user_files = card_files([user]) if user.is_dir() else []
    folder = profiles.profiles_dir()
    clusters = profiles.names()
    document = {
        "database": str(db),
        "database_exists": db.is_file(),
        "config": str(config),
        "config_exists": config.is_file(),
        "builtin_cards": str(builtin),
        "builtin_files": [str(f) for f in card_files([builtin])],
        "user_cards": str(user),
        "user_cards_exists": user.is_dir(),
        "user_files": [str(f) for f in user_files],
        "profiles": str(folder),
        "profile_names": list(clusters),
    }

    def state(exists: bool) -> str:
        return "" if exists else "  (not created yet)"

    lines = [
        f"review database  {db}{state(db.is_file())}",
        f"settings         {config}{state(config.is_file())}",
        f"built-in cards   {builtin}  ({len(document['builtin_files'])} files)",
        f"your cards       {user}{state(user.is_dir())}",
        *(f"  {f}" for f in user_files),
    ]
    if not user.is_dir():
        lines.append("  `quizcoll new DECK` starts a card file there")
    lines.append(f"your clusters    {folder}{state(folder.is_dir())}")
    lines += [f"  {n}  (quizcoll --cluster {n})" for n in clusters]
    if not clusters:
        lines.append("  `quizcoll calibrate LOG --name NAME` saves one there")
    return emit(args, document, "\n".join(lines))
