"""Export the cards: Markdown (GitHub, Obsidian), the Obsidian spaced-repetition plugin's
card syntax, or an Anki package. ``-o FILE`` writes one file, ``-o DIR/`` (or an existing
folder) one file per deck; without ``-o`` text goes to stdout. Same cards and seed:
byte-identical text.

Anki (``--format apkg -o FILE.apkg``, needs ``pip install 'quizcoll[anki]'``): one note per
card, and ``--instances K`` frozen instances (default 3) of every card with parameters,
drawn with seeds N, N+1, ... (``--seed N``, default 0). Decks are ``quizcoll::DECK``; importing
a later export into the same Anki collection updates the notes instead of duplicating them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from quizcoll.cli.common import MAX_SEED, add_cards_argument, number_flag

if TYPE_CHECKING:
    from deck.cards.model import Card
    from deck.cards.registry import Registry
    from quizcoll.cli.progress import Progress

ANKI_ROOT = "quizcoll"  # decks are quizcoll::collectives, quizcoll::memory, ...


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["markdown", "obsidian", "apkg"], default="markdown")
    parser.add_argument("--deck", help="only this deck")
    parser.add_argument(
        "--seed",
        type=number_flag(low=0, high=MAX_SEED),
        default=0,
        help="which instance parametric cards show (default 0; 0 to 2^63-1); apkg: the first "
        "instance's seed",
    )
    parser.add_argument(
        "--instances",
        type=int,
        default=None,
        metavar="K",
        help="apkg only: frozen instances per parametric card (default 3, at most 100)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=str,
        metavar="OUT",
        help="a file, or a folder (ending in /) for one file per deck (default: stdout)",
    )
    add_cards_argument(parser)


def write_file(path: Path, data: str | bytes) -> None:
    """Every file an export or import writes goes through here: :mod:`deck.base.safeio` (a regular
    file replaced atomically and durably; a link, device or FIFO refused; a failure leaves the
    old file whole)."""
    from deck.base import safeio

    safeio.write_bytes(path, data if isinstance(data, bytes) else data.encode("utf-8"))


def _as_folder(text: str | None) -> bool:
    # Path() drops a trailing slash, so read "a folder was meant" from the text as typed.
    return text is not None and (text.endswith(("/", "\\")) or Path(text).is_dir())


def _check_flags(args: argparse.Namespace) -> None:
    from quizcoll.cli.common import UsageError

    if args.format != "apkg" and args.instances is not None:
        raise UsageError("--instances applies to --format apkg only")
    if args.format == "apkg":
        if not args.output or _as_folder(args.output):
            raise UsageError("--format apkg needs -o FILE.apkg")
        if args.instances is not None and not 1 <= args.instances <= 100:
            raise UsageError(f"--instances must be 1..100, got {args.instances}")
        try:
            import genanki  # noqa: F401
        except ImportError:
            raise UsageError("--format apkg needs genanki: pip install 'quizcoll[anki]'") from None


def run(args: argparse.Namespace) -> int:
    import sys

    from deck.base import safeio
    from deck.interchange.export import filter_deck
    from quizcoll.cli.common import UsageError, report_problems
    from quizcoll.cli.progress import Progress
    from quizcoll.collection import load

    _check_flags(args)
    collection, registry = load(args.cards)
    report_problems(collection.problems)
    cards = filter_deck(collection.cards, args.deck)
    if not cards:
        decks = ", ".join(collection.decks())
        raise UsageError(
            f"no cards to export (decks: {decks})" if args.deck else "no cards to export"
        )
    progress = Progress("exporting", enabled=None if args.output else False)
    out = safeio.expand(args.output, "output") if args.output else None
    if out is not None and not _as_folder(args.output):
        safeio.check_output(out)  # a bad target is refused before the work, not after
    if args.format == "apkg":
        assert out is not None
        count = _export_apkg(cards, registry, out, args, progress)
        what = f"{count} note(s) from {len(cards)} card(s)"
    else:
        texts = _export_text(cards, registry, args, progress)
        if out is None:
            sys.stdout.write("\n".join(texts.values()))
        elif _as_folder(args.output):
            folder = safeio.output_dir(out)
            for deck, text in texts.items():
                # deck names are slugs; child() makes sure no name leaves the folder anyway
                write_file(safeio.child(folder, f"{deck}.md"), text)
        else:
            write_file(out, texts[""])
        what = f"{len(cards)} card(s)"
    progress.done()
    if out is not None:
        print(f"exported {what} to {out}", file=sys.stderr)
    return 2 if collection.problems else 0


def _export_text(
    cards: list[Card], registry: Registry, args: argparse.Namespace, progress: Progress
) -> dict[str, str]:
    """Deck → text for a folder, or ``{"": text}`` for one file or stdout."""
    from deck.interchange.export import (
        export_markdown,
        export_obsidian,
        export_obsidian_note,
        filter_deck,
    )

    per_deck = _as_folder(args.output)
    if args.format == "obsidian":
        if per_deck:
            return export_obsidian(cards, registry, seed=args.seed, on_card=progress)
        return {"": export_obsidian_note(cards, registry, seed=args.seed, on_card=progress)}
    if not per_deck:
        return {"": export_markdown(cards, registry, seed=args.seed, on_card=progress)}
    deck_of = {c.id: c.deck for c in cards}
    texts: dict[str, str] = {}
    for deck in sorted(set(deck_of.values())):
        texts[deck] = export_markdown(
            filter_deck(cards, deck),
            registry,
            seed=args.seed,
            title=f"quizcoll: {deck}",
            link_for=lambda card_id: (
                f"{deck_of[card_id]}.md#{card_id}" if card_id in deck_of else None
            ),
        )
    return texts


def _export_apkg(
    cards: list[Card], registry: Registry, out: Path, args: argparse.Namespace, progress: Progress
) -> int:
    from deck.interchange.export.anki import DEFAULT_INSTANCES, anki_notes, note_type
    from deck.interchange.export.apkg import package_bytes

    notes = anki_notes(
        cards,
        registry,
        instances=args.instances or DEFAULT_INSTANCES,
        seed=args.seed,
        root=ANKI_ROOT,
        on_card=progress,
    )
    write_file(out, package_bytes(note_type(ANKI_ROOT), notes))
    return len(notes)
