"""Reading notes out of an Anki package (``.apkg``), treating the file as hostile.

A package is a zip holding an SQLite collection: ``collection.anki2`` or ``.anki21``
(plain SQLite, note types as JSON in the ``col`` table) or, from Anki 2.1.50 on,
``collection.anki21b`` (zstd-compressed SQLite with ``notetypes``/``fields``/``decks``
tables; reading it needs the ``zstandard`` package). Safety: the package and the
collection inside are size-capped before and while reading; only the collection member is
read, by its fixed name, into a private temporary folder (never a path taken from the
archive); SQLite opens it read-only with untrusted-schema protections and a budget of work;
note and field counts are capped. Every fault is an :class:`ImportFailure` with one line.

Basic notes (fields Front/Back, or any two-field standard type), cloze notes (one card per
cloze number) and quizcoll's own exported notes become :class:`ImportedNote` values;
notes of other types are counted in :class:`Skipped`, one entry per note type.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import BinaryIO

from deck.interchange.importing import ImportedNote, ImportFailure, Skipped
from deck.interchange.importing.markup import (
    MAX_CLOZES,
    clean_text,
    cloze_numbers,
    cloze_sides,
    html_markdown,
)

MAX_PACKAGE_BYTES = 512 * 1024 * 1024  # the .apkg on disk (media included)
MAX_COLLECTION_BYTES = 512 * 1024 * 1024  # the SQLite collection, uncompressed
MAX_NOTES = 50_000
MAX_FIELD_CHARS = 60_000  # a card file value may hold 64 KiB of text
SQLITE_STEPS = 2_000_000_000  # virtual-machine steps SQLite may spend on our queries
SQLITE_MAX_VALUE = 64 * 1024 * 1024  # the longest string or blob SQLite may build for us
_READ_TABLES = ("notes", "cards", "col", "notetypes", "fields", "decks")
_STEP_CHECK = 1000  # SQLite calls our budget every this many steps
_MEMBERS = ("collection.anki21b", "collection.anki21", "collection.anki2")
_CHUNK = 1 << 20
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class NoteTypeInfo:
    name: str
    fields: tuple[str, ...]
    cloze: bool


# ----------------------------------------------------------------------------- the zip


def _copy_bounded(src: BinaryIO, dst: BinaryIO, limit: int, what: str) -> None:
    total = 0
    while chunk := src.read(_CHUNK):
        total += len(chunk)
        if total > limit:
            raise ImportFailure(f"{what} is larger than {limit // 2**20:,} MiB")
        dst.write(chunk)


def _extract_collection(path: Path, folder: Path) -> Path:
    """The package's collection as a plain SQLite file inside ``folder``."""
    try:
        info = path.stat()
        size = info.st_size
    except OSError as exc:
        raise ImportFailure(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block the open; a device never ends
        raise ImportFailure(f"{path}: not a regular file, expected an Anki package")
    if size > MAX_PACKAGE_BYTES:
        raise ImportFailure(
            f"{path}: {size:,} bytes; packages are limited to {MAX_PACKAGE_BYTES:,}"
        )
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise ImportFailure(f"{path}: not an Anki package (not a zip file)") from None
    target = folder / "collection.sqlite"
    with archive:
        names = set(archive.namelist())
        member = next((m for m in _MEMBERS if m in names), None)
        if member is None:
            raise ImportFailure(f"{path}: not an Anki package (no collection.anki2 inside)")
        info = archive.getinfo(member)
        if info.file_size > MAX_COLLECTION_BYTES:
            raise ImportFailure(
                f"{path}: its collection is larger than {MAX_COLLECTION_BYTES:,} bytes"
            )
        try:
            with archive.open(member) as src, target.open("wb") as dst:
                if member.endswith("b"):
                    _unzstd(path, src, dst)
                else:
                    _copy_bounded(src, dst, MAX_COLLECTION_BYTES, f"{path}: its collection")
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ImportFailure(f"{path}: damaged package: {exc}") from None
    return target


def _unzstd(path: Path, src: BinaryIO, dst: BinaryIO) -> None:
    try:
        import zstandard
    except ImportError:
        raise ImportFailure(
            f"{path}: Anki's newer package format (collection.anki21b, zstd-compressed) needs "
            "the zstandard package (pip install zstandard), or export from Anki with "
            '"Support older Anki versions" ticked'
        ) from None
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(src)
        _copy_bounded(reader, dst, MAX_COLLECTION_BYTES, f"{path}: its collection")
    except zstandard.ZstdError as exc:
        raise ImportFailure(f"{path}: damaged package: {exc}") from None


# ----------------------------------------------------------------------------- SQLite


def _connect(db: Path, path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    steps = [0]

    def budget() -> int:  # a non-zero return interrupts the query
        steps[0] += _STEP_CHECK
        return 1 if steps[0] > SQLITE_STEPS else 0

    conn.set_progress_handler(budget, _STEP_CHECK)
    # A hostile schema (generated columns, views) must not make SQLite build huge values.
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_VALUE)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.execute("PRAGMA query_only = ON")
        kinds = dict(conn.execute("SELECT name, type FROM sqlite_master"))
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _database_failure(path, exc, "not an Anki collection") from None
    for table in ("notes", "cards", "col"):
        if kinds.get(table) != "table":
            conn.close()
            raise ImportFailure(f"{path}: not an Anki collection (no {table!r} table)")
    # Computed (generated) columns run the file's own expressions on every read: refuse them.
    for table in [t for t, kind in kinds.items() if kind == "table" and t in _READ_TABLES]:
        hidden = conn.execute("SELECT max(hidden) FROM pragma_table_xinfo(?)", (table,))
        if (hidden.fetchone() or (0,))[0]:
            conn.close()
            raise ImportFailure(f"{path}: not an Anki collection (computed columns in {table!r})")
    return conn


def _database_failure(path: Path, exc: sqlite3.DatabaseError, what: str) -> ImportFailure:
    if "interrupted" in str(exc):
        return ImportFailure(f"{path}: reading the collection took too much work (a hostile file?)")
    return ImportFailure(f"{path}: {what} ({exc})")


def _protobuf_varint(blob: bytes, field: int) -> int:
    """The value of varint ``field`` at the top level of a protobuf message (0 if absent)."""
    i, n = 0, len(blob)

    def varint() -> int:
        nonlocal i
        value = shift = 0
        while i < n and shift < 64:
            b = blob[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value
        raise ValueError("truncated varint")

    while i < n:
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            value = varint()
            if number == field:
                return value
        elif wire == 2:
            i += varint()
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"wire type {wire}")
    return 0


def _note_types(conn: sqlite3.Connection, tables: set[str]) -> dict[int, NoteTypeInfo]:
    types: dict[int, NoteTypeInfo] = {}
    if "notetypes" in tables:  # Anki 2.1.28+ schema
        fields: dict[int, list[tuple[int, str]]] = {}
        for ntid, ord_, name in conn.execute("SELECT ntid, ord, name FROM fields"):
            fields.setdefault(int(ntid), []).append((int(ord_), str(name)))
        for ntid, name, config in conn.execute("SELECT id, name, config FROM notetypes"):
            try:
                cloze = _protobuf_varint(bytes(config or b""), 1) == 1  # kind: 1 = cloze
            except ValueError:
                cloze = False
            names = tuple(n for _, n in sorted(fields.get(int(ntid), [])))
            types[int(ntid)] = NoteTypeInfo(str(name), names, cloze)
        return types
    (models,) = conn.execute("SELECT models FROM col").fetchone() or ("{}",)
    data = json.loads(models or "{}")
    for key, model in data.items() if isinstance(data, dict) else []:
        if not isinstance(model, dict):
            continue
        flds = model.get("flds") if isinstance(model.get("flds"), list) else []
        names = tuple(str(f.get("name", "")) for f in flds if isinstance(f, dict))
        types[int(key)] = NoteTypeInfo(str(model.get("name", key)), names, model.get("type") == 1)
    return types


def _decks(conn: sqlite3.Connection, tables: set[str]) -> dict[int, str]:
    if "decks" in tables:
        return {
            int(i): str(n).replace("\x1f", "::")
            for i, n in conn.execute("SELECT id, name FROM decks")
        }
    (decks,) = conn.execute("SELECT decks FROM col").fetchone() or ("{}",)
    data = json.loads(decks or "{}")
    return {
        int(k): str(v.get("name", ""))
        for k, v in (data.items() if isinstance(data, dict) else [])
        if isinstance(v, dict)
    }


def read_package(path: Path) -> tuple[list[ImportedNote], list[Skipped]]:
    """The notes of the package at ``path`` that can become cards, and what was skipped."""
    with tempfile.TemporaryDirectory(prefix="quizcoll-import-") as tmp:
        db = _extract_collection(path, Path(tmp))
        conn = _connect(db, path)
        try:
            return _read(conn, path)
        except sqlite3.DatabaseError as exc:
            raise _database_failure(path, exc, "damaged collection") from None
        except (ValueError, TypeError, json.JSONDecodeError) as exc:
            raise ImportFailure(f"{path}: damaged collection: {exc}") from None
        finally:
            conn.close()
            shutil.rmtree(tmp, ignore_errors=True)


def _read(conn: sqlite3.Connection, path: Path) -> tuple[list[ImportedNote], list[Skipped]]:
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    types = _note_types(conn, tables)
    decks = _decks(conn, tables)
    deck_of: dict[int, int] = {}
    for nid, did in conn.execute("SELECT nid, did FROM cards ORDER BY ord DESC"):
        deck_of[int(nid)] = int(did)  # the note's first card (ord 0) wins
    rows = conn.execute(
        "SELECT id, guid, mid, tags, flds FROM notes ORDER BY id LIMIT ?", (MAX_NOTES + 1,)
    ).fetchall()
    if len(rows) > MAX_NOTES:
        raise ImportFailure(f"{path}: more than {MAX_NOTES:,} notes; import a smaller deck")
    notes: list[ImportedNote] = []
    skipped: dict[tuple[str, str], int] = {}
    for nid, guid, mid, tags, flds in rows:
        info = types.get(int(mid))
        fields = str(flds).split("\x1f")
        deck = decks.get(deck_of.get(int(nid), -1), "")
        tag_list = tuple(t for t in str(tags).split() if t)
        made, why = _cards(info, fields, str(guid), tag_list, deck)
        if why:
            key = (info.name if info else f"unknown note type {mid}", why)
            skipped[key] = skipped.get(key, 0) + 1
        notes += made
    return notes, [Skipped(name, n, why) for (name, why), n in skipped.items()]


def _field(fields: list[str], names: tuple[str, ...], wanted: str) -> str:
    lowered = [n.lower() for n in names]
    return (
        fields[lowered.index(wanted)]
        if wanted in lowered and lowered.index(wanted) < len(fields)
        else ""
    )


QUIZCOLL_FIELDS = ("question", "answer", "worked answer", "hint", "source", "card id")


def _cards(
    info: NoteTypeInfo | None, fields: list[str], guid: str, tags: tuple[str, ...], deck: str
) -> tuple[list[ImportedNote], str]:
    """The cards one note makes, or a reason why it makes none."""
    if info is None:
        return [], "its note type is missing from the package"
    if any(len(f) > MAX_FIELD_CHARS for f in fields):
        return [], f"a field is longer than {MAX_FIELD_CHARS:,} characters"
    names = tuple(n.lower() for n in info.fields)
    if info.cloze:
        if (names and names[0] == "occlusion") or any("image-occlusion:" in f for f in fields[:1]):
            return [], "image occlusion is not supported"
        return _cloze_cards(fields, guid, tags, deck)
    if all(n in names for n in QUIZCOLL_FIELDS):
        return [_quizcoll_note(info, fields, guid, tags, deck)], ""
    if "front" in names and "back" in names:
        front, back = _field(fields, info.fields, "front"), _field(fields, info.fields, "back")
    elif len(info.fields) == 2 and len(fields) >= 2:
        front, back = fields[0], fields[1]
    else:
        return [], f"not a basic or cloze note type (fields: {', '.join(info.fields)})"
    return [ImportedNote(guid, html_markdown(front), html_markdown(back), tags, deck)], ""


def _plain(html: str) -> str:
    """Field HTML as plain one-line text (ids, sources)."""
    return " ".join(unescape(_TAG.sub(" ", clean_text(html))).split())


def _quizcoll_note(
    info: NoteTypeInfo, fields: list[str], guid: str, tags: tuple[str, ...], deck: str
) -> ImportedNote:
    """A note quizcoll exported: its question, answer and worked answer, hint, source, id."""

    def get(name: str) -> str:
        return _field(fields, info.fields, name)

    answer, worked = html_markdown(get("answer")), html_markdown(get("worked answer"))
    back = "\n\n".join(p for p in (f"**Answer:** {answer}" if answer else "", worked) if p)
    return ImportedNote(
        guid,
        html_markdown(get("question")),
        back,
        tags,
        deck,
        "quizcoll",
        _plain(get("card id")),
        html_markdown(get("hint")),
        _plain(get("source")),
    )


def _cloze_cards(
    fields: list[str], guid: str, tags: tuple[str, ...], deck: str
) -> tuple[list[ImportedNote], str]:
    text = fields[0] if fields else ""
    extra = fields[1] if len(fields) > 1 else ""
    numbers = cloze_numbers(text)
    if not numbers:
        return [], "a cloze note without {{c1::…}} deletions"
    out = []
    for number in numbers[:MAX_CLOZES]:
        front, back = cloze_sides(text, number)
        answer = html_markdown(back)
        if extra.strip():
            answer += "\n\n" + html_markdown(extra)
        out.append(
            ImportedNote(f"{guid}:c{number}", html_markdown(front), answer, tags, deck, "cloze")
        )
    return out, ""
