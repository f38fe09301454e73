"""Numbers in the executables' explanations, held to what the card proves.

An executable's ``explain`` writes a worked solution that the learner reads under the
proven answer ("16 B/param × 7B = 112 GB"). Those numbers come from the run; the card's
proofs hold some of them (the answer, its facts, its parameters, cited constants, result
fields a claim derives another way) and not others. :func:`explanation_numbers` scans the
explanation of each drawn instance with the same scan as card text
(:func:`deck.cards.prose.unproven`) and traces every number it finds to a proven value of
that instance, within the rounding of its display; what traces to nothing is reported.

``{=result.FIELD}`` spans are the same question asked of the card's own text: a result
field is proven only when a claim of the card runs the same executable for that field
(:func:`proven_result_fields`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from deck import units
from deck.answers.checking import CheckError, solve
from deck.base.errors import DeckError
from deck.cards.instances import draw
from deck.cards.model import Card, CardType
from deck.cards.prose import Kind, unproven
from deck.cards.registry import Registry

# Shown figures round to 3–4 significant digits ("3.4 µs", "80.00 GiB"): a match within 2%
# is the same figure; a wrong figure in an explanation is off by far more.
_REL = 0.02
_LEADING = re.compile(r"\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class ExplainedNumber:
    card_id: str
    seed: int
    text: str
    proven: bool


def proven_result_fields(card: Card) -> frozenset[str]:
    """The fields of the answer's executable that a claim of the card also runs."""
    a = card.answer
    if a is None or a.computation is None:
        return frozenset()
    run = a.computation.run
    return frozenset(
        c.computation.field
        for c in card.verify
        if c.computation is not None and c.computation.run == run and not c.vary
    )


def _value(text: str) -> float | None:
    """The figure a scanned number shows: a quantity with its unit, else its leading number
    ("16 ranks" → 16, "× 8 KV" → 8)."""
    try:
        return units.parse_quantity(text).value
    except units.UnitError:
        m = _LEADING.search(text)
        return float(m.group().replace(",", "")) if m else None


def explanation_numbers(
    card: Card, registry: Registry | None, seeds: Iterable[int] = (0, 1)
) -> list[ExplainedNumber]:
    """Every number of the card's explanations at ``seeds``, traced or not."""
    if registry is None or card.type is not CardType.NUMERIC or card.answer is None:
        return []
    if card.answer.computation is None:
        return []
    fields = proven_result_fields(card)
    terms = registry.terms
    cited = [c.value for c in registry.constants.values() if c.cited]
    out: list[ExplainedNumber] = []
    for seed in seeds if card.params else (0,):
        try:
            inst = draw(card, seed, registry)
            sol = solve(card, inst, registry)
        except (CheckError, DeckError):
            continue
        if not sol.explanation:
            continue
        known = [sol.value] if sol.value is not None else []
        known += [v for v in inst.values.values() if isinstance(v, int | float)]
        known += [f.value for f in inst.facts.values() if isinstance(f.value, int | float)]
        known += [
            v
            for k, v in (sol.result or {}).items()
            if k in fields and isinstance(v, int | float) and not isinstance(v, bool)
        ]
        known += cited
        for item in unproven(sol.explanation, terms):
            if item.kind is not Kind.NUMBER:
                continue
            value = _value(item.text)
            ok = value is not None and any(_close(value, float(k)) for k in known)
            out.append(ExplainedNumber(card.id, inst.seed, item.text, ok))
    return out


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_REL, abs_tol=0.0) or (a == 0 == b)
