"""Small Anki packages built by hand for hostile-input tests: a legacy (schema 11) or a
newer (notetypes/fields/decks tables, optionally zstd) collection whose every column value
the test chooses, zipped with the compression method and flags the test chooses."""

from __future__ import annotations

import sqlite3
import struct
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BASIC_CLOZE_MODELS = (
    '{"1": {"name": "Basic", "type": 0, "flds": [{"name": "Front"}, {"name": "Back"}]},'
    ' "2": {"name": "Cloze", "type": 1, "flds": [{"name": "Text"}, {"name": "Extra"}]}}'
)
NoteRow = tuple[Any, Any, Any, Any, Any]  # id, guid, mid, tags, flds


def legacy_db(
    notes: Sequence[NoteRow],
    *,
    models: Any = BASIC_CLOZE_MODELS,
    decks: Any = '{"1": {"name": "Default"}}',
    cards: Sequence[tuple[Any, Any, Any]] | None = None,
) -> bytes:
    """A schema-11 collection (``col.models``/``col.decks`` JSON) holding ``notes``."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE TABLE col (models, decks)")
        conn.execute("CREATE TABLE cards (nid, did, ord)")
        conn.execute("CREATE TABLE notes (id, guid, mid, tags, flds)")
        conn.execute("INSERT INTO col VALUES (?, ?)", (models, decks))
        conn.executemany("INSERT INTO notes VALUES (?, ?, ?, ?, ?)", notes)
        rows = cards if cards is not None else [(n[0], 1, 0) for n in notes]
        conn.executemany("INSERT INTO cards VALUES (?, ?, ?)", rows)
        conn.commit()
        return conn.serialize()  # the database file's bytes, built in memory (no fsync)
    finally:
        conn.close()


def new_db(
    notes: Sequence[NoteRow],
    *,
    notetypes: Sequence[tuple[Any, Any, Any]] = ((1, "Basic", b""), (2, "Cloze", b"\x08\x01")),
    fields: Sequence[tuple[Any, Any, Any]] = (
        (1, 0, "Front"),
        (1, 1, "Back"),
        (2, 0, "Text"),
        (2, 1, "Back Extra"),
    ),
    decks: Sequence[tuple[Any, Any]] = ((1, "Default"),),
) -> bytes:
    """A schema-18 collection (``notetypes``, ``fields``, ``decks`` tables)."""
    conn = sqlite3.connect(":memory:")
    try:
        for sql in (
            "CREATE TABLE col (models, decks)",
            "CREATE TABLE cards (nid, did, ord)",
            "CREATE TABLE notes (id, guid, mid, tags, flds)",
            "CREATE TABLE notetypes (id, name, config)",
            "CREATE TABLE fields (ntid, ord, name)",
            "CREATE TABLE decks (id, name)",
        ):
            conn.execute(sql)
        conn.execute("INSERT INTO col VALUES ('{}', '{}')")
        conn.executemany("INSERT INTO notes VALUES (?, ?, ?, ?, ?)", notes)
        conn.executemany("INSERT INTO cards VALUES (?, 1, 0)", [(n[0],) for n in notes])
        conn.executemany("INSERT INTO notetypes VALUES (?, ?, ?)", notetypes)
        conn.executemany("INSERT INTO fields VALUES (?, ?, ?)", fields)
        conn.executemany("INSERT INTO decks VALUES (?, ?)", decks)
        conn.commit()
        return conn.serialize()
    finally:
        conn.close()


def package(
    path: Path,
    collection: bytes,
    *,
    member: str = "collection.anki2",
    method: int = zipfile.ZIP_DEFLATED,
    extra_members: dict[str, bytes] | None = None,
) -> Path:
    """``collection`` zipped as ``member`` (``collection.anki21b``: zstd-compressed first)."""
    if member.endswith("b"):
        import zstandard

        collection = zstandard.ZstdCompressor().compress(collection)
    with zipfile.ZipFile(path, "w", compression=method) as z:
        z.writestr(member, collection)
        for name, data in (extra_members or {}).items():
            z.writestr(name, data)
    return path


def set_flag_bits(path: Path, bits: int) -> None:
    """OR ``bits`` into the general-purpose flags of every local and central header."""
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at >= 0:
            (flags,) = struct.unpack_from("<H", data, at + offset)
            struct.pack_into("<H", data, at + offset, flags | bits)
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))


def set_method(path: Path, method: int) -> None:
    """Write ``method`` as the compression method of every local and central header."""
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(signature)
        while at >= 0:
            struct.pack_into("<H", data, at + offset, method)
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
