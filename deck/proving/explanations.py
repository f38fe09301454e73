"""Numbers in the executables' explanations, held to what the card proves.

An executable's ``explain`` writes a worked solution that the learner reads under the
proven answer ("16 B/param × 7B = 112 GB"). Those numbers come from the run; the card's
proofs hold some of them (the answer, its facts, its parameters, cited constants, result
fields a claim derives another way) and not others. :func:`explanation_numbers` scans the
explanation of each drawn instance with the same scan as card text
(:func:`deck.cards.prose.unproven`) and traces every number it finds to a proven value of
that instance, within the rounding of its display; what traces to nothing is reported.

A product of proven figures ("1.875 × 512.00 MiB", where the card proves the factor and
the size) is a proven figure shown in a form the plain scan does not read: it traces when
every factor does (:func:`_factors`).

:func:`explanation_failures` turns the untraced numbers into ``check`` failures, one line
each; ``check --explanations`` asks for them, and :data:`FAIL_ON_UNTRACED` is the one switch
that makes plain ``check`` ask too.

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
from deck.proving.failures import Failure

# The one switch: True makes every ``check`` fail on an untraced explanation number (today
# only ``check --explanations`` does).
FAIL_ON_UNTRACED = False

# Shown figures round to 3–4 significant digits ("3.4 µs", "80.00 GiB"): a match within 2%
# is the same figure; a wrong figure in an explanation is off by far more.
_REL = 0.02
_LEADING = re.compile(r"\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
# "A × B" (or "A·B"): two figures multiplied, each with its own unit or none.
_PRODUCT = re.compile(r"^\s*(?P<a>\d[^×·]*?)\s*[×·]\s*(?P<b>\d[^×·]*?)\s*$")


@dataclass(frozen=True)
class ExplainedNumber:
    card_id: str
    seed: int
    text: str
    proven: bool
    run: str = ""  # the executable whose explain printed it


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
        floats = [float(k) for k in known]
        for item in unproven(sol.explanation, terms):
            if item.kind is not Kind.NUMBER:
                continue
            ok = traces(item.text, floats)
            out.append(
                ExplainedNumber(card.id, inst.seed, item.text, ok, card.answer.computation.run)
            )
    return out


def traces(text: str, known: Iterable[float]) -> bool:
    """Whether the scanned number ``text`` shows a value of ``known`` (within display
    rounding), or is a product whose every factor does."""
    values = list(known)
    value = _value(text)
    if value is not None and any(_close(value, k) for k in values):
        return True
    parts = _factors(text)
    return bool(parts) and all(any(_close(p, k) for k in values) for p in parts)


def _factors(text: str) -> list[float]:
    """The two figures of a product "A × B" ("1.875 × 512.00 MiB" → 1.875, 536870912), or
    [] when ``text`` is not one."""
    m = _PRODUCT.match(text)
    if m is None:
        return []
    a, b = _value(m.group("a")), _value(m.group("b"))
    return [a, b] if a is not None and b is not None else []


def explanation_failures(
    card: Card, registry: Registry | None, seeds: Iterable[int] = (0, 1)
) -> list[Failure]:
    """One failure per untraced number of the card's explanations (per seed, each number
    once), located at the card's answer."""
    a = card.answer
    where = (a.location if a is not None else None) or card.location
    out: list[Failure] = []
    seen: set[tuple[int, str]] = set()
    for n in explanation_numbers(card, registry, seeds):
        if n.proven or (n.seed, n.text) in seen:
            continue
        seen.add((n.seed, n.text))
        out.append(
            Failure(
                card.id,
                where,
                f"explanation (seed {n.seed})",
                f"untraced number {n.text!r} in {n.run}'s explain (no proven value of the "
                "instance shows it: answer, parameter, fact, cited constant, held field)",
                warning=card.unproven == "warn",
            )
        )
    return out


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_REL, abs_tol=0.0) or (a == 0 == b)
