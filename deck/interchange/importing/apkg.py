"""Reading notes out of an Anki package (``.apkg``), treating the file as hostile.

A package is a zip holding an SQLite collection: ``collection.anki2`` or ``.anki21``
(plain SQLite, note types as JSON in the ``col`` table) or, from Anki 2.1.50 on,
``collection.anki21b`` (zstd-compressed SQLite with ``notetypes``/``fields``/``decks``
tables; reading it needs the ``zstandard`` package). Safety: the package and the
collection inside are size-capped before and while reading; only the collection member is
read, by its fixed name, into a private temporary folder (never a path taken from the
archive); SQLite opens it read-only with untrusted-schema protections and a budget of work;
note and field counts are capped; every value read is type-checked (an id is an integer,
a field is text or UTF-8 bytes, a note type's config is a bounded blob). Converting the
fields has a total work budget (:data:`MAX_WORK`: characters of HTML and cloze text
processed plus :data:`TAG_WORK` per tag, all notes together), on top of the per-field cap and the linear-time converters
of :mod:`deck.interchange.importing.markup`. Every fault is an :class:`ImportFailure` with
one line, naming the note when one note is at fault.

Basic notes (fields Front/Back, or any two-field standard type), cloze notes (one card per
cloze number) and quizcoll's own exported notes become :class:`ImportedNote` values;
notes of other types are counted in :class:`Skipped`, one entry per note type.
"""

from __future__ import annotations

import json
import lzma
import re
import shutil
import sqlite3
import stat
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import BinaryIO

from deck.interchange.importing import ImportedNote, ImportFailure, Skipped
from deck.interchange.importing.markup import (
    MAX_CLOZE_DIGITS,
    MAX_CLOZES,
    clean_text,
    cloze_sides,
    convert_html,
    find_clozes,
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
_TAG = re.compile(r"<[^<>]*>")  # stops at the next "<": linear
MAX_WORK = 256 * 1024 * 1024  # conversion work, all notes: a unit per character, TAG_WORK a tag
TAG_WORK = 32  # a tag costs a Python step; a character of text costs a C-level scan
MAX_CONFIG_BYTES = 64 * 1024  # a note type's protobuf config (a few hundred bytes in practice)
# What zipfile and its decompressors raise on a damaged, encrypted or exotic member.
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    RuntimeError,
    NotImplementedError,
    OverflowError,
    zlib.error,
    lzma.LZMAError,
)


class _Damaged(ValueError):
    """A value of the wrong type or range in the collection (becomes one ImportFailure)."""


def _int(value: object, what: str) -> int:
    """An id or ordinal: SQLite INTEGER, or a REAL holding a whole finite number."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():  # also refuses inf and NaN
        return int(value)
    raise _Damaged(f"{what}: not an integer ({type(value).__name__})")


def _text(value: object, what: str) -> str:
    """A text column: NULL is empty, a blob must be UTF-8, a number is its digits."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise _Damaged(f"{what}: not UTF-8 text") from None
    if type(value) is int or type(value) is float:
        return repr(value)
    raise _Damaged(f"{what}: an unexpected type")


class _Work:
    """The conversion budget: work done so far, against :data:`MAX_WORK`."""

    def __init__(self, path: Path) -> None:
        self.path, self.used, self.note = path, 0, ""

    def charge(self, units: int) -> None:
        self.used += units
        if self.used > MAX_WORK:
            raise ImportFailure(
                f"{self.path}: note {self.note}: the package needs too much work to convert "
                f"(a budget of {MAX_WORK:,} characters and tags); import a smaller deck"
            )

    def markdown(self, html: str) -> str:
        """``html`` as Markdown, its work charged."""
        self.charge(len(html))
        text, tokens = convert_html(html)
        self.charge(TAG_WORK * tokens)
        return text


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
    except _ZIP_ERRORS:
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
        if info.flag_bits & 0x1:
            raise ImportFailure(f"{path}: damaged package: encrypted member {member}")
        if info.compress_type not in _METHODS:
            raise ImportFailure(
                f"{path}: damaged package: {member} uses an unsupported compression method "
                f"({info.compress_type})"
            )
        try:
            with archive.open(member) as src, target.open("wb") as dst:
                if member.endswith("b"):
                    _unzstd(path, src, dst)
                else:
                    _copy_bounded(src, dst, MAX_COLLECTION_BYTES, f"{path}: its collection")
        except ImportFailure:
            raise
        except _ZIP_ERRORS as exc:
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise ImportFailure(f"{path}: damaged package: {reason}") from None
    return target


