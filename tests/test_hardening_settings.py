"""Issue 26, settings (F13): every read of ``config.toml`` — the scheduler's settings, the
saved theme, the settings screen's edit — takes a regular file only, size-capped and opened
without blocking. A FIFO, ``/dev/zero``, a folder or a huge file as ``config.toml`` never
hangs the app (the TUI's loader reads the theme right after the settings)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from deck.review.scheduler import ConfigError, load_config
from quizcoll.config_file import MAX_SETTINGS_BYTES, ConfigWriteError
from quizcoll.settings import Change, read_theme, save_settings

HANG_SECONDS = 60  # a hang guard, not a speed limit: a refusal is immediate


@contextlib.contextmanager
def no_hang(what: str) -> Iterator[None]:
    def hung(signum: int, frame: object) -> None:
        raise AssertionError(f"hung: {what}")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _special(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / "config.toml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    elif kind == "huge":
        path.write_text('[app]\ntheme = "textual-light"\n' + "#" * MAX_SETTINGS_BYTES + "\n")
    elif kind == "link-to-fifo":
        os.mkfifo(tmp_path / "fifo")
        path.symlink_to(tmp_path / "fifo")
    return path


KINDS = ["fifo", "dev-zero", "folder", "huge", "link-to-fifo"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_theme_is_never_read_from_a_special_or_huge_file(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, kind)
    with no_hang(f"read_theme({kind})"):
        assert read_theme(path) is None


@pytest.mark.parametrize("kind", KINDS)
def test_settings_refuse_a_special_or_huge_file_in_one_line(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, kind)
    with no_hang(f"load_config({kind})"), pytest.raises(ConfigError) as caught:
        load_config(path)
    assert len(str(caught.value).splitlines()) == 1
    with no_hang(f"save_settings({kind})"), pytest.raises((ConfigWriteError, ConfigError)):
        save_settings(path, [Change("new_per_day", 5)], theme="textual-light")
    assert kind != "fifo" or path.is_fifo()  # left as it is


def test_a_regular_settings_file_still_gives_its_theme(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[app]\ntheme = "textual-light"\n[review]\nnew_per_day = 7\n')
    assert read_theme(path) == "textual-light"
    assert load_config(path).default.new_per_day == 7
    path.write_text("[app]\ntheme = " + "[" * 5000 + "\n")  # a nesting bomb
    assert read_theme(path) is None


@pytest.mark.parametrize("text", ["[[app]]\n", "app = 1\n", "[[review]]\n", "review = [1]\n"])
def test_a_table_written_as_something_else_is_refused_in_one_line(
    tmp_path: Path, text: str
) -> None:
    # Found by tests/test_fuzz_inputs.py: `[[app]]` made the settings screen's save raise
    # TypeError (the edit walked into a list as if it were a table).
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises((ConfigWriteError, ConfigError)) as caught:
        save_settings(path, [Change("new_per_day", 5)], theme="textual-light")
    assert len(str(caught.value).splitlines()) == 1
    assert path.read_text() == text
