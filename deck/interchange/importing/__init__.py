"""Imported notes → a card file (YAML) that the loader accepts: stable ids, decks, tags.

The readers (:mod:`deck.interchange.importing.apkg` for ``.apkg``, :mod:`deck.interchange.importing.table` for CSV) give
:class:`ImportedNote` values whose text is already Markdown with literal braces doubled.
:func:`build_cards` turns them into card mappings and :func:`card_file_text` writes them:

* ids are slugs of the question (``what-is-the-capital-of-france``), or the id a quizcoll
  note carries; the same input always gives the same ids, and a clash gets ``-2``, ``-3``
  in note order, so re-importing an edited deck keeps the ids of the notes that stayed;
* decks are slugs of the source deck (``Languages::Spanish`` → ``languages-spanish``), or the
  one name given; tags keep letters, digits, ``_ - . / +`` (Anki's ``a::b`` becomes ``a/b``).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import yaml

from deck.base.errors import DeckError

MAX_ID_CHARS = 48
MAX_VALUE_CHARS = 60_000  # the loader refuses values over 64 Ki characters
MAX_FILE_CHARS = 30 * 1024 * 1024  # the loader refuses card files over 32 MiB
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # as deck.cards.loader checks ids
_TAG_OK = re.compile(r"^[A-Za-z0-9][\w./+-]*$")
_MARKUP = re.compile(r"\\[()\[\]]|\\.|[`*_~#|<>{}\[\]()]")


class ImportFailure(DeckError):
    """A file that cannot be imported: one line, naming the file."""


@dataclass(frozen=True)
class ImportedNote:
    """One card's worth of an imported note, as Markdown."""

    key: str  # stable: the note's GUID (and the cloze number), or the CSV row
    front: str
    back: str
    tags: tuple[str, ...] = ()
    deck: str = ""  # the source deck ("Languages::Spanish"), "" if unknown
    kind: str = "basic"  # basic | cloze | quizcoll
    card_id: str = ""  # the id a quizcoll note carries
    hint: str = ""
    source: str = ""


@dataclass(frozen=True)
class Skipped:
    """Notes that were not imported, grouped by note type (or by reason)."""

    notetype: str
    count: int
    reason: str

    def line(self) -> str:
        return f"skipped {self.count} note(s) of type {self.notetype!r}: {self.reason}"


def _ascii_words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", _MARKUP.sub(" ", text))
    return re.findall(r"[a-z0-9]+", folded.encode("ascii", "ignore").decode().lower())


def slug(text: str, fallback_key: str, prefix: str = "card") -> str:
    """Lowercase words of ``text`` joined by ``-`` (at most 48 characters, whole words);
    ``prefix-<hash of fallback_key>`` when the text has no Latin letters or digits."""
    out = ""
    for word in _ascii_words(text):
        longer = f"{out}-{word}" if out else word
        if len(longer) > MAX_ID_CHARS:
            if not out:
                out = word[:MAX_ID_CHARS]
            break
        out = longer
    if out:
        return out
    return f"{prefix}-{hashlib.sha256(fallback_key.encode('utf-8')).hexdigest()[:8]}"


def deck_name(source: str) -> str:
    """A deck name the loader accepts for the source deck ``source`` (``imported`` if none)."""
    return slug(source.replace("::", " "), source, "deck") if source.strip() else "imported"


def tag_name(tag: str) -> str | None:
    """A tag the loader accepts (``a::b`` → ``a/b``), or None when nothing is left of it."""
    text = re.sub(r"[^\w./+-]+", "-", tag.replace("::", "/")).lstrip("-./+_").rstrip("-/")
    return text if text and _TAG_OK.match(text) else None


def build_cards(
    notes: Sequence[ImportedNote], deck: str | None = None, taken: AbstractSet[str] = frozenset()
) -> tuple[str, list[dict[str, Any]], list[Skipped]]:
    """(file deck, card mappings, skipped) for ``notes``; ``deck`` names every card's deck.
    ``taken``: ids other card files of the collection use (a clash gets ``-2``, ``-3``)."""
    if deck is not None and not ID_PATTERN.match(deck):
        raise ImportFailure(f"deck name {deck!r} must be lowercase letters, digits and '-'")
    skipped: Counter[str] = Counter()
    kept: list[ImportedNote] = []
    for note in notes:
        if not note.front.strip():
            skipped["an empty question"] += 1
        elif max(len(note.front), len(note.back), len(note.hint)) > MAX_VALUE_CHARS:
            skipped[f"text longer than {MAX_VALUE_CHARS:,} characters"] += 1
        else:
            kept.append(note)
    decks = [deck or deck_name(n.deck) for n in kept]
    main = deck or (Counter(decks).most_common(1)[0][0] if decks else "imported")
    used: set[str] = set(taken)
    cards = []
    for note, card_deck in zip(kept, decks, strict=True):
        base = note.card_id if ID_PATTERN.match(note.card_id) else slug(note.front, note.key)
        card_id, n = base, 1
        while card_id in used:
            n += 1
            card_id = f"{base}-{n}"
        used.add(card_id)
        card: dict[str, Any] = {"id": card_id, "type": "basic"}
        if card_deck != main:
            card["deck"] = card_deck
        tags = list(dict.fromkeys(t for t in map(tag_name, note.tags) if t))
        if tags:
            card["tags"] = _Flow(tags)
        card["front"] = note.front
        if note.back.strip():
            card["back"] = note.back
        if note.hint.strip():
            card["hint"] = note.hint
        if note.source.strip():
            card["source"] = note.source
        cards.append(card)
    return main, cards, [Skipped("(any)", count, why) for why, count in skipped.items()]


class _Flow(list):  # type: ignore[type-arg]
    """A list written in flow style: ``tags: [a, b]``."""


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Multi-line text as a literal block (|), so the card file reads like the card.
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None
    )


def _flow(dumper: yaml.SafeDumper, value: _Flow) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(_Flow, _flow)


def card_file_text(deck: str, cards: Sequence[dict[str, Any]], origin: str = "") -> str:
    """The card file: ``deck:`` and ``cards:``, with a comment saying where it came from.

    Imported text states numbers no executable proves, so the file says ``unproven: warn``:
    ``check`` lists them and passes (docs/card-format.md)."""
    origin = re.sub(r"[\x00-\x1f\x7f\x85\u2028\u2029]", " ", origin)  # YAML line breaks
    head = (
        f"# Imported by quizcoll{f' from {origin}' if origin else ''}: {len(cards)} card(s).\n"
        "# Numbers in imported text are not proven by code: check lists them as warnings.\n"
    )
    body = yaml.dump(
        {"unproven": "warn", "deck": deck, "cards": list(cards)},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )
    text = head + body
    if len(text) > MAX_FILE_CHARS:
        raise ImportFailure(
            f"the card file would be {len(text):,} characters; card files are limited to "
            f"{MAX_FILE_CHARS:,}: import fewer notes at a time"
        )
    return text
