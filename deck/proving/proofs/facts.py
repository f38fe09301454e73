"""Claims held to their closed forms: what a claim's ``expect`` says, whether a result
agrees with it, how both are shown, and every fact of a card checked at one instance.

Used by :mod:`deck.proving.verify` (a swept claim at each point of its sweep) and by
:func:`deck.proving.proofs.prove_instance` (the facts without a sweep, at a drawn instance).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from deck import units
from deck.base.errors import DeckError
from deck.cards.facts import Value, evaluate_in, expand_choices, fact_value
from deck.cards.model import Card, Claim, Tolerance
from deck.cards.registry import Registry
from deck.proving.failures import Failure


def expected_value(claim: Claim, env: Mapping[str, Any], dim: units.Dim | None) -> Any:
    """What a claim says its result is: text, a quantity, or its formula evaluated in ``env``."""
    if dim is units.Dim.TEXT or claim.vary:
        return claim.expect
    return closed_form(claim.expect, env)


def closed_form(expect: str, env: Mapping[str, Any]) -> float:
    """An ``expect`` in ``env``: a quantity, or a formula whose ``{param}`` placeholders name
    a text parameter's value as a name part (``{link}_latency`` → ``nvlink_latency``,
    ``{model}_layers`` → ``llama_3_1_8b_layers``, ``{gpu}_peak_{dtype}`` → ``h100_80gb_peak_bf16``). Only the names it uses are looked up."""
    try:
        return units.parse_quantity(expect).value
    except units.UnitError:
        return evaluate_in(expand_choices(expect, env), env)


def agrees(actual: Any, expected: Any, tolerance: Tolerance) -> bool:
    if actual is None or expected is None:  # an empty result field agrees with nothing
        return False
    if isinstance(actual, str) or isinstance(expected, str):
        return str(actual).strip().lower() == str(expected).strip().lower()
    return tolerance.accepts(float(actual), float(expected))


def show(value: Any, dim: units.Dim | None) -> str:
    if value is None:
        return "no value"
    if isinstance(value, str):
        return repr(value)
    text = units.format_number(float(value), 8)
    if dim is units.Dim.BYTES:
        return f"{text} B ({units.format_bytes_both(float(value), digits=3)})"
    if dim in (units.Dim.RATE, units.Dim.SECONDS):
        return f"{text} ({units.format_value(float(value), dim)})"
    return text


def check_facts(
    card: Card, env: dict[str, Any], registry: Registry, point: str
) -> Iterator[Failure]:
    """Evaluate every claim without a sweep at ``env`` and hold it to its ``expect``.

    Named ones are added to ``env`` (so later facts and the card's spans can use them)."""
    for i, claim in enumerate(card.verify):
        if claim.where:
            continue
        what = f"verify[{i}] {claim.name or claim.text!r}"
        try:
            known = env.get(claim.name) if claim.name else None
            value = known if isinstance(known, Value) else fact_value(claim, env, registry)
            expected = expected_value(claim, env, value.dim)
        except DeckError as exc:
            yield Failure(card.id, claim.location, what, f"{point}{exc}")
            continue
        if value.value is None:  # a field the executable leaves empty for these arguments
            yield Failure(card.id, claim.location, what, f"{point}the run gave no value")
            continue
        if claim.name:
            env[claim.name] = value
        if not agrees(value.value, expected, claim.tolerance):
            yield Failure(
                card.id,
                claim.location,
                what,
                f"{point}the run and its closed form disagree".rstrip(": "),
                show(expected, value.dim),
                show(value.value, value.dim),
            )
