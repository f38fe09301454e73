"""Mapping what a user typed onto a card's variables: :func:`resolve_names` (``n`` → ``N``),
with a "did you mean" hint for a name that matches none (a typo, a missing ``*`` in ``NS``,
a function written without parentheses). Callers import it from :mod:`deck.formula`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from deck.formula.base import _FUNCTIONS, FormulaError
from deck.formula.tree import Expr, Var


def _split_into(name: str, allowed: Mapping[str, str]) -> list[str] | None:
    """``name`` as a concatenation of two or more allowed names (any case), or None."""
    folded = name.casefold()
    n = len(folded)
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for i in range(n):
        parts = best[i]
        if parts is None:
            continue
        for key, original in allowed.items():
            if key and folded.startswith(key, i) and best[i + len(key)] is None:
                best[i + len(key)] = [*parts, original]
    found = best[n]
    return found if found is not None and len(found) >= 2 else None


def _hint(name: str, allowed: list[str]) -> str:
    by_fold: dict[str, str] = {}
    for candidate in allowed:
        by_fold.setdefault(candidate.casefold(), candidate)
    folded = name.casefold()
    for function in sorted(_FUNCTIONS, key=len, reverse=True):
        rest = folded.removeprefix(function)
        if rest != folded and rest in by_fold:
            return f" (did you mean '{function}({by_fold[rest]})'?)"
    parts = _split_into(name, by_fold)
    if parts:
        return f" (a product needs '*' or a space: {'*'.join(parts)!r})"
    close = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=0.6)
    return f" (did you mean {by_fold[close[0]]!r}?)" if close else ""


def _first_seen(expr: Expr) -> list[str]:
    names: dict[str, None] = {}
    for node in expr._walk():
        if isinstance(node, Var):
            names.setdefault(node.name)
    return list(names)


def resolve_names(expr: Expr, allowed: Iterable[str]) -> Expr:
    """Map variable names onto ``allowed``: exact names first, then case-insensitive matches.

    ``n`` becomes ``N`` when ``N`` is the only allowed name equal to it ignoring case. A name
    that matches nothing, or several names equally, raises FormulaError naming the allowed
    variables (with a "did you mean" when one is close).
    """
    names = list(dict.fromkeys(allowed))
    exact = set(names)
    listing = ", ".join(names)
    mapping: dict[str, str] = {}
    for name in _first_seen(expr):
        if name in exact:
            continue
        matches = [c for c in names if c.casefold() == name.casefold()]
        if len(matches) == 1:
            mapping[name] = matches[0]
            continue
        if len(matches) > 1:
            options = " or ".join(repr(m) for m in matches)
            raise FormulaError(f"variable {name!r} is ambiguous: write {options}")
        if not names:
            raise FormulaError(f"unknown variable {name!r}: this formula takes no variables")
        raise FormulaError(f"unknown variable {name!r}; use {listing}{_hint(name, names)}")
    return expr._rename(mapping) if mapping else expr
