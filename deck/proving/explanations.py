"""Numbers in the executables' explanations, held to what the card proves.

An executable's ``explain`` writes a worked solution that the learner reads under the
proven answer ("16 B/param × 7B = 112 GB"). Those numbers come from the run; the card's
proofs hold some of them (the answer, its facts, its parameters, cited constants, result
fields a claim derives another way) and not others. :func:`explanation_numbers` scans the
explanation of each drawn instance with the same scan as card text
(:func:`deck.cards.prose.unproven`) and traces every number it finds to a proven value of
that instance, within the rounding of its display; what traces to nothing is reported.
The arguments the card passes to the answer's run ("size: 4KiB", "latency: 0s", "size: =
2*S"), resolved at the instance, are givens as its parameters are
(:func:`deck.proving.heldfields.given_arguments`).

A product of proven figures ("1.875 × 512.00 MiB", where the card proves the factor and
the size) is a proven figure shown in a form the plain scan does not read: it traces when
every factor does (:func:`_factors`).

:func:`explanation_failures` turns the untraced numbers into ``check`` failures, one line
each; ``check --explanations`` asks for them, and :data:`FAIL_ON_UNTRACED` is the one switch
that makes plain ``check`` ask too.

A result field of the run counts as proven only where a claim holds it at the instance with
the answer's arguments and an independent derivation (:func:`deck.proving.heldfields.held_fields`,
which also fails the card text's ``{=result.FIELD}`` spans that nothing holds).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from deck import units
from deck.cards.model import Card, CardType
from deck.cards.prose import Kind, unproven
from deck.cards.registry import Registry
from deck.cards.spans import SpanKind, find_spans
from deck.proving.failures import Failure
from deck.proving.heldfields import (
    close,
    fact_values,
    held_fields,
    independent_claims,
    instance_constants,
    instance_givens,
    solved_instances,
    unit_dim,
)

# The one switch: True makes every ``check`` fail on an untraced explanation number (as it
# does since every explanation number traces; ``check --explanations`` asked for it before).
FAIL_ON_UNTRACED = True

_PLAIN = re.compile(r"\d[\d,]*(?:\.\d+)?")
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


def _value(text: str) -> float | None:
    """The figure a scanned number shows: a quantity with its unit, else its leading number
    ("16 ranks" → 16, "× 8 KV" → 8)."""
    return _reading(text)[0]


def _reading(text: str) -> tuple[float | None, units.Dim | None]:
    """The figure a scanned number shows and the dimension its unit names (None: no unit,
    or a count or ratio)."""
    try:
        q = units.parse_quantity(text)
    except units.UnitError:
        m = _LEADING.search(text)
        return (float(m.group().replace(",", "")) if m else None), None
    return q.value, unit_dim(q.dim)


def explanation_numbers(
    card: Card, registry: Registry | None, seeds: Iterable[int] = (0, 1)
) -> list[ExplainedNumber]:
    """Every number of the card's explanations at ``seeds``, traced or not."""
    if registry is None or card.type is not CardType.NUMERIC or card.answer is None:
        return []
    if card.answer.computation is None:
        return []
    own = set(card.facts())
    terms = registry.terms
    cited = instance_constants(registry)
    independent = independent_claims(card, registry)
    checked = checked_figures(card)
    out: list[ExplainedNumber] = []
    for inst, sol in solved_instances(card, registry, seeds):
        if not sol.explanation:
            continue
        fields = held_fields(card, registry, inst, sol, independent)
        # The instance's span values hold every constant too, derived ones included: only
        # the card's own facts are proven (cited constants come below, with their dimension).
        known = instance_givens(card, inst, sol) + fact_values(inst, own)
        known += checked
        known += [
            v
            for k, v in (sol.result or {}).items()
            if k in fields and isinstance(v, int | float) and not isinstance(v, bool)
        ]
        for item in unproven(sol.explanation, terms):
            if item.kind is not Kind.NUMBER:
                continue
            ok = traces(item.text, known, cited)
            out.append(
                ExplainedNumber(card.id, inst.seed, item.text, ok, card.answer.computation.run)
            )
    return out


def checked_figures(card: Card) -> list[float]:
    """The figures the card's text writes and ``check`` proves (``{~7.4%=gib/gb - 1}``):
    plain quantities only, not a formula figure ("2(N−1)/N·S" reads no single value)."""
    out: list[float] = []
    for _, text in card.texts():
        spans, _ = find_spans(text)
        for span in spans:
            if span.kind is not SpanKind.CHECK or span.negated:
                continue
            literal = span.literal.strip()
            try:
                out.append(units.parse_quantity(literal).value)
            except units.UnitError:
                if _PLAIN.fullmatch(literal):
                    out.append(float(literal.replace(",", "")))
    return out


def traces(
    text: str,
    known: Iterable[float],
    constants: Iterable[tuple[float, units.Dim | None]] = (),
) -> bool:
    """Whether the scanned number ``text`` shows a value of ``known`` (within display
    rounding) or of a constant of the dimension its unit names, or is a product whose every
    factor does."""
    values = [float(k) for k in known]
    dimensioned = list(constants)

    def shown(reading: tuple[float | None, units.Dim | None]) -> bool:
        value, dim = reading
        if value is None:
            return False
        return any(close(value, k) for k in values) or any(
            close(value, k) for k, d in dimensioned if dim is None or d == dim
        )

    if shown(_reading(text)):
        return True
    parts = _factors(text)
    return bool(parts) and all(shown(p) for p in parts)


def _factors(text: str) -> list[tuple[float | None, units.Dim | None]]:
    """The two figures of a product "A × B" ("1.875 × 512.00 MiB" → 1.875, 536870912 B),
    or [] when ``text`` is not one."""
    m = _PRODUCT.match(text)
    if m is None:
        return []
    return [_reading(m.group("a")), _reading(m.group("b"))]


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
