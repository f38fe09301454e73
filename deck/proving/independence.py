"""Independence you can see: how each side of a proof is obtained, and which cards' answers
are held to a derivation that shares no formula with their executable.

A claim (or a numeric card's answer) has two sides. The *run* side is the executable, whose
derivation the application declares (:meth:`deck.cards.registry.Registry.declare_derivation`:
simulated, enumerated, searched, measured; undeclared is a closed form). The *expect* side is
inferred from its text: a quantity or a formula over numbers and cited constants only is a
*published* figure; a formula that names parameters or sweep variables is a *closed form*;
one built on the card's facts takes the derivation of those facts' runs when they are not
closed forms. The two sides share no formula when at least one of them is not a closed form.

A computed card (one whose answer names an executable) is *independent* when its answer, or
a claim of the card on the same executable and field, has an independent pair of sides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deck import units
from deck.cards.loader.params import placeholder_variants
from deck.cards.model import Card, Claim, Computation, ParamSpec
from deck.cards.registry import Derivation, Registry
from deck.formula import FormulaError, parse

_CLOSED = Derivation.CLOSED_FORM


@dataclass(frozen=True)
class Pair:
    """One proof's two sides."""

    what: str  # "answer" or "verify[i]"
    run: str
    field: str
    run_side: Derivation
    expect_side: Derivation

    @property
    def independent(self) -> bool:
        return self.run_side is not _CLOSED or self.expect_side is not _CLOSED

    def to_dict(self) -> dict[str, object]:
        return {
            "what": self.what,
            "run": f"{self.run}.{self.field}",
            "run_side": self.run_side.value,
            "expect_side": self.expect_side.value,
            "independent": self.independent,
        }


@dataclass(frozen=True)
class CardIndependence:
    card_id: str
    computed: bool  # the answer names an executable
    independent: bool
    pairs: tuple[Pair, ...]


def expect_side(
    expect: str,
    registry: Registry | None,
    facts: dict[str, Derivation] | None = None,
    specs: Sequence[ParamSpec] = (),
) -> Derivation:
    """How an ``expect`` text obtains its value (see the module docstring); ``{param}``
    placeholders of text parameters among ``specs`` are filled with each of their choices."""
    try:
        units.parse_quantity(expect)
        return Derivation.PUBLISHED
    except units.UnitError:
        pass
    sides = set()
    for variant in placeholder_variants(expect, specs):
        try:
            names = parse(variant).variables
        except FormulaError:
            return _CLOSED
        side = _formula_side(names, registry, facts or {})
        if side is Derivation.PUBLISHED and not _conversion(variant):
            side = _CLOSED  # a formula over published figures is still a formula
        sides.add(side)
    return sides.pop() if len(sides) == 1 else _CLOSED


def _conversion(formula: str) -> bool:
    """A figure in other units: products and quotients of names and numbers only (no sum,
    difference, power or function), as ``8030261248*bf16_bytes`` or ``x_gbit*1e9/8``."""
    body = re.sub(r"\d[eE][-+]\d", "", formula)  # 1e-9 is a number, not a difference
    return not re.search(r"[-+^(]|\*\*", body)


def _formula_side(
    names: set[str], registry: Registry | None, facts: dict[str, Derivation]
) -> Derivation:
    constants = registry.constants if registry is not None else {}
    rest = {n for n in names if not ((c := constants.get(n)) is not None and c.cited)}
    if not rest:
        return Derivation.PUBLISHED
    if rest <= set(facts):
        open_sides = sorted({facts[n] for n in rest} - {_CLOSED}, key=lambda d: d.value)
        if open_sides and all(facts[n] is not _CLOSED for n in rest):
            return open_sides[0]
    return _CLOSED


def _run_side(comp: Computation, registry: Registry | None) -> Derivation:
    if registry is None:
        return _CLOSED
    return registry.derivation(comp.run)[0]


def collection_independence(
    cards: Sequence[Card], registry: Registry | None
) -> list[CardIndependence]:
    return [card_independence(card, registry) for card in cards]


def card_independence(card: Card, registry: Registry | None) -> CardIndependence:
    """Every proof pair of ``card`` and whether its answer is held independently."""
    pairs: list[Pair] = []
    facts: dict[str, Derivation] = {}
    for i, claim in enumerate(card.verify):
        specs = claim.where or card.params
        pair = _claim_pair(f"verify[{i}]", claim, registry, facts, specs)
        if pair is not None:
            pairs.append(pair)
            if claim.name:
                facts[claim.name] = pair.run_side
    a = card.answer
    comp = a.computation if a is not None else None
    computed = comp is not None
    if a is not None and comp is not None and (a.expect is not None or a.formula is not None):
        # A formula card's answer is held to its own formula: a closed form.
        side = (
            expect_side(a.expect, registry, facts, card.params) if a.expect is not None else _CLOSED
        )
        pairs.append(Pair("answer", comp.run, comp.field, _run_side(comp, registry), side))
    same = [
        p
        for p in pairs
        if comp is not None and p.run == comp.run and p.field == comp.field and p.independent
    ]
    return CardIndependence(card.id, computed, computed and bool(same), tuple(pairs))


def _claim_pair(
    what: str,
    claim: Claim,
    registry: Registry | None,
    facts: dict[str, Derivation],
    specs: Sequence[ParamSpec],
) -> Pair | None:
    comp = claim.computation
    if comp is None or claim.vary:
        return None
    expect = expect_side(claim.expect, registry, facts, specs)
    return Pair(what, comp.run, comp.field, _run_side(comp, registry), expect)
