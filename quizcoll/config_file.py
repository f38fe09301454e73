"""Editing ``config.toml`` safely: one key at a time, every other line kept, written atomically.

Used by ``quizcoll optimize --write`` (fitted parameters) and the settings screen (desired
retention, limits, steps, theme). :func:`set_key` changes one key of one table and checks
that the result means exactly the old document plus that key; :func:`write_config` writes
a new text to a temporary file beside the file, lets the caller check it, then renames
it into place (the file's permissions are kept), so a crash leaves the old file or the
new one, never half of one.
"""

from __future__ import annotations

import copy
import json
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck.base.errors import DeckError
from deck.review.scheduler import parse_config

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


MAX_SETTINGS_BYTES = 1024 * 1024  # config.toml: a few hundred bytes in practice


class ConfigWriteError(DeckError):
    """The settings file cannot be updated safely; it is left as it was."""


def table_header(deck: str | None) -> str:
    """``[review]``, or ``[deck.NAME]`` with the name quoted when TOML needs it."""
    if deck is None:
        return "[review]"
    if _BARE_KEY.fullmatch(deck):
        return f"[deck.{deck}]"
    return f"[deck.{json.dumps(deck, ensure_ascii=False)}]"  # JSON escapes are TOML's


def _header(target: tuple[str, ...]) -> str:
    if target[:1] == ("deck",) and len(target) == 2:
        return table_header(target[1])
    return "[" + ".".join(target) + "]"


@dataclass(frozen=True)
class _Statement:
    """Consecutive lines of the file that parse as TOML on their own."""

    start: int
    stop: int  # exclusive, in lines
    kind: str  # "header", "key" or "trivia" (blank lines and comments)
    path: tuple[str, ...] = ()  # a header's table path; a key statement's first key part


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _statements(lines: list[str], where: str) -> list[_Statement]:
    """Split the file into statements: each is the shortest run of lines that parses."""
    out: list[_Statement] = []
    i = 0
    while i < len(lines):
        for j in range(i + 1, len(lines) + 1):
            chunk = "".join(lines[i:j])
            try:
                data = tomllib.loads(chunk)
            except tomllib.TOMLDecodeError:
                continue
            first = chunk.lstrip()
            if first.startswith("["):
                path: list[str] = []
                node: Any = data
                while isinstance(node, dict) and len(node) == 1:
                    key = next(iter(node))
                    path.append(key)
                    node = node[key]
                # an array-of-tables header ([[x]]) gets a path that no target matches
                header = tuple(path) if isinstance(node, dict) else ("[[", *path)
                out.append(_Statement(i, j, "header", header))
            elif data:
                out.append(_Statement(i, j, "key", (next(iter(data)),)))
            else:
                out.append(_Statement(i, j, "trivia"))
            i = j
            break
        else:
            raise ConfigWriteError(f"{where}: line {i + 1}: cannot be read as TOML; left unchanged")
    return out


def set_key(
    text: str,
    target: tuple[str, ...],
    key: str,
    value: Any,
    line: str,
    *,
    where: str = "config.toml",
) -> str:
    """``text`` with ``key = value`` (written as ``line``) under the table ``target``
    (``("review",)``, ``("deck", NAME)``, ``("app",)``), every other line kept.

    An existing key of that table is replaced in place (all its lines); otherwise the key
    goes after the table's last key, and a missing table is appended. The result is
    checked to mean exactly the old document with that one key set.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigWriteError(f"{where}: {exc}; left unchanged") from None
    parse_config(text, where)  # a file quizcoll would refuse is not edited further
    new_line = line + newline
    lines = _lines(text)
    statements = _statements(lines, where)

    section: list[_Statement] | None = None
    for k, st in enumerate(statements):
        if st.kind == "header" and st.path == target:
            section = [st]
            for later in statements[k + 1 :]:
                if later.kind == "header":
                    break
                section.append(later)
            break

    if section is None:
        tail = "" if not lines or lines[-1].endswith("\n") else newline
        gap = newline if lines else ""
        result = text + tail + gap + _header(target) + newline + new_line
    else:
        existing = [st for st in section if st.kind == "key" and st.path == (key,)]
        if existing:
            st = existing[0]
            lines[st.start : st.stop] = [new_line]
        else:
            keys = [st for st in section if st.kind == "key"]
            anchor = keys[-1] if keys else section[0]
            if not lines[anchor.stop - 1].endswith("\n"):
                lines[anchor.stop - 1] += newline
            lines.insert(anchor.stop, new_line)
        result = "".join(lines)

    expected = copy.deepcopy(before)
    node = expected
    for depth, part in enumerate(target, start=1):
        node = node.setdefault(part, {})
        if not isinstance(node, dict):  # `[[app]]` (an array of tables) or `app = 1`
            raise ConfigWriteError(
                f"{where}: {'.'.join(target[:depth])} is not a table, so {key} cannot be set "
                f"in {_header(target)}; left unchanged"
            )
    node[key] = value
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = None
    if after != expected:
        table = _header(target)
        raise ConfigWriteError(
            f"{where}: cannot set {key} in {table} safely (the table is written in a form "
            f"this editor does not handle); left unchanged — put `{line}` under {table} by hand"
        )
    return result


def write_config(path: Path, edit: Callable[[str], str], check: Callable[[Path], None]) -> None:
    """Replace the file at ``path`` by ``edit(its text)`` ("" when it does not exist yet),
    through :mod:`deck.base.safeio`: read with a size cap, written beside it, ``check(temporary
    path)`` (raising :class:`ConfigWriteError` to refuse), then renamed over it; a regular
    file only (never through a link, never into a device)."""
    from deck.base import safeio

    try:
        text = safeio.read_text(path, limit=MAX_SETTINGS_BYTES, what="settings file")
    except safeio.PathError as exc:
        if os.path.lexists(path):
            raise ConfigWriteError(f"{exc}; left unchanged") from None
        text = ""
    try:
        safeio.write_text(path, edit(text), what="settings file", check=check)
    except safeio.PathError as exc:
        raise ConfigWriteError(str(exc)) from None
