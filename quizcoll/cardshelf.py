"""One card out of the compiled-collection cache, without unpickling the whole collection.

``show`` and ``grade`` need one card; unpickling the collection of 500 cards costs them more
than everything else they do but the card's own run. Beside each cached collection (same
key, :mod:`quizcoll.compiled`) the *shelf* keeps every card pickled on its own: a marshal
map of id → pickle bytes, so a lookup decodes one small map and one card. It is a cache like
the collection: read through a size cap, any unreadable, foreign or truncated file (or an id
it does not hold) is a miss, and the caller loads the collection as before.
"""

from __future__ import annotations

import marshal
import pickle
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deck.cards.model import Card, Collection

FORMAT = b"quizcoll-card-shelf-1\n"
MAX_SHELF_BYTES = 64 * 1024 * 1024


def shelf_path(key: str, folder: Path) -> Path:
    return folder / f"{key[:32]}.cards"


def write_shelf(key: str, collection: Collection, folder: Path) -> bool:
    """Shelve ``collection``'s cards one by one under ``key``; False when it cannot be."""
    from deck.base.safeio import PathError, write_bytes

    try:
        shelf = {c.id: pickle.dumps(c, protocol=5) for c in collection.cards}
        data = FORMAT + key.encode() + b"\n" + marshal.dumps(shelf)
        if len(data) > MAX_SHELF_BYTES:
            return False
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes(shelf_path(key, folder), data, what="card shelf")
    except (PathError, OSError, ValueError, pickle.PicklingError, TypeError, AttributeError):
        return False
    return True


def read_card(key: str, card_id: str, folder: Path) -> Card | None:
    """The shelved card ``card_id`` of the collection cached under ``key``; None on a miss."""
    from deck.base.safeio import PathError, read_bytes
    from deck.cards.model import Card

    try:
        data = read_bytes(shelf_path(key, folder), limit=MAX_SHELF_BYTES, what="card shelf")
    except (PathError, OSError):
        return None
    head = FORMAT + key.encode() + b"\n"
    if not data.startswith(head):
        return None
    try:
        shelf = marshal.loads(data[len(head) :])
        raw = shelf.get(card_id) if isinstance(shelf, dict) else None
        card = pickle.loads(raw) if isinstance(raw, bytes) else None
    except Exception:  # junk of any kind in a cache file is a miss
        return None
    return card if isinstance(card, Card) and card.id == card_id else None