_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


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
        raise ImportFailure(
            f"{path}: damaged package: {' '.join(str(exc).split())[:200]}"
        ) from None


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
            fields.setdefault(_int(ntid, "fields.ntid"), []).append(
                (_int(ord_, "fields.ord"), _text(name, "a field name"))
            )
        for ntid, name, config in conn.execute("SELECT id, name, config FROM notetypes"):
            # kind (field 1) = 1 is cloze; a config that is not a small blob is not one.
            blob = config if isinstance(config, bytes) else b""
            try:
                cloze = len(blob) <= MAX_CONFIG_BYTES and _protobuf_varint(blob, 1) == 1
            except ValueError:
                cloze = False
            number = _int(ntid, "notetypes.id")
            names = tuple(n for _, n in sorted(fields.get(number, [])))
            types[number] = NoteTypeInfo(_text(name, "a note type name"), names, cloze)
        return types
    (models,) = conn.execute("SELECT models FROM col").fetchone() or ("{}",)
    data = _json(models, "col.models")
    for key, model in data.items() if isinstance(data, dict) else []:
        if not isinstance(model, dict):
            continue
        flds = model.get("flds") if isinstance(model.get("flds"), list) else []
        names = tuple(str(f.get("name", "")) for f in flds if isinstance(f, dict))
        types[_id_key(key, "a note type id")] = NoteTypeInfo(
            str(model.get("name", key)), names, model.get("type") == 1
        )
    return types


def _id_key(key: str, what: str) -> int:
    """A JSON object key that is an id: ASCII digits (an optional minus), at most 20."""
    digits = key.removeprefix("-")
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 20):
        raise _Damaged(f"{what} {key[:40]!r} is not a number")
    return int(key)


