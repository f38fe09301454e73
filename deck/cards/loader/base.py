"""Shared by the card-file validators: the keys a card file may hold, problem
reporting, typed access to parsed values, and the one-line messages for wrong types."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from deck import units
from deck.base.errors import Problem
from deck.cards.model import (
    CardType,
    Location,
)
from deck.cards.registry import Registry, suggest
from deck.cards.yamlsource import LList, LMap, Pos

ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
NAME_PATTERN = re.compile(r"^[A-Za-z_\u0370-\u03ff][A-Za-z0-9_\u0370-\u03ff]*$")

FILE_KEYS = ("deck", "tags", "source", "unproven", "cards")
UNPROVEN_POLICIES = ("error", "warn")
COMMON_KEYS = (
    "id",
    "type",
    "front",
    "back",
    "deck",
    "tags",
    "source",
    "hint",
    "params",
    "constraints",
    "verify",
    "mistakes",
    "key_points",
    "bonus_points",
)
TYPE_KEYS: dict[CardType, tuple[str, ...]] = {
    CardType.BASIC: (),
    CardType.CHOICE: ("options", "correct", "shuffle"),
    CardType.NUMERIC: ("answer",),
    CardType.FORMULA: ("answer", "variables"),
}
ALL_CARD_KEYS = tuple(dict.fromkeys(COMMON_KEYS + sum(TYPE_KEYS.values(), ())))
PARAM_KEYS = ("choices", "range", "step", "log", "pow2", "unit", "formula", "integer", "role")
ANSWER_KEYS = (
    "run",
    "args",
    "field",
    "unit",
    "tolerance",
    "value",
    "expr",
    "formula",
    "strict_unit",
    "expect",
)
FORMULA_ANSWER_KEYS = ("formula", "tolerance", "run", "args", "field")
CLAIM_KEYS = (
    "claim",
    "name",
    "run",
    "expr",
    "vary",
    "args",
    "field",
    "expect",
    "where",
    "tolerance",
)
VARIABLE_KEYS = ("range", "integer", "meaning")
CARD_FILE_SUFFIXES = (".yaml", ".yml")


class _Base:
    """Problem reporting and typed access to parsed YAML values, for the validators."""

    path: str
    problems: list[Problem]
    card_id: str | None
    registry: Registry | None
    constant_names: frozenset[str]

    # ------------------------------------------------------------------ reporting

    def report(self, pos: Pos | None, field: str | None, message: str) -> None:
        line, col = (pos.line, pos.col) if pos else (0, 0)
        self.problems.append(Problem(self.path, line, col, message, self.card_id, field))

    def loc(self, pos: Pos) -> Location:
        return Location(self.path, pos.line, pos.col)

    # ------------------------------------------------------------------ typed access

    def unknown_keys(self, m: LMap, allowed: Sequence[str], prefix: str, extra: str = "") -> None:
        for key in m:
            if key not in allowed:
                hint = suggest(str(key), allowed)
                field = f"{prefix}{key}" if prefix else str(key)
                self.report(m.key_pos.get(key), field, f"unknown key{extra}{hint}")

    def text(self, m: LMap, key: str, field: str, *, required: bool = False) -> str | None:
        if key not in m:
            if required:
                self.report(m.pos, field, "missing (required)")
            return None
        value = m[key]
        if isinstance(value, str):
            return value
        self.report(m.where(key), field, _type_message("text", value, m.raw.get(key)))
        return None

    def number(
        self, value: Any, pos: Pos, field: str, raw: tuple[str, str] | None = None
    ) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            if isinstance(value, str):
                try:
                    return units.parse_count(value)
                except units.RangeError as exc:
                    self.report(pos, field, str(exc))
                    return None
                except units.UnitError:
                    pass
            self.report(pos, field, _type_message("a number", value, raw))
            return None
        problem = _number_problem(value, raw)
        if problem:
            self.report(pos, field, problem)
            return None
        return value

    def boolean(self, m: LMap, key: str, field: str, default: bool) -> bool:
        if key not in m:
            return default
        value = m[key]
        if isinstance(value, bool):
            return value
        self.report(m.where(key), field, _type_message("true or false", value, m.raw.get(key)))
        return default

    def str_list(self, m: LMap, key: str, field: str) -> tuple[str, ...]:
        if key not in m:
            return ()
        value = m[key]
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, LList):
            self.report(m.where(key), field, _type_message("a list of text", value, m.raw.get(key)))
            return ()
        out = []
        for i, item in enumerate(value):
            if isinstance(item, str):
                out.append(item)
            else:
                self.report(
                    value.where(i), f"{field}[{i}]", _type_message("text", item, value.raw[i])
                )
        return tuple(out)


_DECIMAL_INT = re.compile(r"^[-+]?(0|[1-9][0-9_]*)$")


def _fact_names(m: LMap) -> set[str]:
    """The names of a card's instance facts (named claims without a sweep), read ahead."""
    raw = m.get("verify")
    if not isinstance(raw, LList):
        return set()
    return {
        c["name"]
        for c in raw
        if isinstance(c, LMap) and isinstance(c.get("name"), str) and "where" not in c
    }


def _number_problem(value: Any, raw: tuple[str, str] | None) -> str | None:
    """Why a YAML number cannot be a card number (bounded, finite, written in decimal)."""
    if raw is not None and raw[0].endswith(":int") and not _DECIMAL_INT.match(raw[1]):
        return (
            f"{raw[1]!r}: write whole numbers in decimal (YAML 1.1 reads this one as {value}); "
            "quote it if it is text"
        )
    try:
        units.check_number(value, "")
    except units.UnitError as exc:
        return str(exc)
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, LMap | dict):
        return "a mapping"
    if isinstance(value, LList | list):
        return "a list"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        short = value if len(value) <= 30 else value[:27] + "..."
        return f"text ({short!r})"
    return type(value).__name__


def _type_message(expected: str, value: Any, raw: tuple[str, str] | None) -> str:
    """'expected text, found a boolean (false)' plus the YAML 1.1 explanation when it applies."""
    message = f"expected {expected}, found {_describe(value)}"
    if raw is not None:
        tag, source = raw
        if tag.endswith(":bool") and source.lower() not in ("true", "false"):
            message += f": YAML reads {source} as a boolean; quote it ('{source}')"
        elif tag.endswith((":int", ":float")) and expected.startswith("text"):
            message += f": YAML reads {source} as a number; quote it ('{source}')"
        elif tag.endswith(":null") and expected.startswith("text"):
            message += "; write the value or quote it"
    elif isinstance(value, LMap) and expected.startswith("text") and len(value) == 1:
        message += ": text starting with '{' is a YAML mapping; quote the whole text"
    return message
