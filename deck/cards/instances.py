"""Drawing card instances: fresh parameter values from a seed, rendered for humans.

The same card and seed always give the same instance (stdlib ``random.Random``, whose
algorithms for ``randrange``/``random`` are stable across Python versions). Values
with a physical unit are held in base units (bytes, seconds, bytes/s); ``shown``
holds how each value reads in the card (``1,024 MiB``, ``8 GPUs``).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deck import units
from deck.base.errors import DeckError
from deck.cards.constraints import (
    MAX_DRAW_TRIES,
    MAX_ENUMERATION,
    MIN_INSTANCES,
    ConstraintError,
    count_instances,
    satisfied,
)
from deck.cards.facts import Value, constant_values, evaluate_facts
from deck.cards.model import Card, CardType, ParamSpec
from deck.cards.placeholders import fill
from deck.cards.registry import Registry
from deck.cards.spans import SpanError, SpanKind, find_spans, format_value

MAX_SWEEP_POINTS = 2000  # a claim's `where:` sweep runs at most this many combinations


@dataclass(frozen=True)
class Instance:
    """One drawn instance of a card: the seed, the values and how they read."""

    card_id: str
    seed: int
    values: Mapping[str, Any] = field(default_factory=dict)
    shown: Mapping[str, str] = field(default_factory=dict)
    option_order: tuple[int, ...] = ()
    # Parameters, facts and constants with their dimensions, for {=name|FORMAT} spans.
    facts: Mapping[str, Value] = field(default_factory=dict, compare=False, repr=False)
    # The roles whose value the learner's setup gave (role -> value in base units): with
    # the seed, what redraws this instance exactly (``draw(..., given=...)``).
    given: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Given:
    """A value a learner's own setup gives for a parameter role (``link_latency``), in the
    base unit of ``dim``, and how the card says where it came from (``your cluster x``)."""

    value: float
    dim: units.Dim
    note: str = ""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.value) and self.value > 0):
            raise DeckError(f"a given value must be a positive finite number, got {self.value!r}")


def _factor(unit: str) -> float:
    return units.lookup_unit(unit).factor if unit and units.is_unit(unit) else 1.0


def show_value(raw: Any, unit: str) -> str:
    """A parameter value as written in the unit of its spec (``raw`` is in that unit)."""
    if isinstance(raw, str):
        return raw
    if unit and units.is_unit(unit):
        return f"{units.format_number(raw)} {units.lookup_unit(unit).symbol}"
    return units.format_count(raw, unit)


def _round_sig(x: float, digits: int = 3) -> float:
    if x == 0:
        return 0.0
    return round(x, -math.floor(math.log10(abs(x))) + digits - 1)


class SweepTooLarge(DeckError):
    """A sweep over more combinations than :data:`MAX_SWEEP_POINTS`."""


def _pow2_exponents(lo: float, hi: float) -> range:
    """The k ≥ 0 with lo ≤ 2^k ≤ hi, found without listing the powers."""
    k_lo = 0 if lo <= 1 else max(0, math.ceil(math.log2(lo)) - 1)
    while 2**k_lo < lo:  # log2 of a float can be off by one near a power of two
        k_lo += 1
    if hi < 1:
        return range(k_lo, k_lo)
    k_hi = math.floor(math.log2(hi)) + 1
    while 2**k_hi > hi:
        k_hi -= 1
    return range(k_lo, k_hi + 1)


def grid_size(spec: ParamSpec) -> int | None:
    """How many values a ``range`` spec's grid (pow2 or step) holds; None if it has no grid
    (a continuous or plain whole-number range). Counted, never listed: a grid of 10^12
    values costs nothing until a value is drawn."""
    assert spec.range is not None
    lo, hi = spec.range
    if spec.pow2:
        return len(_pow2_exponents(lo, hi))
    if spec.step is not None:
        return math.floor((hi - lo) / spec.step + 1e-9) + 1
    return None


def _grid_value(spec: ParamSpec, i: int) -> float:
    """The ``i``-th value of the spec's grid (see :func:`grid_size`)."""
    assert spec.range is not None
    lo, _ = spec.range
    if spec.pow2:
        return 2 ** _pow2_exponents(*spec.range)[i]
    assert spec.step is not None
    v = lo + i * spec.step
    return int(v) if spec.integer else round(v, 12)


def _axis_size(spec: ParamSpec) -> int:
    """Values a sweep takes from ``spec``: its choices, its grid or its whole numbers."""
    if spec.choices is not None:
        return len(spec.choices)
    if spec.formula is not None:
        return 0
    size = grid_size(spec)
    if size is None:
        assert spec.range is not None
        size = max(0, int(spec.range[1]) - int(spec.range[0]) + 1)
    return size


