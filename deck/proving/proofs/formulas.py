"""Written formulas against proven ones: a checked figure ``{~FIGURE=FACT}`` that names a
swept fact shows a formula, and it holds when it equals the fact's proven formula over
the domains of the fact's swept variables.

:func:`formula_scope` and :func:`sweep_domains` give where a swept fact's formula holds;
:func:`formula_verdict` decides a written formula against it (once per formula and scope:
the verdict does not depend on the drawn instance).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deck import units
from deck.cards.model import Claim
from deck.cards.registry import Registry


@dataclass(frozen=True)
class FormulaScope:
    """Where a swept fact's formula holds: the domain of each swept variable, and the names
    it may use that stand for expressions — a derived sweep variable (``sbh`` for ``s*b*h``)
    or a declared constant (``fp16_bytes`` for ``2``)."""

    domains: tuple[Any, ...]
    names: Mapping[str, Any]


def formula_scope(claim: Claim, registry: Registry | None) -> FormulaScope:
    """The :class:`FormulaScope` of a swept fact."""
    from deck.formula import FormulaError, Num, parse

    names: dict[str, Any] = {}
    for spec in claim.where:
        if spec.formula is not None:
            try:
                names[spec.name] = parse(spec.formula)
            except FormulaError:
                continue
    if registry is not None:
        try:
            used = parse(claim.expect).variables
        except FormulaError:
            used = frozenset()
        for name in used:
            constant = registry.constant(name)
            if constant is not None and name not in names:
                names[name] = Num(float(constant.value))
    return FormulaScope(tuple(sweep_domains(claim)), names)


def sweep_domains(claim: Claim) -> list[Any]:
    """The domain of each variable of a swept fact: its range (or choices), base units."""
    from deck.cards.instances import param_values
    from deck.formula.equivalence import Domain

    out = []
    for spec in claim.where:
        if spec.formula is not None:
            continue
        values = param_values(spec)
        if values is None:
            assert spec.range is not None
            factor = units.lookup_unit(spec.unit).factor if units.is_unit(spec.unit) else 1
            lo, hi = spec.range[0] * factor, spec.range[1] * factor
        else:
            numbers = [v for v in values if isinstance(v, int | float)]
            if not numbers:
                continue
            lo, hi = min(numbers), max(numbers)
        if lo == hi:
            hi = lo + 1  # a single value: any neighbourhood keeps the formula's shape
        out.append(Domain(spec.name, float(lo), float(hi), spec.integer))
    return out


def _in_scope(expr: Any, names: Mapping[str, Any]) -> Any:
    """``expr`` with the scope's named expressions put in (derived names may nest)."""
    from deck.formula.equivalence import substitute

    for _ in range(8):
        used = {n: names[n] for n in expr.variables if n in names}
        if not used:
            break
        expr = substitute(expr, used)
    return expr


def formula_verdict(literal: str, formula: str, scope: Any) -> tuple[bool, str, bool]:
    """(holds, why, could be compared) for a written formula against a proven one, over a
    :class:`FormulaScope` (or bare domains); remembered when the scope can be hashed."""
    domains, names = (
        (scope.domains, scope.names) if isinstance(scope, FormulaScope) else (scope, {})
    )
    try:
        key = (tuple(domains), tuple(sorted(names.items())))
        hash(key)
    except TypeError:  # nothing hashable to remember the verdict by
        return _formula_verdict(literal, formula, tuple(domains), names)
    return _remembered_verdict(literal, formula, *key)


@functools.lru_cache(maxsize=8192)
def _remembered_verdict(
    literal: str, formula: str, domains: tuple[Any, ...], names: tuple[tuple[str, Any], ...]
) -> tuple[bool, str, bool]:
    """A written formula against a proven one does not depend on the instance: decided once
    (check asks at every instance of every card that shows it)."""
    return _formula_verdict(literal, formula, domains, dict(names))


def _formula_verdict(
    literal: str, formula: str, domains: tuple[Any, ...], names: Mapping[str, Any]
) -> tuple[bool, str, bool]:
    """(holds, why, could be compared) for a written formula against a proven one."""
    from deck.formula import FormulaError, parse
    from deck.formula.equivalence import equivalent

    try:
        given = _in_scope(parse(literal), names)
        expected = _in_scope(parse(formula), names)
    except FormulaError as exc:
        return False, f"cannot read the formula {literal!r}: {exc}", False
    given = _juxtaposed_products(given, expected.variables)
    # A written formula may also use the other swept variables (5a·s/h · sbh against 5·a·s²·b
    # swept over s, b, h, a): equivalence is judged over all of their domains.
    swept = {d.name for d in domains}
    extra = sorted(given.variables - expected.variables - swept)
    if extra:
        return False, f"{literal!r} uses {', '.join(extra)}, which {formula!r} does not", True
    try:
        verdict = equivalent(expected, given, list(domains))
    except FormulaError as exc:
        return False, f"cannot compare {literal!r}: {exc}", False
    why = "" if verdict.equal else f" ({verdict.reason})"
    return verdict.equal, f"{literal!r} vs the proven {formula!r}{why}", True


def _juxtaposed_products(expr: Any, names: frozenset[str]) -> Any:
    """Written formulas juxtapose one-letter variables (``2(b−1)/(ab)``): a name the proven
    formula lacks but that spells several of its variables in a row is their product."""
    from deck.formula import parse
    from deck.formula.equivalence import substitute

    mapping = {}
    for name in expr.variables - names:
        parts = _spell(name, names)
        if parts:
            mapping[name] = parse("*".join(parts))
    return substitute(expr, mapping) if mapping else expr


def _spell(name: str, names: frozenset[str]) -> list[str] | None:
    """``name`` as a run of two or more of ``names`` (shortest split first), or None."""
    best: list[list[str] | None] = [None] * (len(name) + 1)
    best[0] = []
    for i in range(len(name)):
        if best[i] is None:
            continue
        for candidate in names:
            j = i + len(candidate)
            if name.startswith(candidate, i) and best[j] is None:
                best[j] = [*best[i], candidate]  # type: ignore[misc]
    found = best[len(name)]
    return found if found is not None and len(found) >= 2 else None
