"""How much of what a card shows is proven, and by what.

Every figure a learner reads is one *displayed item*: a placeholder, a rendered or checked
span, or an unproven number, formula or scaling claim that the prose scan finds. An item is
proven when it traces back to a parameter (a given of the question), a fact (a named claim:
a run held to a closed form), a declared constant, or the card's computed answer held to
its closed form. A ``{=result.FIELD}`` span is proven only when a claim of the card runs the
answer's executable for that field with the answer's arguments and derives it another way
(:mod:`deck.proving.heldfields`; the answer's own field is held by the answer). ``quizcoll check --coverage`` prints this per card and for the collection.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from deck.base.errors import DeckError
from deck.cards.model import Card, CardType, Collection, Location
from deck.cards.placeholders import placeholders
from deck.cards.prose import unproven
from deck.cards.registry import Registry
from deck.cards.spancheck import expr_names
from deck.cards.spans import SpanKind, find_spans
from deck.proving.failures import text_location
from deck.proving.heldfields import unheld_result_fields


@dataclass(frozen=True)
class Item:
    """One displayed figure: what it shows and what proves it (empty: unproven)."""

    field: str
    text: str
    proof: str
    location: Location

    @property
    def proven(self) -> bool:
        return bool(self.proof)


@dataclass(frozen=True)
class CardCoverage:
    card_id: str
    items: tuple[Item, ...]

    @property
    def proven(self) -> int:
        return sum(1 for i in self.items if i.proven)

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def share(self) -> float:
        return self.proven / self.total if self.total else 1.0


def card_coverage(card: Card, registry: Registry | None) -> CardCoverage:
    """Every displayed item of ``card`` with its proof."""
    proofs = _proof_table(card, registry)
    terms = registry.terms if registry is not None else frozenset()
    items: list[Item] = []
    for field, text in card.texts():
        spans, _ = find_spans(text)
        for span in spans:
            where = text_location(card, field, text, span.start)
            if span.kind is SpanKind.RENDER:
                items.append(Item(field, "{=" + span.ref + "}", proofs.get(span.ref, ""), where))
                continue
            try:
                used = expr_names(span.expr)
            except DeckError:  # a malformed span is a load problem; here it proves nothing
                used = set()
            why = [proofs[n] for n in sorted(used) if n in proofs]
            proof = f"checked against {span.expr}" + (f" ({'; '.join(why)})" if why else "")
            if span.expr.strip() == "expect":
                proof = "checked against the claim's closed form"
            items.append(
                Item(field, span.literal, proof if why or used <= {"expect"} else "", where)
            )
        for name in placeholders(text):
            where = text_location(card, field, text, text.find("{" + name + "}"))
            items.append(Item(field, "{" + name + "}", proofs.get(name, ""), where))
        for found in unproven(text, terms):
            where = text_location(card, field, text, found.start)
            items.append(Item(field, found.text, "", where))
    a = card.answer
    if a is not None and card.type in (CardType.NUMERIC, CardType.FORMULA):
        where = a.location or card.location
        items.append(Item("answer", "answer", proofs.get("answer", ""), where))
    return CardCoverage(card.id, tuple(items))


def _proof_table(card: Card, registry: Registry | None) -> dict[str, str]:
    """What proves each name a card's text may use."""
    table: dict[str, str] = {}
    if registry is not None:
        for name, constant in registry.constants.items():
            table[name] = f"constant {name} ({constant.source})"
    for spec in card.params:
        table[spec.name] = f"parameter {spec.name} (a given of the question)"
    for claim in card.verify:
        if not claim.name:
            continue
        how = claim.computation.run if claim.computation else f"expr {claim.expr}"
        table[claim.name] = f"fact {claim.name}: {how} = {claim.expect}"
    a = card.answer
    if a is not None:
        comp = a.computation
        if card.type is CardType.NUMERIC and comp is not None and a.expect is not None:
            table["answer"] = f"answer: {comp.run}.{comp.field} = {a.expect}"
            # A result field shown as {=result.F} is proven only by a claim that runs the
            # same executable for F with the answer's arguments and derives it another way.
            unheld = unheld_result_fields(card, registry)
            for f in _fields(registry, comp.run):
                if f not in unheld:
                    table[f"result.{f}"] = f"run {comp.run}.{f}, held at the instance"
        elif card.type is CardType.FORMULA and comp is not None:
            table["answer"] = f"answer: formula = {comp.run}.{comp.field}"
        elif card.type is CardType.CHOICE:
            table["answer"] = "the correct option"
    if card.type is CardType.CHOICE:
        table["answer"] = "the correct option"
    return table


def _fields(registry: Registry | None, run: str) -> Iterable[str]:
    if registry is None or run not in registry:
        return ()
    return [f.name for f in registry.get(run).fields]


def collection_coverage(collection: Collection, registry: Registry | None) -> list[CardCoverage]:
    return [card_coverage(card, registry) for card in collection.cards]
