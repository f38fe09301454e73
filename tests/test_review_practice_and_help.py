"""N20: practice promises no intervals on the rating buttons (its ratings never change the
schedule); `quizcoll review --help` shows no reST markup."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from deck.review.scheduler import Config, Settings
from deck.review.store import Store
from quizcoll.cli.main import main
from quizcoll.collection import load
from quizcoll.tui.services.review import ReviewSession


def test_practice_shows_no_interval_labels(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "deck: d\ncards:\n  - id: a\n    type: basic\n    front: 'Q?'\n    back: 'A.'\n", "utf-8"
    )
    collection, registry = load([path])
    clock = lambda: datetime(2026, 3, 3, 12, tzinfo=UTC)  # noqa: E731
    config = Config(default=Settings(fuzz=False))
    with Store.in_memory() as store:
        practice = ReviewSession(
            collection.cards, registry, config, clock, lambda: 0, practice=True
        )
        practice.load(store)
        assert practice.advance(store) is not None
        assert practice.preview(store) == {}
        review = ReviewSession(collection.cards, registry, config, clock, lambda: 0)
        review.load(store)
        assert review.advance(store) is not None
        assert set(review.preview(store).values()) >= {"1m"}


def test_review_help_has_no_rest_markup(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--help"]) == 0
    out = capsys.readouterr().out
    assert "``" not in out and "`--plain`" in out
