"""The ``quizcoll`` command: argument parsing and dispatch to one module per subcommand.

Each subcommand lives in ``quizcoll/cli/cmd_<name>.py`` and exposes
``add_arguments(parser)`` (cheap: no heavy imports) and ``run(args) -> int``.
Only the chosen subcommand's module is imported, so ``--help`` stays fast and never
imports textual or numpy. Bad input ends as one line on stderr and exit 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> one-line help; order is the order shown in --help.
SUBCOMMANDS: dict[str, str] = {
    "tui": "open the terminal app (the default)",
    "list": "list cards",
    "show": "show one card, with a drawn instance and its worked answer",
    "check": "validate card files and run every verify claim and computed answer",
    "export": "export the cards to Markdown, Obsidian or an Anki package",
    "import": "turn an Anki package or a CSV file into a card file",
    "review": "review due cards (spaced repetition)",
    "grade": "grade one answer to one card instance, exactly as a review would",
    "interview": "a mock interview: questions that follow your answers, and a scorecard",
    "stats": "review statistics",
    "history": "export or import the review history as JSON",
    "rename": "carry a card's review history to a new id",
    "new": "start a card file of your own (in your card folder)",
    "paths": "where the database, settings and card folders are",
    "optimize": "fit personal FSRS parameters from the review history (optimizer extra)",
    "sim": "simulate a collective (bytes per rank, steps, modelled time)",
    "calibrate": "fit a hardware profile to an nccl-tests log (your cluster)",
    "vram": "inference memory of a model: weights, KV cache, activations",
    "train-mem": "training memory per GPU with mixed-precision Adam and ZeRO",
}

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class ArgumentParser(argparse.ArgumentParser):
    """argparse that exits 2 with one line (not the usage block) on a bad flag."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _module_name(command: str) -> str:
    return "quizcoll.cli.cmd_" + command.replace("-", "_")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="quizcoll",
        description="Interview flashcards with executable answers (collectives, GPU memory).",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    for name, help_ in SUBCOMMANDS.items():
        module = importlib.import_module(_module_name(name))
        # A module docstring is the command's --help text: reST ``code`` reads as `code`.
        text = (module.__doc__ or help_).strip().replace("``", "`")
        p = sub.add_parser(name, help=help_, description=text)
        module.add_arguments(p)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return "quizcoll " + version("quizcoll")
    except PackageNotFoundError:
        return "quizcoll (not installed)"


def _usable_streams() -> None:
    """A closed stdin/stdout/stderr (``<&-``) reads as empty and writes nowhere, and text
    the output encoding cannot show (``PYTHONIOENCODING=ascii``) is escaped, not a crash."""
    import os

    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if getattr(sys.stdin, "errors", None) == "strict" and hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="surrogateescape")  # bad bytes reach the reader as such


def main(argv: Sequence[str] | None = None) -> int:
    _usable_streams()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["tui", *argv]
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad flag (one line already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    from deck.base.errors import DeckError
    from quizcoll.cli.common import UsageError

    module = importlib.import_module(_module_name(args.command))
    try:
        return int(module.run(args) or 0)
    except (UsageError, DeckError) as exc:
        print(f"quizcoll {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:
        # The calculators' refusals (their own ValueError types: they import nothing from the
        # engine); the tuple is imported only when one is raised.
        from quizcoll.executables import calculator_refusals

        if not isinstance(exc, calculator_refusals()):
            raise
        print(f"quizcoll {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `quizcoll list | head`: the reader left; that is not an error.
        sys.stderr.close()
        return EXIT_OK
    except OSError as exc:
        # A path the user gave that cannot be read or written (-o /proc/x, a full disk).
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"quizcoll {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    raise SystemExit(main())
