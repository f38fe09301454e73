"""Reading cards from CSV: rows of front, back and (optionally) tags.

Accepted: a header row naming the columns (``front``, ``back``, ``tags``, ``deck``, in any
order), or none (then the columns are front, back, tags); commas, semicolons or tabs,
sniffed; Anki's "Notes in Plain Text" export with its ``#separator:``, ``#html:``,
``#tags column:`` and ``#deck:`` lines (HTML fields are converted to Markdown). Other text is
taken as plain text (Markdown punctuation escaped, braces doubled). Tags are separated by
spaces or commas. The file is size-capped and read as UTF-8; a bad row is one line naming
the file and the row.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from deck.interchange.importing import MAX_VALUE_CHARS, ImportedNote, ImportFailure
from deck.interchange.importing.markup import clean_text, escape_markdown, html_markdown

MAX_CSV_BYTES = 16 * 1024 * 1024
MAX_ROWS = 50_000
MAX_COLUMN_DIGITS = 4  # "#tags column:" names one of at most 9,999 columns
_SEPARATORS = {"tab": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " ", "colon": ":"}
_COLUMNS = ("front", "back", "tags", "deck")


def _read_text(path: Path) -> str:
    from deck.base.safeio import PathError, read_bytes

    try:  # a regular file only (a FIFO would block the open), with the byte cap
        data = read_bytes(path, limit=MAX_CSV_BYTES, what="CSV file")
    except PathError as exc:
        raise ImportFailure(str(exc)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFailure(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _directives(lines: list[str]) -> tuple[dict[str, str], int]:
    """Anki's leading ``#key:value`` lines, and how many lines they take."""
    found: dict[str, str] = {}
    count = 0
    for line in lines:
        if not line.startswith("#") or ":" not in line:
            break
        key, _, value = line[1:].partition(":")
        found[key.strip().lower()] = value.strip()
        count += 1
    return found, count


def _delimiter(sample: str, declared: str | None) -> str:
    """The declared separator, else the one of tab, semicolon and comma that gives the most
    rows two or more columns (tab first on a tie: it is the least likely inside text)."""
    if declared:
        return _SEPARATORS.get(declared.lower(), declared[:1] or ",")
    lines = _lines(sample)[:50]

    def score(delimiter: str) -> int:
        try:
            return sum(1 for row in csv.reader(lines, delimiter=delimiter) if len(row) >= 2)
        except csv.Error:
            return -1

    return max(("\t", ";", ","), key=score)


def _lines(text: str) -> list[str]:
    """``text`` split at line ends only (``\n``, ``\r\n``, ``\r``): ``str.splitlines`` also
    splits at form feeds, ``\x1c``-``\x1e``, U+0085 and U+2028, which are text in a CSV field."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _column(path: Path, directives: dict[str, str], lines: list[str]) -> int | None:
    """The 0-based column ``#tags column:`` names, None without one; 1-based ASCII digits."""
    if "tags column" not in directives:
        return None
    text = directives["tags column"]
    if not (text.isascii() and text.isdecimal() and len(text) <= MAX_COLUMN_DIGITS) or text == "0":
        at = next(i for i, line in enumerate(lines, 1) if "tags column" in line.lower())
        raise ImportFailure(
            f"{path}:{at}: #tags column: expected a column number 1..9999, got {text[:20]!r}"
        )
    return int(text) - 1


def read_csv(path: Path) -> list[ImportedNote]:
    """The cards of the CSV file at ``path``."""
    text = _read_text(path)
    lines = _lines(text)
    directives, skip = _directives(lines)
    body = "\n".join(lines[skip:])
    delimiter = _delimiter(body[:65536], directives.get("separator"))
    html = directives.get("html", "false").lower() == "true"
    columns = {"front": 0, "back": 1, "tags": 2, "deck": -1}
    tags_column = _column(path, directives, lines[:skip])
    if tags_column is not None:
        columns["tags"] = tags_column
    try:
        rows = list(csv.reader(io.StringIO(body), delimiter=delimiter))
    except csv.Error as exc:
        raise ImportFailure(f"{path}: not readable as CSV: {exc}") from None
    if len(rows) > MAX_ROWS:
        raise ImportFailure(f"{path}: more than {MAX_ROWS:,} rows; split it")
    first_row = 0
    if rows and {c.strip().lower() for c in rows[0]} & {"front", "back"}:
        header = [c.strip().lower() for c in rows[0]]
        if "front" not in header or "back" not in header:
            raise ImportFailure(f"{path}:{skip + 1}:1: the header needs both 'front' and 'back'")
        columns = {name: header.index(name) if name in header else -1 for name in _COLUMNS}
        first_row = 1
    convert = html_markdown if html else (lambda s: escape_markdown(clean_text(s)).strip())
    notes = []
    for i, row in enumerate(rows[first_row:], start=first_row):
        line = skip + i + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(columns["front"], columns["back"]):
            raise ImportFailure(
                f"{path}:{line}:1: expected front{delimiter}back[{delimiter}tags], "
                f"found {len(row)} column(s)"
            )
        if any(len(cell) > MAX_VALUE_CHARS for cell in row):
            raise ImportFailure(
                f"{path}:{line}:1: a field longer than {MAX_VALUE_CHARS:,} characters"
            )

        def cell(name: str, row: list[str] = row) -> str:
            at = columns[name]
            return row[at] if 0 <= at < len(row) else ""

        tags = tuple(t for t in cell("tags").replace(",", " ").split() if t)
        deck = cell("deck").strip() or directives.get("deck", "")
        notes.append(
            ImportedNote(
                f"csv:{cell('front')}", convert(cell("front")), convert(cell("back")), tags, deck
            )
        )
    return notes
