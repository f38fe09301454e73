"""Reading a card's ``mistakes:`` list, with a ``PATH:LINE:COL`` problem for each fault.

:func:`read_mistakes` is called by the loader's card validator (passed in as ``v``: it reports
problems and reads typed values) and returns the :class:`~deck.cards.model.MistakeSpec` entries that
are valid. Each entry has a ``message`` and exactly one of ``factor`` (numeric and formula
cards), ``formula`` (an expression in the card's parameters or variables, ``answer`` being the
correct answer) or ``option`` (a wrong option of a choice card, 0-based); ``id``, ``kind``
(``units`` or ``concept``) and ``tag`` are optional.
"""

from __future__ import annotations

import math
import re
from typing import Any

from deck.cards.model import CardType, MistakeKind, MistakeSpec
from deck.cards.yamlsource import LList, LMap

MISTAKE_KEYS = ("id", "message", "factor", "formula", "option", "kind", "tag")
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_WHAT = ("factor", "formula", "option")


def read_mistakes(
    v: Any, m: LMap, ctype: CardType | None, names: set[str], options: int, correct: tuple[int, ...]
) -> tuple[MistakeSpec, ...]:
    """The card's valid ``mistakes:``; every fault is reported through ``v.report``."""
    if "mistakes" not in m or ctype is None:
        return ()
    raw = m["mistakes"]
    if ctype is CardType.BASIC:
        v.report(m.where("mistakes"), "mistakes", "basic cards are self-graded: nothing to match")
        return ()
    if not isinstance(raw, LList):
        v.report(m.where("mistakes"), "mistakes", "expected a list of mistakes")
        return ()
    out: list[MistakeSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        field = f"mistakes[{i}]"
        if not isinstance(item, LMap):
            v.report(
                raw.where(i), field, "expected a mapping with message and factor/formula/option"
            )
            continue
        spec = _one(v, item, field, i, ctype, names, options, correct)
        if spec is None:
            continue
        if spec.id in seen:
            v.report(item.where("id") if "id" in item else item.pos, f"{field}.id", "duplicate id")
            continue
        seen.add(spec.id)
        out.append(spec)
    return tuple(out)


def _one(
    v: Any,
    item: LMap,
    field: str,
    index: int,
    ctype: CardType,
    names: set[str],
    options: int,
    correct: tuple[int, ...],
) -> MistakeSpec | None:
    before = len(v.problems)
    v.unknown_keys(item, MISTAKE_KEYS, f"{field}.")
    message = v.text(item, "message", f"{field}.message", required=True)
    if message is not None and not message.strip():
        v.report(item.where("message"), f"{field}.message", "is empty")
    mistake_id = v.text(item, "id", f"{field}.id") or f"mistake-{index + 1}"
    if not _ID.match(mistake_id):
        v.report(item.where("id"), f"{field}.id", "must be lowercase letters, digits and '-'")
    tag = v.text(item, "tag", f"{field}.tag") or ""
    kind = _kind(v, item, field)
    given = [k for k in _WHAT if k in item]
    if len(given) != 1:
        found = ", ".join(given) or "none"
        v.report(item.pos, field, f"needs exactly one of factor, formula or option (found {found})")
        return None
    what = given[0]
    factor = formula = option = None
    if what == "option":
        option = _option(v, item, field, ctype, options, correct)
    elif ctype is CardType.CHOICE:
        v.report(item.where(what), f"{field}.{what}", "choice cards name a wrong option: option: N")
    elif what == "factor":
        factor = _factor(v, item, field)
    else:
        formula = _formula(v, item, field, names)
    if len(v.problems) > before or message is None:
        return None
    return MistakeSpec(
        mistake_id, message.strip(), factor, formula, option, kind, tag, v.loc(item.pos)
    )


def _kind(v: Any, item: LMap, field: str) -> MistakeKind:
    raw = v.text(item, "kind", f"{field}.kind")
    if raw is None:
        return MistakeKind.CONCEPT
    try:
        return MistakeKind(raw)
    except ValueError:
        v.report(item.where("kind"), f"{field}.kind", f"expected units or concept, found {raw!r}")
        return MistakeKind.CONCEPT


def _option(
    v: Any, item: LMap, field: str, ctype: CardType, options: int, correct: tuple[int, ...]
) -> int | None:
    value = item["option"]
    where = item.where("option")
    if ctype is not CardType.CHOICE:
        v.report(where, f"{field}.option", "only choice cards have options (use factor or formula)")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < options:
        v.report(where, f"{field}.option", f"expected an option index 0..{options - 1}")
        return None
    if value in correct:
        v.report(where, f"{field}.option", f"option {value} is a correct option, not a mistake")
        return None
    return value


def _factor(v: Any, item: LMap, field: str) -> float | None:
    value = v.number(
        item["factor"], item.where("factor"), f"{field}.factor", item.raw.get("factor")
    )
    if value is None:
        return None
    if not (math.isfinite(value) and 0 < value < 1e12) or value == 1:
        v.report(item.where("factor"), f"{field}.factor", "expected a positive number other than 1")
        return None
    return float(value)


def _formula(v: Any, item: LMap, field: str, names: set[str]) -> str | None:
    text = v.text(item, "formula", f"{field}.formula")
    if text is None:
        return None
    if v.formula_vars(text, item.where("formula"), f"{field}.formula", names | {"answer"}) is None:
        return None
    return text
