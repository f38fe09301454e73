"""Reading a card's ``key_points:`` and ``bonus_points:``, with a ``PATH:LINE:COL`` problem
for each fault.

Each is, when present, a non-empty list of ``{point: TEXT, terms: [TERM, ...]}``: the point
says what a good answer must say (or what earns extra credit), the terms are the words any
one of which shows it was said. Every point must have at least one term that occurs in the
card's own ``back`` (matched exactly as answers are, :mod:`deck.cards.terms`): the back is the
model answer, so a point it does not make cannot be asked of the learner.
"""

from __future__ import annotations

from typing import Any

from deck.cards.model import KeyPoint
from deck.cards.terms import IndexedText, index_text, term_problem
from deck.cards.yamlsource import LList, LMap

POINT_KEYS = ("point", "terms")
MAX_POINTS = 20
MAX_TERMS = 40


def read_points(v: Any, m: LMap, back: str) -> tuple[tuple[KeyPoint, ...], tuple[KeyPoint, ...]]:
    """The card's valid key points and bonus points; every fault is reported through
    ``v.report``. The back is indexed once, for the terms of both lists."""
    lists = [_read_list(v, m, key) for key in ("key_points", "bonus_points")]
    if not any(lists):
        return (), ()
    indexed = index_text(back, [t for valid in lists for _, terms, _, _ in valid for t in terms])
    key_points, bonus_points = (_in_back(v, valid, indexed) for valid in lists)
    return key_points, bonus_points


_Valid = list[tuple[str, tuple[str, ...], LMap, str]]


def _read_list(v: Any, m: LMap, key: str) -> _Valid:
    """The well-formed points of ``m[key]`` (text, terms, their mapping, field name)."""
    if key not in m:
        return []
    raw = m[key]
    if not isinstance(raw, LList) or not raw:
        found = "an empty list" if isinstance(raw, LList) else "something else"
        v.report(m.where(key), key, f"expected a non-empty list of {{point, terms}}, found {found}")
        return []
    if len(raw) > MAX_POINTS:
        v.report(m.where(key), key, f"{len(raw)} points; at most {MAX_POINTS}")
        return []
    valid: _Valid = []
    for i, item in enumerate(raw):
        field = f"{key}[{i}]"
        if not isinstance(item, LMap):
            v.report(raw.where(i), field, "expected a mapping with 'point' and 'terms'")
            continue
        v.unknown_keys(item, POINT_KEYS, f"{field}.")
        point = v.text(item, "point", f"{field}.point", required=True)
        if point is not None and not point.strip():
            v.report(item.where("point"), f"{field}.point", "is empty")
            point = None
        if "terms" not in item:
            v.report(
                item.pos, f"{field}.terms", "missing (required): the words that show the point"
            )
            continue
        if not isinstance(item["terms"], LList) or not item["terms"]:
            v.report(item.where("terms"), f"{field}.terms", "expected a non-empty list of text")
            continue
        terms = v.str_list(item, "terms", f"{field}.terms")
        if len(terms) != len(item["terms"]):
            continue
        if len(terms) > MAX_TERMS:
            v.report(
                item.where("terms"), f"{field}.terms", f"{len(terms)} terms; at most {MAX_TERMS}"
            )
            continue
        bad = False
        for j, term in enumerate(terms):
            problem = term_problem(term)
            if problem is not None:
                v.report(item["terms"].where(j), f"{field}.terms[{j}]", problem)
                bad = True
        if not bad and point is not None:
            valid.append((point.strip(), tuple(terms), item, field))
    return valid


def _in_back(v: Any, valid: _Valid, indexed: IndexedText) -> tuple[KeyPoint, ...]:
    """The points with a term in the back; a problem for each of the others."""
    out: list[KeyPoint] = []
    for point, terms, item, field in valid:
        if not indexed.found(terms):
            shown = ", ".join(terms[:4]) + (", ..." if len(terms) > 4 else "")
            v.report(
                item.where("terms"),
                f"{field}.terms",
                f"none of the terms ({shown}) occurs in the card's back: the back is the model "
                "answer and must make this point",
            )
            continue
        out.append(KeyPoint(point, terms, v.loc(item.pos)))
    return tuple(out)
