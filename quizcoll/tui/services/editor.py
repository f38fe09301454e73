"""Editing a card while reviewing it: the editor command, the user's copy of a built-in
card (:func:`user_copy`: the built-in files ship inside the package, where an edit would be
lost on the next install), and reloading and re-checking the card's file afterwards. No
textual here: the review screen suspends the app around :func:`run_editor` and calls
:func:`reload_card` on return."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from deck.base.errors import DeckError
from deck.cards.loader import load_file
from deck.cards.model import Card
from deck.cards.registry import Registry
from deck.proving.verify import DEFAULT_SEEDS, check_claim, check_instances

# Editors that open a file at a line with ``+LINE FILE`` (vi's convention).
PLUS_LINE = frozenset({"vi", "vim", "nvim", "nano", "emacs", "micro", "kak", "hx", "joe", "mg"})


class EditorError(DeckError):
    """``$VISUAL``/``$EDITOR`` cannot be read as a command (one line saying why)."""


def editor_command(path: Path, line: int, environ: dict[str, str] | None = None) -> list[str]:
    """``$VISUAL`` or ``$EDITOR`` (else ``vi``) opening ``path`` at ``line`` where the
    editor has a way to say so. A variable of blanks counts as unset; one that is not a
    command line (an unclosed quote) is an :class:`EditorError`."""
    env = os.environ if environ is None else environ
    name, text = next(
        ((k, env[k]) for k in ("VISUAL", "EDITOR") if (env.get(k) or "").strip()), ("", "vi")
    )
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise EditorError(f"${name}={text[:60]!r} is not a command line: {exc}") from None
    name = Path(words[0]).name
    if name in PLUS_LINE and line > 0:
        return [*words, f"+{line}", str(path)]
    if name in ("code", "codium") and line > 0:
        return [*words, "--wait", "--goto", f"{path}:{line}"]
    return [*words, str(path)]


def run_editor(path: Path, line: int) -> int:
    """Run the editor in the foreground; its exit status (127: it could not be started)."""
    try:
        return subprocess.call(editor_command(path, line))
    except OSError:
        return 127


@dataclass(frozen=True)
class Reloaded:
    """The card as the file now defines it (None: its id is gone) and what is wrong."""

    card: Card | None
    problems: tuple[str, ...]  # one line each: PATH:LINE:COL: what is wrong


def reload_card(
    path: Path, display: str, card_id: str, registry: Registry | None, seeds: int = DEFAULT_SEEDS
) -> Reloaded:
    """Load ``path`` again and re-check ``card_id``: the file's problems, then its claims
    and instances run as ``quizcoll check`` runs them."""
    cards, problems = load_file(path, registry, display=display)
    lines = [p.format() for p in problems]
    card = next((c for c in cards if c.id == card_id), None)
    if card is None:
        return Reloaded(None, tuple(lines))
    for index, claim in enumerate(card.verify):
        lines += [f.format() for f in check_claim(card, index, claim, registry)[1]]
    lines += [f.format() for f in check_instances(card, registry, seeds)[1]]
    return Reloaded(card, tuple(lines))


_CARD_START = re.compile(r"^(\s*)- ")


def user_copy(card: Card, source: Path, user_dir: Path) -> tuple[Path, int]:
    """Copy ``card`` from the built-in file ``source`` into the file of the same name in
    ``user_dir`` (created with the built-in file's header, or appended to), unless it is
    there already; returns that file and the card's line in it. The copy keeps the id, so
    it replaces the built-in card when the collection loads and keeps its schedule."""
    from deck.base.safeio import write_bytes
    from deck.cards.yamlsource import MAX_FILE_BYTES

    def read_text(path: Path, what: str) -> str:
        from deck.base.safeio import read_text as read

        return read(path, limit=MAX_FILE_BYTES, what=what)

    target = user_dir / source.name
    if target.is_file():
        existing = read_text(target, what="card file")
        line = card_line(existing, card.id)
        if line:
            return target, line
    lines = read_text(source, what="card file").splitlines(keepends=True)
    start = card.location.line - 1
    match = _CARD_START.match(lines[start]) if 0 <= start < len(lines) else None
    if match is None:
        raise ValueError(f"{source}:{card.location.line}: no card starts there to copy")
    indent = len(match[1])
    end = start + 1
    while end < len(lines):
        text = lines[end]
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            depth = len(text) - len(text.lstrip())
            if depth < indent or (depth == indent and text.lstrip().startswith("- ")):
                break
        end += 1
    block = "".join(lines[start:end]).rstrip("\n") + "\n"
    if target.is_file():
        existing = read_text(target, what="card file")
        head = existing if existing.endswith("\n") else existing + "\n"
    else:
        cards_at = next(i for i, t in enumerate(lines) if t.rstrip() == "cards:")
        head = "".join(lines[: cards_at + 1])
    user_dir.mkdir(parents=True, exist_ok=True)
    write_bytes(target, (head + block).encode("utf-8"))
    return target, head.count("\n") + 1


def card_line(text: str, card_id: str) -> int:
    """The line (from 1) on which ``text`` defines ``card_id``; 0 when it does not."""
    pattern = re.compile(rf"^\s*-?\s*id:\s*['\"]?{re.escape(card_id)}['\"]?\s*(#.*)?$")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return 0
