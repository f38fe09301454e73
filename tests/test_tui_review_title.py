"""N13: the review title keeps its n/N count within an 80-column line in practice by tag
(it said "practice" twice and lost the count)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from deck.review.scheduler import Config, Settings
from deck.review.store import Store
from quizcoll.collection import load
from quizcoll.tui.services.review import ReviewSession
from quizcoll.tui.widgets.review_text import review_title

TITLE_WIDTH_AT_80 = 80 - 2 - 30  # #review-top padding and the progress bar (screens.tcss)


def test_a_practice_title_fits_with_its_count(tmp_path: Path) -> None:
    path = tmp_path / "collectives.yaml"
    path.write_text(
        "deck: collectives\ncards:\n  - id: a\n    type: basic\n    tags: [rabenseifner]\n"
        "    front: 'Q?'\n    back: 'A.'\n",
        "utf-8",
    )
    collection, registry = load([path])
    session = ReviewSession(
        collection.cards,
        registry,
        Config(default=Settings(fuzz=False)),
        lambda: datetime(2026, 3, 3, tzinfo=UTC),
        lambda: 0,
        practice=True,
        tag="rabenseifner",
    )
    with Store.in_memory() as store:
        session.load(store)
        session.advance(store)
    title = review_title(session, practice=True, deck=None, tag="rabenseifner").plain
    assert title.count("ractice") == 1
    assert title.endswith("0/1") and len(title) <= TITLE_WIDTH_AT_80, title