def sweep_size(specs: Sequence[ParamSpec]) -> int:
    """Combinations :func:`sweep` yields (formulas are derived, not swept)."""
    total = 1
    for spec in specs:
        n = _axis_size(spec)
        if spec.formula is None:
            total *= n
            if total > MAX_SWEEP_POINTS:
                return total  # already too many; the exact product can be astronomically big
    return total


def draw_value(spec: ParamSpec, rng: random.Random, env: Mapping[str, Any]) -> tuple[Any, str]:
    """Draw one parameter: (value in base units, text as shown)."""
    if spec.choices is not None:
        raw = spec.choices[rng.randrange(len(spec.choices))]
    elif spec.formula is not None:
        from deck.formula import evaluate

        value = evaluate(spec.formula, {k: v for k, v in env.items() if isinstance(v, int | float)})
        value = units.check_number(value, f"params.{spec.name} (formula {spec.formula!r})")
        if float(value).is_integer():
            value = int(value)
        return value, show_value(value / _factor(spec.unit), spec.unit)
    else:
        assert spec.range is not None
        size = grid_size(spec)
        lo, hi = spec.range
        if size is not None:
            if size < 1:
                raise DeckError(f"params.{spec.name}: the range holds no value to draw")
            raw = _grid_value(spec, rng.randrange(size))  # drawn without listing the grid
        elif spec.log:
            raw = math.exp(rng.uniform(math.log(lo), math.log(hi)))
            raw = round(raw) if spec.integer else _round_sig(raw)
        elif spec.integer:
            if math.ceil(lo) > math.floor(hi):
                raise DeckError(f"params.{spec.name}: no whole number in [{lo:g}, {hi:g}]")
            raw = rng.randint(math.ceil(lo), math.floor(hi))
        else:
            raw = _round_sig(rng.uniform(lo, hi))
    if isinstance(raw, str):
        return raw, spec.label(raw)
    factor = _factor(spec.unit)
    value = raw * factor
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value, show_value(raw, spec.unit)


def stored_given(
    card: Card, values: Sequence[tuple[str, float]], note: str = "as reviewed"
) -> dict[str, Given]:
    """The :class:`Given` values an instance was drawn with (``Instance.given``, as a review
    stores them), to draw it again: each role in the dimension of the card's parameter."""
    dims = {s.role: units.unit_dim(s.unit) for s in card.params if s.role is not None}
    return {
        role: Given(value, dim, note)
        for role, value in values
        if (dim := dims.get(role)) is not None
    }


def _given_value(card: Card, spec: ParamSpec, given: Given) -> tuple[Any, str]:
    if units.unit_dim(spec.unit) is not given.dim:
        # a card written against the role's meaning: said, never shown in the wrong unit
        raise DeckError(
            f"card {card.id!r}: params.{spec.name} ({spec.unit}) has role {spec.role!r}, "
            f"whose values are {given.dim.value}"
        )
    value: Any = given.value
    if float(value).is_integer():
        value = int(value)
    text = show_value(_round_sig(given.value / _factor(spec.unit)), spec.unit)
    return value, f"{text} ({given.note})" if given.note else text


def draw(
    card: Card,
    seed: int,
    registry: Registry | None = None,
    *,
    all_facts: bool = False,
    given: Mapping[str, Given] | None = None,
) -> Instance:
    """Draw the instance of ``card`` for ``seed``; with a ``registry``, also compute the
    card's facts so that its text can show them (a fault raises ``FactError``): the facts
    a learner's view can read (:func:`shown_fact_names`), or with ``all_facts`` every one
    (the proofs hold each fact at each instance; a learner's view need not run the second
    methods the card is proven by).

    A card with ``constraints`` keeps drawing (deterministically) until an instance
    satisfies them all; after ``MAX_DRAW_TRIES`` it raises ConstraintError. Such a card
    needs the ``registry`` (its constraints read facts): without one, a caller would see
    another instance than every other caller for the same seed, so that is refused.

    ``given`` maps parameter roles to the learner's own values (:class:`Given`): a
    parameter with such a ``role`` takes that value instead of a drawn one; the others are
    drawn as without it, and the instance lists the roles it used. A card whose
    constraints no draw with the given values meets is drawn without them.

    This is the one function every surface draws with (``grade``, ``show``, review,
    practice, the TUI, the interview, export, the proofs)."""
    if card.constraints and registry is None:
        raise TypeError(f"card {card.id!r} has constraints: draw it with the registry")
    used = {
        spec.role: given[spec.role]
        for spec in card.params
        if given and spec.role is not None and spec.role in given
    }
    if used:
        try:
            return _draw(card, seed, registry, all_facts, used)
        except ConstraintError:
            pass
    return _draw(card, seed, registry, all_facts, {})


