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

import functools
import itertools
import math
import re
import weakref
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from deck import units
from deck.base.errors import DeckError
from deck.cards.model import Card, Claim, Scaling
from deck.cards.placeholders import fill, name_part
from deck.cards.registry import Registry

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


def evaluate_in(text: str, env: Mapping[str, Any]) -> float:
    """Evaluate formula ``text`` with the numbers ``env`` holds for the names it uses. Only
    those names are looked up, so an env carrying every declared constant costs nothing."""
    from deck.formula import parse

    return parse(text).evaluate(numeric_env({k: env[k] for k in _names(text) if k in env}))


@functools.lru_cache(maxsize=4096)
def _names(text: str) -> frozenset[str]:
    from deck.formula import parse

    return frozenset(parse(text).variables)


def numeric_env(values: Mapping[str, Any]) -> dict[str, float]:
    """The entries of ``values`` a formula can read (numbers only)."""
    out: dict[str, float] = {}
    for k, v in values.items():
        raw = v.value if isinstance(v, Value) else v
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            out[k] = raw
    return out


# ``{name}`` of a text parameter inside a formula (``expect: "p * {dtype}_bytes"``).
CHOICE_REF = re.compile(r"\{([A-Za-z_\u0370-\u03ff][\w\u0370-\u03ff]*)\}")


def expand_choices(text: str, env: Mapping[str, Any]) -> str:
    """``text`` (a formula) with each ``{name}`` of a text parameter replaced by its value as
    a name part, so that ``{gpu}_reported`` reads ``h100_80gb_reported``: a closed form picks
    the declared constant of the drawn choice."""
    if "{" not in text:
        return text

    def sub(m: re.Match[str]) -> str:
        value = env.get(m.group(1))
        raw = value.value if isinstance(value, Value) else value
        if not isinstance(raw, str):
            raise FactError(f"{{{m.group(1)}}} in a formula must name a text parameter")
        return name_part(raw)

    return CHOICE_REF.sub(sub, text)


# Per registry (constants are only ever added, so their number tells a stale entry).
_CONSTANT_VALUES: weakref.WeakKeyDictionary[Registry, tuple[int, dict[str, Value]]] = (
    weakref.WeakKeyDictionary()
)


def constant_values(registry: Registry | None) -> dict[str, Value]:
    """The registry's constants as values (a fresh dict; built once per registry and size:
    every draw asks for them, and there are hundreds)."""
    if registry is None:
        return {}
    constants = registry.constants
    cached = _CONSTANT_VALUES.get(registry)
    if cached is None or cached[0] != len(constants):
        cached = (len(constants), {c.name: Value(c.value, c.dimension) for c in constants.values()})
        _CONSTANT_VALUES[registry] = cached
    return dict(cached[1])


def evaluate_facts(
    card: Card,
    params: Mapping[str, Any],
    registry: Registry | None,
    names: Collection[str] | None = None,
) -> dict[str, Value]:
    """Every fact of ``card`` for the parameter values ``params`` (base units), in order; or
    only the facts ``names`` need (what a constraint reads), with the derived facts' inputs."""
    out: dict[str, Value] = {}
    if registry is None:
        return out
    wanted = None if names is None else _fact_closure(card, names)
    env: dict[str, Any] = {**constant_values(registry), **params}
    for claim in card.verify:
        if not claim.name or (wanted is not None and claim.name not in wanted):
            continue
        try:
            value = fact_value(claim, env, registry)
        except DeckError as exc:
            raise FactError(f"fact {claim.name!r}: {exc}") from None
        out[claim.name] = value
        env[claim.name] = value
    return out


def _fact_closure(card: Card, names: Collection[str]) -> set[str]:
    """``names`` and, through derived facts (``expr``), every fact they are computed from.
    A fact that runs an executable needs only parameters: its arguments name no fact."""
    from deck.formula import parse

    by_name = {c.name: c for c in card.verify if c.name}
    wanted: set[str] = set()
    todo = [n for n in names if n in by_name]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        claim = by_name[name]
        if claim.expr is not None and not claim.where:
            todo += [v for v in parse(claim.expr).variables if v in by_name]
    return wanted


def fact_value(claim: Claim, env: Mapping[str, Any], registry: Registry) -> Value:
    """The value of one named claim in ``env`` (parameters, constants, earlier facts)."""
    if claim.where:
        return Value(claim.expect, units.Dim.TEXT, formula=claim.expect)
    if claim.expr is not None:
        return Value(evaluate_in(claim.expr, env), _expect_dim(claim, registry))
    comp = claim.computation
    assert comp is not None
    args = resolve_fact_args(claim, env)
    if claim.vary:
        return Value(measure_scaling(registry, comp.run, args, comp.field, claim.vary).value)
    result = registry.call(comp.run, args)
    field = registry.get(comp.run).field_(comp.field)
    return Value(result[comp.field], field.dimension if field else None)


def resolve_fact_args(claim: Claim, env: Mapping[str, Any]) -> dict[str, Any]:
    assert claim.computation is not None
    plain = _Plain(env)
    return {k: resolve_value(v, plain, _Shown(plain)) for k, v in claim.computation.args}


class _Plain(Mapping[str, Any]):
    """``env`` with each value's raw number or text, converted when looked up (an env holds
    every constant; an argument names one or two)."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        self.env = env

    def __getitem__(self, key: str) -> Any:
        v = self.env[key]
        return v.value if isinstance(v, Value) else v

    def __iter__(self) -> Iterator[str]:
        return iter(self.env)

    def __len__(self) -> int:
        return len(self.env)


class _Shown(_Plain):
    def __getitem__(self, key: str) -> Any:
        return str(self.env[key])


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


_WHOLE_PLACEHOLDER = re.compile(r"\{([^{}.]+)\}")


def resolve_value(value: Any, values: Mapping[str, Any], shown: Mapping[str, str]) -> Any:
    """An executable argument as written in a card (a literal, ``{name}``, ``=EXPR`` or text with
    placeholders) resolved against an instance's ``values``."""
    if not isinstance(value, str):
        return value
    s = value.strip()
    m = _WHOLE_PLACEHOLDER.fullmatch(s)
    if m and m.group(1) in values:
        return values[m.group(1)]
    if s.startswith("="):
        result = evaluate_in(s[1:], values)  # looks up only the names the expression uses
        return int(result) if float(result).is_integer() else result
    return fill(value, {k: str(v) for k, v in values.items()}) if "{" in value else value
