"""Anki packages (``.apkg``) from plain note data, written with genanki.

Why genanki: it is a small pure-Python library that writes the package format every Anki
version (desktop, AnkiDroid, AnkiMobile) imports, and it lets us set each note's GUID, so
exporting again and importing again *updates* notes instead of duplicating them. The
``anki`` package's own exporter would need a whole Anki collection (its Rust backend, a
much larger platform-specific wheel) just to write one file; we use it only in the tests,
to prove that real Anki imports what we write.

Nothing here knows about quizcoll's cards: a :class:`NoteType` (fields and templates) and
:class:`AnkiNote` values (GUID, deck, field HTML, tags) go in; bytes come out. Ids are
derived from names, so the note type and decks keep their ids from one export to the next.
genanki is imported only when a package is written.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

from deck.base.errors import DeckError

# Anki's own ids are milliseconds since 1970; genanki recommends ids in [2^30, 2^31).
_ID_LOW, _ID_SPAN = 1 << 30, 1 << 30
_TAG_BAD = re.compile(r"[\s\"]+")


class AnkiError(DeckError):
    """A package that cannot be written (genanki missing, or invalid note data)."""


def stable_id(*parts: str) -> int:
    """A deterministic id in [2^30, 2^31) for a note type or deck named by ``parts``."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return _ID_LOW + int.from_bytes(digest[:8], "big") % _ID_SPAN


def note_guid(*parts: str) -> str:
    """A deterministic note GUID: the same parts always give the same GUID (so a re-import
    updates the note), different parts practically never collide (80 bits)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]


def anki_tag(tag: str) -> str:
    """A tag as Anki stores it: no spaces or quotes (they separate tags in Anki)."""
    return _TAG_BAD.sub("_", tag.strip())


@dataclass(frozen=True)
class NoteType:
    """An Anki note type: field names, one card template (front and back HTML) and CSS."""

    name: str
    fields: tuple[str, ...]
    front: str
    back: str
    css: str = ""

    @property
    def id(self) -> int:
        return stable_id("notetype", self.name)


@dataclass(frozen=True)
class AnkiNote:
    """One note: its GUID, its deck (``parent::child``), field HTML in field order, tags."""

    guid: str
    deck: str
    fields: tuple[str, ...]
    tags: tuple[str, ...] = ()


def package_bytes(
    note_type: NoteType, notes: Sequence[AnkiNote], *, timestamp: float | None = None
) -> bytes:
    """The ``.apkg`` file holding ``notes`` (``timestamp``: their modification time, now
    by default; Anki updates an existing note on import only when this is newer)."""
    try:
        import genanki
    except ImportError:
        raise AnkiError("writing Anki packages needs the genanki package") from None
    model = genanki.Model(
        note_type.id,
        note_type.name,
        fields=[{"name": name} for name in note_type.fields],
        templates=[{"name": "Card 1", "qfmt": note_type.front, "afmt": note_type.back}],
        css=note_type.css,
    )
    decks: dict[str, genanki.Deck] = {}
    for note in notes:
        if len(note.fields) != len(note_type.fields):
            raise AnkiError(
                f"note {note.guid}: {len(note.fields)} fields for a note type with "
                f"{len(note_type.fields)}"
            )
        deck = decks.get(note.deck)
        if deck is None:
            deck = decks[note.deck] = genanki.Deck(stable_id("deck", note.deck), note.deck)
        deck.add_note(
            genanki.Note(
                model=model,
                fields=list(note.fields),
                tags=[anki_tag(t) for t in note.tags if t.strip()],
                guid=note.guid,
            )
        )
    buffer = io.BytesIO()
    genanki.Package(list(decks.values())).write_to_file(buffer, timestamp=timestamp)
    return buffer.getvalue()
