"""Drawing card instances: fresh parameter values from a seed, rendered for humans.

The same card and seed always give the same instance (stdlib ``random.Random``, whose
algorithms for ``randrange``/``random`` are stable across Python versions). Values
with a physical unit are held in base units (bytes, seconds, bytes/s); ``shown``
holds how each value reads in the card (``1,024 MiB``, ``8 GPUs``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deck import units
from deck.errors import DeckError
from deck.model import Card, CardType, ParamSpec
from deck.placeholders import fill

MAX_SWEEP_POINTS = 2000  # a claim's `where:` sweep runs at most this many combinations


@dataclass(frozen=True)
class Instance:
    """One drawn instance of a card: the seed, the values and how they read."""

    card_id: str
    seed: int
    values: Mapping[str, Any] = field(default_factory=dict)
    shown: Mapping[str, str] = field(default_factory=dict)
    option_order: tuple[int, ...] = ()


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
        return raw, raw
    factor = _factor(spec.unit)
    value = raw * factor
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value, show_value(raw, spec.unit)


def draw(card: Card, seed: int) -> Instance:
    """Draw the instance of ``card`` for ``seed``."""
    rng = random.Random(f"{card.id}:{seed}")
    values: dict[str, Any] = {}
    shown: dict[str, str] = {}
    for spec in card.params:
        values[spec.name], shown[spec.name] = draw_value(spec, rng, values)
    order: tuple[int, ...] = ()
    if card.type is CardType.CHOICE:
        idx = list(range(len(card.options)))
        if card.shuffle:
            rng.shuffle(idx)
        order = tuple(idx)
    return Instance(card.id, seed, values, shown, order)


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


def render_text(text: str, instance: Instance, extra: Mapping[str, str] | None = None) -> str:
    """Fill ``{param}`` (and any ``extra`` names such as ``answer``) in ``text``."""
    if extra:
        merged = {**instance.shown, **extra}
        return fill(text, merged)
    return fill(text, instance.shown)


def render_front(card: Card, instance: Instance) -> str:
    return render_text(card.front, instance)


def render_options(card: Card, instance: Instance) -> list[str]:
    """The options in the instance's display order, placeholders filled."""
    order = instance.option_order or tuple(range(len(card.options)))
    return [render_text(card.options[i], instance) for i in order]