def _json(value: object, what: str) -> object:
    text = _text(value, what) or "{}"
    try:
        return json.loads(text)
    except RecursionError:
        raise _Damaged(f"{what}: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise _Damaged(f"{what}: not JSON ({exc.msg} at {exc.pos})") from None


def _decks(conn: sqlite3.Connection, tables: set[str]) -> dict[int, str]:
    if "decks" in tables:
        return {
            _int(i, "decks.id"): _text(n, "a deck name").replace("\x1f", "::")
            for i, n in conn.execute("SELECT id, name FROM decks")
        }
    (decks,) = conn.execute("SELECT decks FROM col").fetchone() or ("{}",)
    data = _json(decks, "col.decks")
    return {
        _id_key(k, "a deck id"): str(v.get("name", ""))
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
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise ImportFailure(f"{path}: damaged collection: {reason}") from None
        finally:
            conn.close()
            shutil.rmtree(tmp, ignore_errors=True)


def _read(conn: sqlite3.Connection, path: Path) -> tuple[list[ImportedNote], list[Skipped]]:
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    types = _note_types(conn, tables)
    decks = _decks(conn, tables)
    deck_of: dict[int, int] = {}
    for nid, did in conn.execute("SELECT nid, did FROM cards ORDER BY ord DESC"):
        deck_of[_int(nid, "cards.nid")] = _int(did, "cards.did")  # the first card (ord 0) wins
    rows = conn.execute(
        "SELECT id, guid, mid, tags, flds FROM notes ORDER BY id LIMIT ?", (MAX_NOTES + 1,)
    ).fetchall()
    if len(rows) > MAX_NOTES:
        raise ImportFailure(f"{path}: more than {MAX_NOTES:,} notes; import a smaller deck")
    notes: list[ImportedNote] = []
    skipped: dict[tuple[str, str], int] = {}
    work = _Work(path)
    for row, (nid, guid, mid, tags, flds) in enumerate(rows, start=1):
        work.note = f"{nid!r}"[:40] if type(nid) is int else f"#{row}"
        try:
            info = types.get(_int(mid, "notes.mid"))
            deck = decks.get(deck_of.get(_int(nid, "notes.id"), -1), "")
            guid_text = _text(guid, "notes.guid")
            tag_list = tuple(t for t in _text(tags, "notes.tags").split() if t)
            try:
                fields = _text(flds, "notes.flds").split("\x1f")
            except _Damaged as exc:  # one unreadable note is skipped, not the whole deck
                made, why = [], str(exc)
            else:
                made, why = _cards(info, fields, guid_text, tag_list, deck, work)
        except _Damaged as exc:
            raise ImportFailure(f"{path}: note {work.note}: damaged: {exc}") from None
        if why:
            key = (info.name if info else f"unknown note type {mid!r}"[:80], why)
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
    info: NoteTypeInfo | None,
    fields: list[str],
    guid: str,
    tags: tuple[str, ...],
    deck: str,
    work: _Work,
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
        return _cloze_cards(fields, guid, tags, deck, work)
    if all(n in names for n in QUIZCOLL_FIELDS):
        return [_quizcoll_note(info, fields, guid, tags, deck, work)], ""
    if "front" in names and "back" in names:
        front, back = _field(fields, info.fields, "front"), _field(fields, info.fields, "back")
    elif len(info.fields) == 2 and len(fields) >= 2:
        front, back = fields[0], fields[1]
    else:
        return [], f"not a basic or cloze note type (fields: {', '.join(info.fields)})"
    return [ImportedNote(guid, work.markdown(front), work.markdown(back), tags, deck)], ""


def _plain(html: str, work: _Work) -> str:
    """Field HTML as plain one-line text (ids, sources)."""
    work.charge(len(html))
    return " ".join(unescape(_TAG.sub(" ", clean_text(html))).split())


def _quizcoll_note(
    info: NoteTypeInfo,
    fields: list[str],
    guid: str,
    tags: tuple[str, ...],
    deck: str,
    work: _Work,
) -> ImportedNote:
    """A note quizcoll exported: its question, answer and worked answer, hint, source, id."""

    def get(name: str) -> str:
        return _field(fields, info.fields, name)

    # The export files a card under ROOT::deck and names its note type "ROOT card": the deck
    # comes back as the card's own ("quizcoll::memory" → memory, not quizcoll-memory).
    root = info.name.removesuffix(" card")
    if root != info.name and deck.startswith(f"{root}::"):
        deck = deck.removeprefix(f"{root}::")
    answer, worked = work.markdown(get("answer")), work.markdown(get("worked answer"))
    back = "\n\n".join(p for p in (f"**Answer:** {answer}" if answer else "", worked) if p)
    return ImportedNote(
        guid,
        work.markdown(get("question")),
        back,
        tags,
        deck,
        "quizcoll",
        _plain(get("card id"), work),
        work.markdown(get("hint")),
        _plain(get("source"), work),
    )


def _cloze_cards(
    fields: list[str], guid: str, tags: tuple[str, ...], deck: str, work: _Work
) -> tuple[list[ImportedNote], str]:
    text = fields[0] if fields else ""
    extra = fields[1] if len(fields) > 1 else ""
    work.charge(len(text))  # the scan for deletions
    clozes = find_clozes(text)
    if any(c.number is None for c in clozes):
        return [], f"a cloze number longer than {MAX_CLOZE_DIGITS} digits"
    numbers = sorted({c.number for c in clozes if c.number is not None})
    if not numbers:
        return [], "a cloze note without {{c1::…}} deletions"
    extra_md = work.markdown(extra) if extra.strip() else ""
    out = []
    for number in numbers[:MAX_CLOZES]:
        work.charge(len(text))  # building the two sides
        front, back = cloze_sides(text, number, clozes)
        answer = work.markdown(back)
        if extra_md:
            answer += "\n\n" + extra_md
        out.append(
            ImportedNote(f"{guid}:c{number}", work.markdown(front), answer, tags, deck, "cloze")
        )
    return out, ""
