"""Issue 26, editing a card in ``$EDITOR`` (the review screen's ctrl+o): whatever the editor
does — exits non-zero, leaves broken YAML or a 33 MiB file, replaces the file by a link to
``/dev/zero`` or a FIFO, deletes it, puts a folder there — the app reports it in a line and
keeps the session; a ``$EDITOR`` that is no command line is said so, never a traceback."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from tui_support import BASE_CARDS, SMALL, make_app, run_async, settle

from quizcoll.executables import build_registry
from quizcoll.tui.screens.review import ReviewScreen
from quizcoll.tui.services.editor import EditorError, editor_command, reload_card


def _fifo(p: Path) -> None:
    p.unlink()
    os.mkfifo(p)


def _link_to_fifo(p: Path) -> None:
    p.unlink()
    os.mkfifo(p.with_name("pipe"))
    p.symlink_to(p.with_name("pipe"))


def _swap(p: Path, target: str) -> None:
    p.unlink()
    p.symlink_to(target)


def _folder(p: Path) -> None:
    p.unlink()
    p.mkdir()


DAMAGE: dict[str, tuple[Callable[[Path], object], str]] = {
    "broken-yaml": (lambda p: p.write_text("cards: [\n  - id: x\n"), "YAML syntax"),
    "huge": (lambda p: p.write_bytes(b"#" * (33 * 2**20)), "larger than a card file may be"),
    "binary": (lambda p: p.write_bytes(bytes(range(256)) * 8), "binary file"),
    "link-to-dev-zero": (lambda p: _swap(p, "/dev/zero"), "is a device"),
    "fifo": (_fifo, "is a FIFO"),
    "link-to-fifo": (_link_to_fifo, "is a FIFO"),
    "deleted": (lambda p: p.unlink(), "no such file"),
    "dangling-link": (lambda p: _swap(p, str(p.with_name("nowhere"))), "no such file"),
    "folder": (_folder, "is a folder"),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_reload_after_any_damage_is_a_line(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "cards.yaml"
    shutil.copy(BASE_CARDS[0], path)
    damage, message = DAMAGE[kind]
    damage(path)
    reloaded = reload_card(path, str(path), "ring-reduce-scatter-bytes", build_registry())
    assert reloaded.card is None and message in reloaded.problems[0], reloaded.problems


@pytest.mark.parametrize(
    ("environ", "argv0"),
    [({"EDITOR": ""}, "vi"), ({"EDITOR": "   "}, "vi"), ({"VISUAL": " \t", "EDITOR": "nano"},
     "nano"), ({"VISUAL": "code -n"}, "code")],
)  # fmt: skip
def test_a_blank_editor_variable_counts_as_unset(environ: dict[str, str], argv0: str) -> None:
    assert editor_command(Path("f.yaml"), 3, environ)[0] == argv0


@pytest.mark.parametrize("value", ['vim "', "emacs 'x", "ed \\"])
def test_an_editor_variable_that_is_no_command_line_is_one_line(value: str) -> None:
    with pytest.raises(EditorError) as caught:
        editor_command(Path("f.yaml"), 3, {"EDITOR": value})
    assert "$EDITOR=" in str(caught.value) and len(str(caught.value).splitlines()) == 1


@run_async
async def test_the_app_survives_a_hostile_editor(tmp_path: Path) -> None:
    cards = tmp_path / "cards.yaml"
    shutil.copy(BASE_CARDS[0], cards)
    kinds = ["broken-yaml", "link-to-dev-zero", "fifo"]

    def editor(path: Path, line: int) -> int:
        DAMAGE[kinds[len(calls)]][0](path)
        calls.append(None)
        return 3  # and a non-zero exit status

    calls: list[None] = []
    app = make_app(tmp_path / "r.db", cards=[cards], editor=editor)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        first = screen.session.current.card.id
        for _ in kinds:
            await pilot.press("ctrl+o")
            await settle(pilot)
            cards.unlink()  # the user puts the file back before the next edit
            shutil.copy(BASE_CARDS[0], cards)
        messages = [n.message for n in app._notifications]
        assert len(calls) == len(kinds)
        assert sum("the editor exited with status 3" in m for m in messages) == len(kinds)
        for text in ("YAML syntax", "is a device", "is a FIFO"):
            assert any(text in m for m in messages), (text, messages)
        assert screen.session.current.card.id == first  # the session keeps the old text


@run_async
async def test_the_app_says_when_editor_is_no_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", 'vim "unclosed')
    app = make_app(tmp_path / "r.db")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        status = await app.edit_file(tmp_path / "x.yaml", 1)
        await settle(pilot)
    assert status == 127
    assert any("$VISUAL=" in n.message for n in app._notifications)
