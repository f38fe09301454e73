"""Proving a collection: every ``verify`` claim at every sweep point, every computed card for several seeds.

A card whose text states a wrong quantity fails here: its claim's expected value
differs from what the executable computes. Instances are also checked end to end:
drawn, solved, rendered with no placeholder left, and the exact answer as shown must
be accepted by the checker.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from deck import units
from deck.checking import CheckError, check_answer, resolve_value, solve
from deck.errors import DeckError
from deck.instances import Instance, draw, render_front, render_options, sweep
from deck.model import Card, CardType, Claim, Collection, Location
from deck.placeholders import placeholders
from deck.registry import Registry

DEFAULT_SEEDS = 5


@dataclass(frozen=True)
class Failure:
    """One failed claim point or card instance."""

    card_id: str
    location: Location | None
    what: str
    message: str
    expected: str = ""
    actual: str = ""

    def format(self) -> str:
        loc = str(self.location) if self.location else "?"
        tail = (
            f": expected {self.expected}, got {self.actual}" if self.expected or self.actual else ""
        )
        return f"{loc}: card {self.card_id!r}: {self.what}: {self.message}{tail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "card": self.card_id,
            "location": str(self.location) if self.location else None,
            "what": self.what,
            "message": self.message,
            "expected": self.expected,
            "actual": self.actual,
        }


@dataclass(frozen=True)
class CheckReport:
    cards: int
    claims: int
    claim_points: int
    instances: int
    failures: tuple[Failure, ...]

    @property
    def ok(self) -> bool:
        return not self.failures


def run_checks(
    collection: Collection,
    registry: Registry | None,
    *,
    seeds: int = DEFAULT_SEEDS,
    on_card: Callable[[int, int, Card], Any] | None = None,
) -> CheckReport:
    failures: list[Failure] = []
    claims = points = instances = 0
    cards = collection.cards
    for i, card in enumerate(cards):
        if on_card is not None:
            on_card(i, len(cards), card)
        for claim_index, claim in enumerate(card.verify):
            claims += 1
            n, fails = check_claim(card, claim_index, claim, registry)
            points += n
            failures.extend(fails)
        n, fails = check_instances(card, registry, seeds)
        instances += n
        failures.extend(fails)
    return CheckReport(len(cards), claims, points, instances, tuple(failures))


def _point_text(shown: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in shown.items())


def check_claim(
    card: Card, index: int, claim: Claim, registry: Registry | None
) -> tuple[int, list[Failure]]:
    """Run one claim over its sweep; return (points run, failures)."""
    what = f"verify[{index}] {claim.text!r}"
    if registry is None:
        return 0, [Failure(card.id, claim.location, what, "no registry of executables to run it")]
    failures: list[Failure] = []
    n = 0
    try:
        expected_q = units.parse_quantity(claim.expect)
        fixed: float | None = expected_q.value
    except units.UnitError:
        fixed = None
    ex = registry.get(claim.computation.run)
    fdef = ex.field_(claim.computation.field)
    dim = fdef.dimension if fdef else None
    text_expected = claim.expect if dim is units.Dim.TEXT else None
    for values, shown in sweep(claim.where):
        n += 1
        try:
            args = {k: resolve_value(v, values, shown) for k, v in claim.computation.args}
            result = registry.call(claim.computation.run, args)
            actual = result[claim.computation.field]
            if text_expected is not None:
                expected = text_expected
            elif fixed is not None:
                expected = fixed
            else:
                from deck.formula import evaluate

                expected = evaluate(
                    claim.expect, {k: v for k, v in values.items() if isinstance(v, int | float)}
                )
        except DeckError as exc:
            failures.append(
                Failure(card.id, claim.location, what, f"at {_point_text(shown)}: {exc}")
            )
            if len(failures) >= 3:  # the same fault at every point: three say enough
                break
            continue
        if isinstance(actual, str) or isinstance(expected, str):
            ok = str(actual) == str(expected)
        else:
            ok = claim.tolerance.accepts(float(actual), float(expected))
        if not ok:
            failures.append(
                Failure(
                    card.id,
                    claim.location,
                    what,
                    f"at {_point_text(shown)}" if shown else "",
                    _show(expected, dim),
                    _show(actual, dim),
                )
            )
            if len(failures) >= 3:  # a wrong claim fails everywhere; three points say enough
                break
    return n, failures


def _show(value: Any, dim: units.Dim | None) -> str:
    if isinstance(value, str):
        return repr(value)
    text = units.format_number(float(value), 8)
    if dim is units.Dim.BYTES:
        return f"{text} B ({units.format_bytes_both(float(value), digits=3)})"
    if dim in (units.Dim.RATE, units.Dim.SECONDS):
        return f"{text} ({units.format_value(float(value), dim)})"
    return text


def check_instances(card: Card, registry: Registry | None, seeds: int) -> tuple[int, list[Failure]]:
    """Draw ``seeds`` instances and check each end to end."""
    if card.type is CardType.BASIC and not card.params:
        return 0, _unfilled(card, draw(card, 0))
    failures: list[Failure] = []
    n = 0
    for seed in range(seeds):
        n += 1
        try:
            inst = draw(card, seed)
        except DeckError as exc:
            failures.append(Failure(card.id, card.location, f"params (seed {seed})", str(exc)))
            break
        failures.extend(_unfilled(card, inst))
        try:
            sol = solve(card, inst, registry)
        except (CheckError, DeckError) as exc:
            failures.append(Failure(card.id, card.location, f"answer (seed {seed})", str(exc)))
            break
        if card.type is CardType.NUMERIC:
            if sol.value is None or not math.isfinite(sol.value):
                failures.append(
                    Failure(
                        card.id,
                        card.location,
                        f"answer (seed {seed})",
                        f"not a finite number: {sol.value}",
                    )
                )
                break
            left = _unfilled_names(card.back, sol.back)
            if left:
                failures.append(
                    Failure(card.id, card.location, "back", f"unfilled placeholder {{{left[0]}}}")
                )
        if card.type in (CardType.NUMERIC, CardType.FORMULA, CardType.CHOICE):
            # The exact answer, typed back as shown, must be accepted.
            typed = sol.typed
            verdict = check_answer(card, inst, typed, registry, solution=sol)
            if not verdict.correct:
                failures.append(
                    Failure(
                        card.id,
                        card.location,
                        f"answer (seed {seed})",
                        f"the checker rejects the exact answer as shown ({typed!r}): {verdict.message}",
                    )
                )
        if failures:
            break
    return n, failures


def _unfilled_names(template: str, rendered: str) -> list[str]:
    """Placeholders left in ``rendered``, except those the card wrote as literal braces
    (``{{name}}`` renders as ``{name}`` on purpose)."""
    literal = set(re.findall(r"\{\{([^{}]+)\}\}", template))
    return [name for name in placeholders(rendered) if name not in literal]


def _unfilled(card: Card, inst: Instance) -> list[Failure]:
    texts = [("front", card.front, render_front(card, inst))]
    if card.type is CardType.CHOICE:
        texts += [
            (f"options[{i}]", card.options[i], t)
            for i, t in zip(
                inst.option_order or range(len(card.options)),
                render_options(card, inst),
                strict=True,
            )
        ]
    out = []
    for field, template, text in texts:
        left = _unfilled_names(template, text)
        if left:
            out.append(
                Failure(card.id, card.location, field, f"unfilled placeholder {{{left[0]}}}")
            )
    return out