def _draw(
    card: Card,
    seed: int,
    registry: Registry | None,
    all_facts: bool,
    given: Mapping[str, Given],
) -> Instance:
    rng = random.Random(f"{card.id}:{seed}")
    for _ in range(MAX_DRAW_TRIES if card.constraints else 1):
        values: dict[str, Any] = {}
        shown: dict[str, str] = {}
        for spec in card.params:
            # drawn even when given, so that the other parameters stay as without it
            values[spec.name], shown[spec.name] = draw_value(spec, rng, values)
            if spec.role is not None and spec.role in given:
                values[spec.name], shown[spec.name] = _given_value(card, spec, given[spec.role])
        try:
            if card.constraints:
                # Only what the constraints read, until a draw passes them.
                needed = span_values(card, values, registry, _constraint_names(card))
                if not realistic(card, needed, registry):
                    continue
            facts = span_values(card, values, registry, None if all_facts else _shown(card))
        except DeckError:
            if not card.constraints:
                raise
            continue  # an executable refuses this combination: not a realistic instance
        if realistic(card, facts, registry):
            break
    else:
        raise ConstraintError(
            f"card {card.id!r}: no draw in {MAX_DRAW_TRIES} satisfies its constraints"
        )
    order: tuple[int, ...] = ()
    if card.type is CardType.CHOICE:
        idx = list(range(len(card.options)))
        if card.shuffle:
            rng.shuffle(idx)
        order = tuple(idx)
    for name in card.facts():  # the card's own facts, not the hundreds of constants
        if name not in shown and name in facts:
            shown[name] = _default_text(facts[name])
    used = tuple((role, g.value) for role, g in given.items())
    return Instance(card.id, seed, values, shown, order, facts, used)


def realistic(card: Card, facts: Mapping[str, Value], registry: Registry | None) -> bool:
    """Whether an instance's values satisfy the card's constraints (those that need a fact
    are skipped when no registry computed facts)."""
    if not card.constraints:
        return True
    env = {k: facts[k].value for k in _constraint_names(card) if k in facts}
    usable = tuple(c for c in card.constraints if registry is not None or c.names <= env.keys())
    return satisfied(usable, env)


def instance_count(card: Card, registry: Registry | None) -> int | None:
    """How many distinct instances ``card`` can draw, counted up to ``MIN_INSTANCES``; None
    when a parameter is continuous or the space too large to enumerate (plenty)."""
    axes: list[list[Any]] = []
    specs = [s for s in card.params if s.formula is None]
    for spec in specs:
        values = param_values(spec)
        if values is None:
            return None
        axes.append(values)
    if not card.constraints:
        return min(math.prod(len(a) for a in axes), MIN_INSTANCES) if axes else 1

    def accept(combo: tuple[Any, ...]) -> bool:
        values = {s.name: v for s, v in zip(specs, combo, strict=True)}
        for spec in card.params:
            if spec.formula is not None:
                values[spec.name], _ = draw_value(spec, random.Random(0), values)
        try:
            needed = span_values(card, values, registry, _constraint_names(card))
            return realistic(card, needed, registry)
        except DeckError:
            return False

    return count_instances(axes, accept)


def param_values(spec: ParamSpec) -> list[Any] | None:
    """Every value a parameter can take (base units), or None for a continuous range."""
    f = _factor(spec.unit)
    if spec.choices is not None:
        raws: list[Any] = list(dict.fromkeys(spec.choices))
    else:
        assert spec.range is not None
        size = grid_size(spec)
        if size is None:
            lo, hi = spec.range
            if not spec.integer or spec.log or hi - lo > MAX_ENUMERATION:
                return None
            raws = list(range(math.ceil(lo), math.floor(hi) + 1))
        elif size > MAX_ENUMERATION:
            return None  # counted, never listed: plenty of instances
        else:
            raws = [_grid_value(spec, i) for i in range(size)]
    return [r if isinstance(r, str) else r * f for r in raws]


