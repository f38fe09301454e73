"""Proving a card's answer: a computed answer against its closed form (``answer.expect``)
at one instance, a formula answer against its executable over the variables' whole
domains, and the solved answer as the values its text's figures may name.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from deck import units
from deck.base.errors import DeckError
from deck.cards.facts import Value
from deck.cards.model import Card, CardType, Tolerance
from deck.cards.registry import Registry
from deck.proving.failures import Failure
from deck.proving.proofs.facts import closed_form, show

EXPECT_TOLERANCE = Tolerance(rel=1e-6)  # answer vs its closed form: two derivations agree
FORMULA_POINTS = 24  # sample points for a formula answer against its executable


def answer_span_values(card: Card, solution: Any) -> dict[str, Value]:
    """``answer`` and ``result.FIELD`` as span values, from a solved instance."""
    out: dict[str, Value] = {}
    if solution is None:
        return out
    if card.type is CardType.FORMULA and solution.formula:
        out["answer"] = Value(solution.formula, units.Dim.TEXT, formula=solution.formula)
    elif solution.value is not None:
        out["answer"] = Value(solution.value, solution.dim)
    for key, value in (solution.result or {}).items():
        if isinstance(value, int | float | str) and not isinstance(value, bool):
            out[f"result.{key}"] = Value(value, None)
    return out


def answer_expect_failures(
    card: Card, instance: Any, solution: Any, env: Mapping[str, Any], point: str
) -> list[Failure]:
    """A numeric card's computed answer against its closed form (``answer.expect``) at one
    instance."""
    a = card.answer
    if card.type is not CardType.NUMERIC or a is None or a.expect is None or solution is None:
        return []
    try:
        expected = closed_form(a.expect, {**env, **instance.values})
    except DeckError as exc:
        return [Failure(card.id, a.location, "answer.expect", f"{point}{exc}")]
    tol = a.expect_tolerance or EXPECT_TOLERANCE
    if solution.value is None or tol.accepts(solution.value, expected):
        return []
    return [
        Failure(
            card.id,
            a.location,
            "answer",
            f"{point}the computed answer and its closed form (answer.expect) disagree",
            show(expected, solution.dim),
            show(solution.value, solution.dim),
        )
    ]


def variable_samples(card: Card, seed: int = 0, n: int = FORMULA_POINTS) -> list[dict[str, float]]:
    """Points spread over every variable's domain: its ends, powers of two and random draws."""
    rng = random.Random(f"proof:{card.id}:{seed}")
    points: list[dict[str, float]] = []
    for k in range(n):
        point = {}
        for v in card.variables:
            lo, hi = v.low, v.high
            if k == 0:
                x = lo
            elif k == 1:
                x = hi
            elif lo > 0 and k % 2 == 0:
                x = math.exp(rng.uniform(math.log(lo), math.log(hi)))  # every decade
            else:
                x = rng.uniform(lo, hi)
            point[v.name] = float(round(x)) if v.integer else x
        points.append(point)
    return points


def prove_formula_answer(card: Card, registry: Registry) -> list[Failure]:
    """A formula card's answer must equal its executable over the variables' domains."""
    from deck.cards.facts import resolve_value
    from deck.formula import FormulaError, parse

    a = card.answer
    if card.type is not CardType.FORMULA or a is None or a.computation is None:
        return []
    comp = a.computation
    expr = parse(a.formula or "")
    tol = a.tolerance if a.tolerance.rel > 1e-6 else EXPECT_TOLERANCE
    for point in variable_samples(card):
        shown = {k: units.format_number(v) for k, v in point.items()}
        env = {k: (int(v) if float(v).is_integer() else v) for k, v in point.items()}
        try:
            args = {k: resolve_value(v, env, shown) for k, v in comp.args}
            actual = float(registry.call(comp.run, args)[comp.field])
            expected = expr.evaluate(point)
        except (DeckError, FormulaError, TypeError, ValueError) as exc:
            return [Failure(card.id, a.location, "answer", f"at {shown}: {exc}")]
        if not tol.accepts(actual, expected):
            return [
                Failure(
                    card.id,
                    a.location,
                    "answer",
                    f"at {', '.join(f'{k}={v}' for k, v in shown.items())}: the formula and "
                    f"{comp.run}.{comp.field} disagree",
                    units.format_number(expected, 8),
                    units.format_number(actual, 8),
                )
            ]
    return []
