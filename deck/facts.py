"""Evaluating a card's facts — its named claims — for one instance.

A fact is a named ``verify`` entry. Without a sweep it has one value per instance: the
result field of its executable run with the instance's parameters (``run``), an
expression over parameters, constants and earlier facts (``expr``), or how the field grows
with one argument (``vary``: ``linear``, ``quadratic`` …). With a sweep its value is its
``expect`` formula, proven over the sweep. Card text shows facts through spans, so the
figures a learner reads are the ones these runs produce.

Facts whose value cannot be computed raise :class:`FactError` (a card or executable fault).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deck import units
from deck.errors import DeckError
from deck.model import Card, Claim, Scaling
from deck.registry import Registry

SCALING_FACTOR = 2.0  # each step of a scaling sweep doubles the varied argument
SCALING_STEPS = 4


class FactError(DeckError):
    """A fact whose value could not be computed."""


@dataclass(frozen=True)
class Value:
    """A fact's, parameter's or constant's value: a number in base units of ``dim``, a text,
    or (for a swept fact) the formula that was proven."""

    value: Any
    dim: units.Dim | None = None
    formula: str | None = None  # a swept fact: its proven closed form


_NAME = re.compile(r"[A-Za-z_\u0370-\u03ff][\w\u0370-\u03ff]*")


def names_in(*texts: str) -> set[str]:
    """Every name-like word of ``texts``: a superset of the names a formula or an argument
    reads, so environments can be cut down to them (collections declare hundreds of
    constants; copying them all for every fact is what made check slow)."""
    return {m.group() for text in texts for m in _NAME.finditer(text)}


def numeric_env(values: Mapping[str, Any], names: set[str] | None = None) -> dict[str, float]:
    """The entries of ``values`` a formula can read (numbers only), only ``names`` if given."""
    out: dict[str, float] = {}
    items = values.items() if names is None else ((k, values[k]) for k in names if k in values)
    for k, v in items:
        raw = v.value if isinstance(v, Value) else v
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            out[k] = raw
    return out


_CONSTANTS: dict[int, tuple[Registry, int, dict[str, Value]]] = {}


def constant_values(registry: Registry | None) -> dict[str, Value]:
    """The registry's constants as values (a fresh dict; built once per registry)."""
    if registry is None:
        return {}
    cached = _CONSTANTS.get(id(registry))
    if cached is None or cached[0] is not registry or cached[1] != len(registry.constants):
        built = {c.name: Value(c.value, c.dimension) for c in registry.constants.values()}
        cached = (registry, len(registry.constants), built)
        _CONSTANTS[id(registry)] = cached
    return dict(cached[2])


def evaluate_facts(
    card: Card, params: Mapping[str, Any], registry: Registry | None
) -> dict[str, Value]:
    """Every fact of ``card`` for the parameter values ``params`` (base units), in order."""
    out: dict[str, Value] = {}
    if registry is None:
        return out
    env: dict[str, Any] = {**constant_values(registry), **params}
    for claim in card.verify:
        if not claim.name:
            continue
        try:
            value = fact_value(claim, env, registry)
        except DeckError as exc:
            raise FactError(f"fact {claim.name!r}: {exc}") from None
        out[claim.name] = value
        env[claim.name] = value
    return out


def fact_value(claim: Claim, env: Mapping[str, Any], registry: Registry) -> Value:
    """The value of one named claim in ``env`` (parameters, constants, earlier facts)."""
    if claim.where:
        return Value(claim.expect, units.Dim.TEXT, formula=claim.expect)
    if claim.expr is not None:
        from deck.formula import evaluate

        names = names_in(claim.expr)
        return Value(evaluate(claim.expr, numeric_env(env, names)), _expect_dim(claim, registry))
    comp = claim.computation
    assert comp is not None
    args = resolve_fact_args(claim, env)
    if claim.vary:
        return Value(measure_scaling(registry, comp.run, args, comp.field, claim.vary).value)
    result = registry.call(comp.run, args)
    field = registry.get(comp.run).field_(comp.field)
    return Value(result[comp.field], field.dimension if field else None)


def resolve_fact_args(claim: Claim, env: Mapping[str, Any]) -> dict[str, Any]:
    from deck.checking import resolve_value

    assert claim.computation is not None
    used = names_in(*(v for _, v in claim.computation.args if isinstance(v, str)))
    plain = {
        k: (v.value if isinstance(v, Value) else v) for k in used if (v := env.get(k)) is not None
    }
    shown = {k: str(v) for k, v in plain.items()}
    return {k: resolve_value(v, plain, shown) for k, v in claim.computation.args}


def _expect_dim(claim: Claim, registry: Registry) -> units.Dim | None:
    try:
        return units.parse_quantity(claim.expect).dim
    except units.UnitError:
        return None


def measure_scaling(
    registry: Registry, run: str, args: Mapping[str, Any], field: str, vary: str
) -> Scaling:
    """How ``field`` grows as ``vary`` doubles, from ``SCALING_STEPS`` runs: the fitted
    exponent of a power law (0, 1, 2, 3), or logarithmic when the growth per doubling is
    constant instead of the ratio."""
    ex = registry.get(run)
    base = ex.bind(args)[vary]
    if not isinstance(base, int | float) or base <= 0:
        raise FactError(f"vary: {vary} must be a positive number to scale, got {base!r}")
    ys: list[float] = []
    for k in range(SCALING_STEPS + 1):
        x = base * SCALING_FACTOR**k
        point = dict(args)
        point[vary] = int(x) if isinstance(base, int) else x
        y = registry.call(run, point)[field]
        if isinstance(y, bool) or not isinstance(y, int | float) or y <= 0:
            raise FactError(f"vary: {field} must stay a positive number, got {y!r}")
        ys.append(float(y))
    steps = [b - a for a, b in itertools.pairwise(ys)]
    if min(steps) > 0 and max(steps) - min(steps) <= 1e-6 * max(steps):
        return Scaling.LOGARITHMIC
    # The growth of the last doubling: what "grows linearly" means for large arguments.
    slope = math.log(ys[-1] / ys[-2], SCALING_FACTOR)
    for kind, exponent in (
        (Scaling.CONSTANT, 0),
        (Scaling.LINEAR, 1),
        (Scaling.QUADRATIC, 2),
        (Scaling.CUBIC, 3),
    ):
        if abs(slope - exponent) < 0.15:
            return kind
    raise FactError(
        f"{field} grows by an exponent of about {slope:.2f} in {vary}: "
        "not constant, logarithmic, linear, quadratic or cubic"
    )
