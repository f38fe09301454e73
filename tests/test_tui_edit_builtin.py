"""N7: editing a built-in card (ctrl+o) edits the user's copy, which replaces the built-in
card and keeps its schedule; N5: a card that ctrl+o left invalid is reported as invalid,
not as renamed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tui_support import BASE_CARDS, SMALL, make_app, run_async, settle

import quizcoll.cli.common as common
import quizcoll.collection as collection_module
import quizcoll.paths as paths
from quizcoll.tui.screens.review import ReviewScreen
from quizcoll.tui.services.editor import card_line, user_copy


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A stand-in for the package's built-in folder, and the user's card folder."""
    builtin = tmp_path / "site-packages" / "quizcoll" / "cards"
    builtin.mkdir(parents=True)
    shutil.copy(BASE_CARDS[0], builtin / BASE_CARDS[0].name)
    monkeypatch.setattr(common, "builtin_cards_dir", lambda: builtin)
    monkeypatch.setattr(paths, "builtin_cards_dir", lambda: builtin)
    monkeypatch.setattr(collection_module, "builtin_cards_dir", lambda: builtin)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return builtin, common.user_cards_dir()


def test_the_user_copy_replaces_the_built_in_card(folders: tuple[Path, Path]) -> None:
    builtin, user = folders
    collection, _ = collection_module.load()
    card = collection.by_id()["ring-reduce-scatter-bytes"]
    source = builtin / BASE_CARDS[0].name
    before = source.read_bytes()
    target, line = user_copy(card, source, user)
    assert target.parent == user and source.read_bytes() == before
    text = target.read_text(encoding="utf-8")
    assert card_line(text, card.id) == line and text.startswith("deck: collectives")
    assert "ring-steps" not in text  # only the card being edited
    assert user_copy(card, source, user) == (target, line)  # copied once
    target.write_text(text.replace("A ring **reduce-scatter**", "An EDITED ring"), "utf-8")
    again, _ = collection_module.load()
    assert not [p for p in again.problems if "duplicate" in p.format()]
    assert [c.id for c in again.cards] == [c.id for c in collection.cards]  # same place
    assert "An EDITED ring" in again.by_id()[card.id].front


@run_async
async def test_ctrl_o_on_a_built_in_card_edits_the_users_copy(
    tmp_path: Path, folders: tuple[Path, Path]
) -> None:
    builtin, user = folders
    opened: list[Path] = []

    def editor(path: Path, line: int) -> int:
        opened.append(path)
        path.write_text(
            path.read_text("utf-8").replace("A ring **reduce", "An EDITED ring"), "utf-8"
        )
        return 0

    app = make_app(tmp_path / "r.db", cards=[builtin], editor=editor)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.session.current.card.id == "ring-reduce-scatter-bytes"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert opened and opened[0].parent == user
        assert "An EDITED ring" in screen.session.current.card.front
        messages = [n.message for n in app._notifications]
        assert any("built-in card" in m and str(user) in m for m in messages)
    assert "An EDITED ring" not in (builtin / BASE_CARDS[0].name).read_text("utf-8")


@run_async
async def test_an_invalid_edit_is_not_reported_as_a_rename(tmp_path: Path) -> None:
    cards = tmp_path / "cards.yaml"
    shutil.copy(BASE_CARDS[0], cards)

    def editor(path: Path, line: int) -> int:
        text = path.read_text("utf-8").replace("over {n} ranks", "over {nosuch} ranks")
        path.write_text(text, "utf-8")
        return 0

    app = make_app(tmp_path / "r.db", cards=[cards], editor=editor)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("nosuch" in m for m in messages)
        assert any("has problems" in m for m in messages), messages
        assert not any("rename" in m or "no longer in" in m for m in messages), messages
