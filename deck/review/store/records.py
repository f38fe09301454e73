"""The review store's records and errors: card records, reviews and their snapshots,
serialised explicitly and checked field by field wherever they are read (a file, an import,
a row)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from deck.base.errors import DeckError
from deck.cards.rating import Rating
from deck.review.scheduler import CardState, format_time, parse_time
from deck.units import check_number


class StoreError(DeckError):
    """The review database cannot be used."""


class NotQuizcollDatabase(StoreError):
    """The file is not a quizcoll review database (another program's, or not SQLite)."""


class CorruptDatabase(StoreError):
    """The file is a quizcoll database that SQLite finds damaged."""


class NewerDatabase(StoreError):
    """The database was written by a newer quizcoll (a schema version we do not know)."""


class NoDatabase(StoreError):
    """No database exists at the path, and the command only reads one."""


class StaleState(StoreError):
    """Another session wrote the card since its state was read; nothing was stored.

    ``state`` and ``version`` are the card's current ones: compute the review again from them.
    """

    def __init__(self, card_id: str, state: CardState, version: int) -> None:
        super().__init__(
            f"card {card_id!r} was reviewed in another session meanwhile; "
            "its review must be computed again from the new state"
        )
        self.card_id = card_id
        self.state = state
        self.version = version


class UndoError(StoreError):
    """There is nothing to undo, or the review is not the card's latest."""


# -- checking what is read ----------------------------------------------------------------
# A row of the database or an entry of an imported history may hold anything: every field is
# checked on the way in, so junk is refused (an import) or reported as damage (a row), never
# passed on to the scheduler or the statistics.

_CARD_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # the card format's id rule
_UID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ROLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")  # a card parameter role (role: in params)
MAX_GIVEN = 16
MAX_NAME_CHARS = 200  # a card id or a deck name
MAX_ANSWER_TEXT = 10_000  # a stored answer (typed answers are capped at 1,000)
MAX_DURATION_MS = 2**31 - 1  # about 24 days
MAX_SQL_INT = 2**63 - 1  # SQLite's INTEGER


def _mapping(data: Any, what: str) -> None:
    if not isinstance(data, dict):
        raise TypeError(f"expected a {what} mapping, got {type(data).__name__}")


def _flag(value: Any, what: str) -> bool:
    """true/false, or SQLite's 0/1."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{what} must be true or false, got {str(value)[:40]!r}")


def _text(value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be text, got {type(value).__name__}")
    if len(value) > limit:
        raise ValueError(f"{what} is {len(value):,} characters long (at most {limit:,})")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} holds characters that are not text (lone surrogates)") from None
    return value


def _optional_text(value: Any, what: str, limit: int) -> str | None:
    return None if value is None else _text(value, what, limit)


def _given(value: Any) -> tuple[tuple[str, float], ...]:
    """A review's ``given`` values: at most :data:`MAX_GIVEN` roles, each a name and a
    positive finite number (base units)."""
    if value is None:
        return ()
    _mapping(value, "given")
    if len(value) > MAX_GIVEN:
        raise ValueError(f"given holds {len(value)} values; at most {MAX_GIVEN}")
    out = []
    for role, number in value.items():
        if not isinstance(role, str) or not _ROLE.match(role):
            raise ValueError(f"given: {str(role)[:40]!r} is not a role name")
        out.append((role, float(check_number(number, f"given.{role}", low=0, high=1e30))))
        if out[-1][1] <= 0:
            raise ValueError(f"given.{role} must be above 0")
    return tuple(sorted(out))


def _card_id(value: Any) -> str:
    card_id = _text(value, "card_id", MAX_NAME_CHARS)
    if not _CARD_ID.match(card_id):
        raise ValueError(
            f"card_id {card_id[:40]!r} is not a card id (lowercase letters, digits, '-')"
        )
    return card_id


def _optional_int(value: Any, what: str, high: int) -> int | None:
    if value is None:
        return None
    return int(check_number(value, what, low=0, high=high, integer=True))


# -- values -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything about a card that a review can change."""

    state: CardState = field(default_factory=CardState)
    suspended: bool = False
    leech: bool = False
    buried_until: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state.to_dict(),
            "suspended": self.suspended,
            "leech": self.leech,
            "buried_until": format_time(self.buried_until),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Snapshot:
        """The inverse of :meth:`to_dict`, every field checked (``ValueError``/``TypeError``)."""
        _mapping(data, "snapshot")
        return cls(
            state=CardState.from_dict(data["state"]),
            suspended=_flag(data.get("suspended", False), "suspended"),
            leech=_flag(data.get("leech", False), "leech"),
            buried_until=parse_time(data.get("buried_until")),
        )


@dataclass(frozen=True)
class CardRecord:
    """A card as the store knows it. Cards never reviewed nor flagged have no record."""

    card_id: str
    deck: str = ""
    state: CardState = field(default_factory=CardState)
    suspended: bool = False
    leech: bool = False
    buried_until: datetime | None = None
    orphaned: bool = False
    # Bumped by every write of the card's row: the compare-and-swap token of record_review.
    # Local to one database (never exported), so not part of a record's identity.
    version: int = field(default=0, compare=False)

    def snapshot(self) -> Snapshot:
        return Snapshot(self.state, self.suspended, self.leech, self.buried_until)

    def with_snapshot(self, snap: Snapshot) -> CardRecord:
        return replace(
            self,
            state=snap.state,
            suspended=snap.suspended,
            leech=snap.leech,
            buried_until=snap.buried_until,
        )

    def is_buried(self, now: datetime) -> bool:
        return self.buried_until is not None and self.buried_until > now

    def to_dict(self) -> dict[str, Any]:
        return {"card_id": self.card_id, "deck": self.deck, "orphaned": self.orphaned} | (
            self.snapshot().to_dict()
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardRecord:
        """The inverse of :meth:`to_dict`, every field checked (``ValueError``/``TypeError``)."""
        _mapping(data, "card record")
        return cls(
            card_id=_card_id(data["card_id"]),
            deck=_text(data.get("deck", ""), "deck", MAX_NAME_CHARS),
            orphaned=_flag(data.get("orphaned", False), "orphaned"),
        ).with_snapshot(Snapshot.from_dict(data))


@dataclass(frozen=True)
class Review:
    """One stored review. ``uid`` is its identity across databases (history merge)."""

    uid: str
    card_id: str
    deck: str
    reviewed_at: datetime
    rating: Rating
    before: Snapshot
    after: Snapshot
    duration_ms: int | None = None
    answer: str | None = None
    correct: bool | None = None
    seed: int | None = None
    practice: bool = False  # cram review: logged, schedule unchanged
    id: int | None = None  # local row id, in commit order
    hinted: bool = False  # the card's hint was shown before answering
    # The values the learner's setup gave the instance (role -> base units; with the seed,
    # what redraws it: deck.cards.instances.draw(given=...)); () for the seed alone.
    given: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form without the local row id (which is not portable); ``given`` only when
        the instance had such values."""
        extra = {"given": dict(self.given)} if self.given else {}
        return extra | {
            "uid": self.uid,
            "card_id": self.card_id,
            "deck": self.deck,
            "reviewed_at": format_time(self.reviewed_at),
            "rating": int(self.rating),
            "duration_ms": self.duration_ms,
            "answer": self.answer,
            "correct": self.correct,
            "seed": self.seed,
            "practice": self.practice,
            "hinted": self.hinted,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review:
        """The inverse of :meth:`to_dict`, every field checked before anything is stored
        (``ValueError``/``KeyError``/``TypeError`` naming the field)."""
        _mapping(data, "review")
        uid = data["uid"]
        if not isinstance(uid, str) or not _UID.match(uid):
            raise ValueError(f"uid {str(uid)[:40]!r} is not a review id (1–64 letters and digits)")
        reviewed_at = parse_time(data["reviewed_at"])
        if reviewed_at is None:
            raise ValueError("reviewed_at is missing")
        correct = data.get("correct")
        return cls(
            uid=uid,
            card_id=_card_id(data["card_id"]),
            deck=_text(data.get("deck", ""), "deck", MAX_NAME_CHARS),
            reviewed_at=reviewed_at,
            rating=Rating(check_number(data["rating"], "rating", low=1, high=4, integer=True)),
            before=Snapshot.from_dict(data["before"]),
            after=Snapshot.from_dict(data["after"]),
            duration_ms=_optional_int(data.get("duration_ms"), "duration_ms", MAX_DURATION_MS),
            answer=_optional_text(data.get("answer"), "answer", MAX_ANSWER_TEXT),
            correct=None if correct is None else _flag(correct, "correct"),
            seed=_optional_int(data.get("seed"), "seed", MAX_SQL_INT),
            practice=_flag(data.get("practice", False), "practice"),
            hinted=_flag(data.get("hinted", False), "hinted"),
            given=_given(data.get("given")),
        )


@dataclass(frozen=True)
class SyncResult:
    """What :meth:`Store.sync_cards` changed."""

    orphaned: tuple[str, ...] = ()
    returned: tuple[str, ...] = ()


@dataclass(frozen=True)
class MergeResult:
    """What :meth:`Store.merge` did: reviews added and skipped (already there), cards updated."""

    added: int = 0
    skipped: int = 0
    cards_updated: int = 0
