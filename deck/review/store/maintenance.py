"""The review store's bulk operations: renaming a card's history, reconciling with the
collection's ids, and merging another history in. A mixin of
:class:`deck.review.store.Store`, which provides the connection and its helpers
(``_write``, ``_query``, ``_put``, ``_insert_review``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from deck.review.scheduler import CardState
from deck.review.store.records import CardRecord, MergeResult, Review, StoreError, SyncResult
from deck.review.store.schema import _row_to_record

if TYPE_CHECKING:
    from pathlib import Path


class Maintenance:
    """Renaming, syncing and merging (see the module docstring)."""

    path: Path
    _write: Any
    _query: Any
    _put: Any
    _insert_review: Any

    def set_states(self, states: Mapping[str, CardState]) -> int:
        """Give cards new scheduling states (a rescheduling, :mod:`deck.review.anki`) in one
        transaction; ids without a record are skipped. Returns the cards written."""
        written = 0
        with self._write() as db:
            for card_id, state in states.items():
                row = db.execute("SELECT * FROM cards WHERE card_id = ?", (card_id,)).fetchone()
                if row is not None:
                    self._put(db, replace(_row_to_record(row, self.path), state=state))
                    written += 1
        return written

    def rename_card(self, old: str, new: str) -> int:
        """Carry the history and state of card ``old`` to the id ``new``, in one transaction;
        returns the reviews moved. Refused when ``new`` already has a record or reviews (two
        histories are never mixed) or ``old`` has neither, and while a review session holds
        the database (:mod:`deck.review.store.sessions`: it would go on rating ``old``)."""
        from pathlib import Path

        from deck.review.store.sessions import SessionLock

        lock = None if self.path == Path(":memory:") else SessionLock(self.path, exclusive=True)
        try:
            return self._rename(old, new)
        finally:
            if lock is not None:
                lock.release()

    def _rename(self, old: str, new: str) -> int:
        with self._write() as db:
            for card_id in (new, old):
                has = db.execute(
                    "SELECT (SELECT count(*) FROM cards WHERE card_id = ?) + "
                    "(SELECT count(*) FROM reviews WHERE card_id = ?)",
                    (card_id, card_id),
                ).fetchone()[0]
                if card_id == new and has:
                    raise StoreError(
                        f"{self.path}: card {new!r} already has a history; not renamed"
                    )
                if card_id == old and not has:
                    raise StoreError(f"{self.path}: card {old!r} has no history to rename")
            db.execute("UPDATE cards SET card_id = ? WHERE card_id = ?", (new, old))
            moved = db.execute("UPDATE reviews SET card_id = ? WHERE card_id = ?", (new, old))
            return int(moved.rowcount)

    def sync_cards(self, cards: Iterable[tuple[str, str]]) -> SyncResult:
        """Reconcile with the collection's ``(card_id, deck)`` pairs.

        Records whose id is gone are marked orphaned (their history stays); orphaned
        records whose id is back are restored, and deck names follow the YAML. Writes
        only when something changed.
        """
        present = dict(cards)
        rows = self._query("SELECT card_id, deck, orphaned FROM cards")
        gone = [r["card_id"] for r in rows if r["card_id"] not in present and not r["orphaned"]]
        back = [r["card_id"] for r in rows if r["card_id"] in present and r["orphaned"]]
        moved = [
            (present[r["card_id"]], r["card_id"])
            for r in rows
            if r["card_id"] in present and r["deck"] != present[r["card_id"]]
        ]
        if gone or back or moved:
            with self._write() as db:
                db.executemany(
                    "UPDATE cards SET orphaned = 1 WHERE card_id = ?", [(c,) for c in gone]
                )
                db.executemany(
                    "UPDATE cards SET orphaned = 0 WHERE card_id = ?", [(c,) for c in back]
                )
                db.executemany("UPDATE cards SET deck = ? WHERE card_id = ?", moved)
        return SyncResult(orphaned=tuple(sorted(gone)), returned=tuple(sorted(back)))

    def merge(self, records: Iterable[CardRecord], reviews: Iterable[Review]) -> MergeResult:
        """Merge another history in, in one transaction.

        Reviews are keyed on ``uid`` (one already present is skipped, never duplicated)
        and inserted in time order. A card's record is taken from the import when the
        card is unknown here or the imported state is from a later review.
        """
        added = skipped = updated = 0
        ordered = sorted(reviews, key=lambda r: (r.reviewed_at, r.id or 0))
        with self._write() as db:
            for review in ordered:
                if self._insert_review(db, review):
                    added += 1
                else:
                    skipped += 1
            for record in records:
                row = db.execute(
                    "SELECT * FROM cards WHERE card_id = ?", (record.card_id,)
                ).fetchone()
                if row is not None:
                    local = _row_to_record(row, self.path)
                    theirs = record.state.last_review
                    ours = local.state.last_review
                    if theirs is None or (ours is not None and theirs <= ours):
                        continue
                    record = replace(record, orphaned=local.orphaned)
                self._put(db, record)
                updated += 1
        return MergeResult(added=added, skipped=skipped, cards_updated=updated)
