"""Start a card file of your own: ``quizcoll new DECK`` writes DECK.yaml into your card
folder (see ``quizcoll paths``), with the schema comment that lets editors check it and
two example cards to copy from. The folder is loaded beside the built-in collection.

It never overwrites a file without --force, and never writes through anything but a
regular file (a link or a folder in the way is refused, --force or not)."""

from __future__ import annotations

import argparse
from pathlib import Path

STARTER = """\
# yaml-language-server: $schema={schema}
#
# Your deck "{deck}". quizcoll loads this folder beside its built-in cards; run
# `quizcoll check {path}` after editing. The card format, with every card type:
# docs/card-format.md in the quizcoll repository.
deck: "{deck}"
tags: ["{deck}"]

cards:
  - id: {deck}-example-basic          # unique across all decks; your history is keyed on it
    type: basic                       # basic | choice | numeric | formula
    front: What does an all-reduce leave on every rank?
    back: The reduction (for example the sum) of every rank's buffer.
    hint: Reduce, then share the result with everyone.

  - id: {deck}-example-numeric
    type: numeric
    front: "A ring all-reduce runs on {{n}} GPUs over a {{size}} buffer. How many bytes does each GPU send?"
    params:                           # each review draws fresh values
      n: {{range: [2, 32]}}
      size: {{choices: [64, 256, 1024], unit: MiB}}
    answer:                           # computed by code: quizcoll check --list-executables
      run: collectives.cost
      args: {{collective: all_reduce, algorithm: ring, ranks: "{{n}}", size: "{{size}}"}}
      field: max_bytes_sent
      expect: "2*(n-1)/n*size"        # the closed form check holds the code to
      unit: MiB
      tolerance: 1%
    verify:                           # facts check proves: here, the figures the worked
      # solution under the answer prints (rounds, traffic factor, α-β time) at this instance
      - {{name: rounds, run: collectives.cost, args: {{collective: all_reduce, algorithm: ring, ranks: "{{n}}", size: "{{size}}"}}, field: steps, expect: "2*(n-1)"}}
      - {{name: factor, run: collectives.cost, args: {{collective: all_reduce, algorithm: ring, ranks: "{{n}}", size: "{{size}}"}}, field: traffic_factor, expect: "2*(n-1)/n", tolerance: 0.1%}}  # uneven chunks when n does not divide size
      - {{name: time, run: collectives.cost, args: {{collective: all_reduce, algorithm: ring, ranks: "{{n}}", size: "{{size}}"}}, field: time_s, tolerance: 1%,
         expect: "2*(n-1)*nvlink_latency + 2*(n-1)/n*size/nvlink_bandwidth"}}
      - {{name: algbw, run: collectives.cost, args: {{collective: all_reduce, algorithm: ring, ranks: "{{n}}", size: "{{size}}"}}, field: algbw, expect: "size/time", tolerance: 1%}}
      - {{name: busbw, run: collectives.cost, args: {{collective: all_reduce, algorithm: ring, ranks: "{{n}}", size: "{{size}}"}}, field: busbw, expect: "algbw*2*(n-1)/n", tolerance: 1%}}
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deck", metavar="DECK", help="the deck name (lowercase, digits, -)")
    parser.add_argument("--dir", metavar="DIR", help="write here instead of your card folder")
    parser.add_argument("--force", action="store_true", help="replace an existing DECK.yaml")


def starter_text(deck: str, path: Path) -> str:
    """The starter file for ``deck`` written at ``path``."""
    import deck as engine

    schema = Path(engine.__file__).resolve().parent / "cards" / "card.schema.json"
    return STARTER.format(deck=deck, schema=schema.as_uri(), path=path)


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    from deck.cards.loader import ID_PATTERN, load_file
    from quizcoll.cli.common import UsageError, user_cards_dir
    from quizcoll.executables import build_registry

    if not ID_PATTERN.fullmatch(args.deck):
        raise UsageError(f"DECK {args.deck!r}: use lowercase letters, digits and - (my-deck)")
    from deck.base.safeio import expand

    # ~ and ~user expanded (an unknown user is one line), never a folder named "~user"
    folder = expand(args.dir, "--dir") if args.dir is not None else user_cards_dir()
    if os.path.lexists(folder) and not folder.is_dir():
        raise UsageError(f"{folder}: not a folder; nothing written")
    path = folder / f"{args.deck}.yaml"
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise UsageError(f"{path}: not a regular file; left as it is")
    if path.exists() and not args.force:
        raise UsageError(f"{path}: already exists; --force replaces it")
    text = starter_text(args.deck, path)
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644
        )
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror}; nothing written") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        # The starter names built-in constants (nvlink_latency): validated as check will.
        cards, problems = load_file(tmp, build_registry(), display=str(path))
        assert cards and not problems, problems  # the starter is a valid card file
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    print(f"wrote {path}: {len(cards)} example card(s) of deck {args.deck}", file=sys.stderr)
    print(path)
    return 0
