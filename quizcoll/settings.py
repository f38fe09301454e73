"""The settings the app edits, in ``config.toml``: review defaults and the theme.

The settings screen and ``ctrl+t`` save through :func:`save_settings`, one key at a time
(:mod:`quizcoll.config_file`: every other line and comment of the file is kept, and the
file is replaced atomically). Values are validated by the same parser that reads them
(:func:`deck.review.scheduler.parse_config`), so the screen refuses exactly what the file would.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from deck.base.errors import DeckError
from deck.review.scheduler import Config, ConfigError, Settings, load_config, parse_config
from quizcoll.config_file import MAX_SETTINGS_BYTES, ConfigWriteError, set_key, write_config

THEMES = ("textual-dark", "textual-light")
DEFAULT_THEME = "textual-dark"
# The [review] keys the settings screen edits, in the order it shows them.
EDITABLE = (
    "desired_retention",
    "new_per_day",
    "reviews_per_day",
    "learning_steps",
    "relearning_steps",
)


class SettingsError(DeckError):
    """A value the settings screen cannot save (one line saying why)."""


def format_steps(steps: Sequence[timedelta]) -> str:
    """Learning steps as typed: ``1m 10m``."""
    out = []
    for step in steps:
        seconds = step.total_seconds()
        for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
            if seconds >= size and seconds % size == 0:
                out.append(f"{int(seconds // size)}{unit}")
                break
        else:
            out.append(f"{seconds:g}s")
    return " ".join(out)


def as_text(settings: Settings) -> dict[str, str]:
    """The editable values of ``settings`` as the screen's fields show them."""
    return {
        "desired_retention": f"{settings.desired_retention:g}",
        "new_per_day": str(settings.new_per_day),
        "reviews_per_day": str(settings.reviews_per_day),
        "learning_steps": format_steps(settings.learning_steps),
        "relearning_steps": format_steps(settings.relearning_steps),
    }


def _value(key: str, text: str) -> Any:
    """The TOML value of a field as typed; a field that is not even a number is refused."""
    text = text.strip()
    if key in ("learning_steps", "relearning_steps"):
        return text.replace(",", " ").split()
    try:
        return float(text) if key == "desired_retention" else int(text)
    except ValueError:
        what = "a number" if key == "desired_retention" else "a whole number"
        raise SettingsError(f"{key}: expected {what}, got {text!r}") from None


def _line(key: str, value: Any) -> str:
    return f"{key} = {json.dumps(value, ensure_ascii=False)}"  # JSON's forms are TOML's here


@dataclass(frozen=True)
class Change:
    key: str
    value: Any


def parse_fields(fields: Mapping[str, str]) -> list[Change]:
    """The typed fields as changes, each checked by the config parser itself; every field's
    problem is reported at once (one error, the problems joined by "; ")."""
    changes: list[Change] = []
    problems: list[str] = []
    for key, text in fields.items():
        if key not in EDITABLE:
            continue
        try:
            change = Change(key, _value(key, text))
            parse_config("[review]\n" + _line(change.key, change.value))
        except SettingsError as exc:
            problems.append(str(exc))
            continue
        except ConfigError as exc:
            problems.append(str(exc).removeprefix("config.toml: [review]: "))
            continue
        changes.append(change)
    if problems:
        raise SettingsError("; ".join(problems))
    return changes


def parse_config_changes(changes: Sequence[Change]) -> dict[str, Any]:
    """``changes`` as :class:`~deck.review.scheduler.Settings` field values (for settings applied
    without a file)."""
    text = "[review]\n" + "\n".join(_line(c.key, c.value) for c in changes)
    default = parse_config(text).default
    return {c.key: getattr(default, c.key) for c in changes}


def read_theme(path: Path) -> str | None:
    """The saved theme (``[app] theme``), None when unset, unreadable or not one we know."""
    from deck.base.safeio import PathError, read_text

    try:  # a regular file only, size-capped, opened non-blocking: a FIFO never hangs the app
        data = tomllib.loads(read_text(path, limit=MAX_SETTINGS_BYTES, what="settings file"))
    except (PathError, tomllib.TOMLDecodeError, RecursionError):
        return None
    app = data.get("app")
    theme = app.get("theme") if isinstance(app, dict) else None
    return theme if theme in THEMES else None


def save_settings(
    path: Path, changes: Sequence[Change] = (), *, theme: str | None = None
) -> Config:
    """Write ``changes`` under ``[review]`` (and ``theme`` under ``[app]``) into the file at
    ``path``, atomically, keeping every other line; returns the settings now in force."""
    if theme is not None and theme not in THEMES:
        raise SettingsError(f"theme: one of {', '.join(THEMES)}, got {theme!r}")
    where = str(path)

    def edit(text: str) -> str:
        for change in changes:
            text = set_key(
                text, ("review",), change.key, change.value, _line(change.key, change.value),
                where=where,
            )  # fmt: skip
        if theme is not None:
            text = set_key(text, ("app",), "theme", theme, _line("theme", theme), where=where)
        return text

    def check(tmp: Path) -> None:
        try:
            load_config(tmp)
        except ConfigError as exc:
            raise ConfigWriteError(f"{path}: the updated file would not load ({exc})") from None

    write_config(path, edit, check)
    return load_config(path)
