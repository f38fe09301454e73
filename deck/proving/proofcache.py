"""Remembering which cards were proven, so that ``check`` re-proves only what changed.

A card's proof depends on the card (every field, its place in its file included), on
the number of seeds, and on the code that runs it (the engine, the executables and the
declared constants). The key of a proof is a hash of all three: the application passes
a fingerprint of its code (:func:`quizcoll.fingerprint.code_fingerprint`), so that any
change to a card or to the code makes the old proof a miss, never a stale answer.

Only cards that passed clean are remembered (no failure, no warning): a card with
anything to report is always proven afresh, so its messages are those of this run.

The file is a cache, not user data: one JSON object, read through a size cap and
validated field by field; a file that is unreadable, too large or malformed counts as
empty and is replaced on the next write (atomically, see :mod:`deck.base.safeio`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from deck.base.safeio import PathError, read_bytes, write_text
from deck.cards.model import Card

FORMAT = 1
MAX_CACHE_BYTES = 4 * 1024 * 1024
MAX_ENTRIES = 20_000  # about 1.5 MB of JSON; the oldest proofs are dropped first
_MAX_COUNT = 10**9


@dataclass(frozen=True)
class Proven:
    """What a clean proof of one card counted (the report adds these up)."""

    claims: int
    points: int
    instances: int


class ProofCache:
    """Proofs by key, loaded from and saved to one file."""

    def __init__(self, path: Path, code: str, entries: dict[str, Proven] | None = None) -> None:
        self.path = path
        self.code = code
        self._entries: dict[str, Proven] = dict(entries or {})
        self._changed = False

    @classmethod
    def open(cls, path: Path, code: str) -> ProofCache:
        """The cache at ``path`` for code fingerprint ``code`` (empty if absent or unusable)."""
        try:
            data = read_bytes(path, limit=MAX_CACHE_BYTES, what="proof cache")
        except PathError:
            return cls(path, code)
        return cls(path, code, _parse(data))

    def key(self, card: Card, seeds: int, *, explanations: bool = False) -> str:
        # repr covers every field of the frozen card (tuples and dataclasses only: the same
        # text in every process, whatever PYTHONHASHSEED is). A card clean without the
        # explanations' proof is not clean with it: the switch is part of the key (and left
        # out when off, so the proofs remembered before it existed still hold).
        proofs = "\0explanations" if explanations else ""
        text = f"{FORMAT}\0{self.code}\0{seeds}{proofs}\0{card!r}"
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> Proven | None:
        return self._entries.get(key)

    def put(self, key: str, proven: Proven) -> None:
        if self._entries.get(key) != proven:
            self._entries.pop(key, None)  # re-inserted: the newest proofs are kept longest
            self._entries[key] = proven
            self._changed = True

    def __len__(self) -> int:
        return len(self._entries)

    def save(self) -> str | None:
        """Write the cache if it changed; return why it could not be written, or None."""
        if not self._changed:
            return None
        kept = list(self._entries.items())[-MAX_ENTRIES:]
        body = {
            "format": FORMAT,
            "proofs": {k: [p.claims, p.points, p.instances] for k, p in kept},
        }
        try:
            write_text(self.path, json.dumps(body, separators=(",", ":")), what="proof cache")
        except PathError as exc:
            return str(exc)
        self._changed = False
        return None


def _parse(data: bytes) -> dict[str, Proven]:
    """The entries of a cache file; anything malformed makes it empty (it is only a cache)."""
    try:
        body = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        return {}
    proofs = body.get("proofs")
    if not isinstance(proofs, dict):
        return {}
    out: dict[str, Proven] = {}
    for key, counts in list(proofs.items())[-MAX_ENTRIES:]:  # the newest, as save keeps
        if (
            isinstance(key, str)
            and len(key) == 64
            and isinstance(counts, list)
            and len(counts) == 3
            and all(type(c) is int and 0 <= c <= _MAX_COUNT for c in counts)
        ):
            out[key] = Proven(*counts)
    return out