def span_values(
    card: Card,
    values: Mapping[str, Any],
    registry: Registry | None,
    names: Collection[str] | None = None,
) -> dict[str, Value]:
    """What spans may show for these parameter values: constants, parameters, facts (only
    those ``names`` need, when given)."""
    out: dict[str, Value] = constant_values(registry)
    for spec in card.params:
        if spec.name in values:
            dim = units.unit_dim(spec.unit) if spec.unit else None
            out[spec.name] = Value(values[spec.name], dim if dim else units.Dim.COUNT)
    if registry is not None and card.verify:
        out.update(evaluate_facts(card, values, registry, names))
    return out


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shown_fact_names(card: Card) -> frozenset[str]:
    """The facts a learner's view of ``card`` can read: every name its texts, answer,
    mistakes and constraints mention (a generous scan: a word that is also a fact's name
    counts), the facts those are computed from, and the formula facts (no run: a written
    formula is compared with them)."""
    facts = card.facts()
    texts = [t for _, t in card.texts()]
    # The answer's own ``expect`` is its proof (a closed form, or a second method's fact),
    # not something a learner's view evaluates: the view shows what the answer's run gives.
    answer = dataclasses.replace(card.answer, expect=None) if card.answer is not None else None
    texts += [repr(answer), repr(card.mistakes)]
    mentioned = {w for t in texts for w in _NAME.findall(t)} | _constraint_names(card)
    wanted = {n for n in mentioned if n in facts}
    wanted |= {n for n, c in facts.items() if c.where}
    return frozenset(wanted)


_shown = shown_fact_names


def _constraint_names(card: Card) -> set[str]:
    return set().union(*(c.names for c in card.constraints))


def _default_text(value: Value) -> str:
    if value.formula is not None:
        return value.formula
    try:
        return format_value(value.value, value.dim)
    except SpanError:
        return str(value.value)


def sweep(specs: Sequence[ParamSpec]) -> Iterator[tuple[dict[str, Any], dict[str, str]]]:
    """Every combination of the specs' values (ranges enumerated); formulas derived in order.

    Raises :class:`SweepTooLarge` before anything is listed when there are more than
    :data:`MAX_SWEEP_POINTS` combinations.
    """
    total = sweep_size(specs)
    if total > MAX_SWEEP_POINTS:
        raise SweepTooLarge(
            f"{total:,} combinations or more; keep a sweep under {MAX_SWEEP_POINTS:,}"
        )
    axes: list[list[tuple[Any, str]]] = []
    for spec in specs:
        if spec.formula is not None:
            axes.append([])
            continue
        if spec.choices is not None:
            raws: list[Any] = list(spec.choices)
        else:
            assert spec.range is not None
            size = grid_size(spec)
            if size is None:
                raws = list(range(int(spec.range[0]), int(spec.range[1]) + 1))
            else:
                raws = [_grid_value(spec, i) for i in range(size)]
        f = _factor(spec.unit)
        axes.append([(r if isinstance(r, str) else r * f, show_value(r, spec.unit)) for r in raws])
    fixed = [i for i, a in enumerate(axes) if a]
    for combo in itertools.product(*(axes[i] for i in fixed)):
        values: dict[str, Any] = {}
        shown: dict[str, str] = {}
        picks = dict(zip(fixed, combo, strict=True))
        for i, spec in enumerate(specs):
            if i in picks:
                values[spec.name], shown[spec.name] = picks[i]
            else:
                values[spec.name], shown[spec.name] = draw_value(spec, random.Random(0), values)
        yield values, shown


def render_text(
    text: str,
    instance: Instance,
    extra: Mapping[str, str] | None = None,
    values: Mapping[str, Value] | None = None,
) -> str:
    """Fill spans and ``{param}`` placeholders (and ``extra`` names such as ``answer``, whose
    raw ``values`` serve ``{=answer|GiB}``) in ``text``."""
    if "{" in text:
        text = render_spans(text, {**instance.facts, **(values or {})})
    if extra:
        merged = {**instance.shown, **extra}
        return fill(text, merged)
    return fill(text, instance.shown)


def render_spans(text: str, env: Mapping[str, Value]) -> str:
    """``text`` with each span replaced by what it shows: a rendered span by its formatted
    value (left as written when the value is unknown), a checked span by its figure."""
    spans, _ = find_spans(text)
    if not spans:
        return text
    out: list[str] = []
    i = 0
    for span in spans:
        if span.kind is SpanKind.CHECK:
            shown = span.literal
        else:
            value = env.get(span.ref)
            if value is None:
                continue
            try:
                shown = (
                    value.formula
                    if value.formula is not None
                    else format_value(value.value, value.dim, span.fmt)
                )
            except SpanError:
                continue
        out.append(text[i : span.start])
        out.append(shown)
        i = span.end
    out.append(text[i:])
    return "".join(out)


def render_front(card: Card, instance: Instance) -> str:
    return render_text(card.front, instance)


def render_options(card: Card, instance: Instance) -> list[str]:
    """The options in the instance's display order, placeholders filled."""
    order = instance.option_order or tuple(range(len(card.options)))
    return [render_text(card.options[i], instance) for i in order]
