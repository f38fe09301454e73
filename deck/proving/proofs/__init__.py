"""Proving what a card shows: facts against their closed forms, figures against facts,
options against their marking, answers against two derivations, and no unproven text.

:mod:`deck.proving.verify` runs these for every card of a collection; each function returns
:class:`~deck.proving.failures.Failure` lines located at the offending text (``PATH:LINE:COL``).

* :func:`unproven_failures` — numbers, formulas and scaling adverbs that no span ties to
  a proof (:mod:`deck.cards.prose`), and computed answers without an independent closed form.
* :func:`prove_instance` — at one drawn instance: every fact equals its ``expect``, every
  checked figure ``{~FIGURE=EXPR}`` equals (or, with ``!=``, differs from) its expression,
  correct options hold only true figures and wrong options hold a false one, and the
  computed answer equals ``answer.expect``.
* :func:`deck.proving.proofs.answers.prove_formula_answer` — a formula card's answer equals its
  executable at sample points over the variables' whole domains.

The proofs are built in layers, one module each: :mod:`deck.proving.proofs.facts` (claims held
to their closed forms), :mod:`deck.proving.proofs.formulas` (written formulas against proven
ones), :mod:`deck.proving.proofs.figures` (checked figures and options),
:mod:`deck.proving.proofs.answers` (answers) and this module (unproven text, and every proof of
one instance put together).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck import units
from deck.base.errors import DeckError
from deck.cards.facts import Value
from deck.cards.model import Card, CardType, Claim
from deck.cards.prose import Kind, unproven
from deck.cards.registry import Registry
from deck.proving.failures import Failure, text_location
from deck.proving.proofs.answers import answer_expect_failures, answer_span_values
from deck.proving.proofs.facts import check_facts, closed_form
from deck.proving.proofs.figures import figure_failures, option_failures
from deck.proving.proofs.formulas import formula_scope


def unproven_failures(card: Card, registry: Registry | None) -> list[Failure]:
    """Everything the card states without a proof (warnings under ``unproven: warn``)."""
    terms = registry.terms if registry is not None else frozenset()
    warn = card.unproven == "warn"
    out: list[Failure] = []
    for field, text in card.texts():
        for item in unproven(text, terms):
            label = {
                Kind.NUMBER: "unproven number",
                Kind.FORMULA: "unproven formula",
                Kind.SCALING: "unproven scaling claim",
            }[item.kind]
            out.append(
                Failure(
                    card.id,
                    text_location(card, field, text, item.start),
                    field,
                    f"{label} {item.text!r}: {item.hint()}",
                    warning=warn,
                )
            )
    a = card.answer
    if card.type is CardType.NUMERIC and a is not None:
        if a.computation is None:
            how = "a typed value" if a.value is not None else "typed arithmetic (expr)"
            out.append(
                Failure(
                    card.id,
                    a.location or card.location,
                    "answer",
                    f"the answer is {how}: compute it with run: and hold it to expect:",
                    warning=warn,
                )
            )
        elif a.expect is None:
            out.append(
                Failure(
                    card.id,
                    a.location or card.location,
                    "answer",
                    "the computed answer has no independent closed form: add answer.expect "
                    "(a formula over the parameters and constants)",
                    warning=warn,
                )
            )
    if card.type is CardType.FORMULA and a is not None and a.computation is None:
        out.append(
            Failure(
                card.id,
                a.location or card.location,
                "answer",
                "the formula is not checked against an executable: add answer.run/args/field",
                warning=warn,
            )
        )
    return out


def prove_instance(card: Card, instance: Any, registry: Registry, solution: Any) -> list[Failure]:
    """Every proof of ``card`` at one drawn ``instance`` (with its solved ``solution``)."""
    point = _point(card, instance)
    env: dict[str, Any] = dict(instance.facts)
    failures = list(check_facts(card, env, registry, point))
    answer_values = answer_span_values(card, solution)
    spans_env = {**env, **answer_values}
    samples: dict[str, Any] = {
        c.name: formula_scope(c, registry) for c in card.verify if c.name and c.where
    }
    if "answer" in answer_values and answer_values["answer"].formula is not None:
        samples["answer"] = list(card.variables)
    card_texts = [(f, t) for f, t in card.texts() if not f.startswith("verify[")]
    found, checks = figure_failures(card, spans_env, card_texts, point, samples)
    failures += found
    for i, claim in enumerate(card.verify):
        if claim.text:  # a claim's own text may check figures against its expect
            own = claim_expect_value(claim, spans_env)
            found, _ = figure_failures(
                card,
                {**spans_env, "expect": own},
                [(f"verify[{i}].claim", claim.text)],
                point,
                {**samples, "expect": formula_scope(claim, registry) if claim.where else ()},
            )
            failures += found
    if card.type is CardType.CHOICE:
        failures += option_failures(card, checks)
    failures += answer_expect_failures(card, instance, solution, env, point)
    return failures


def claim_expect_value(claim: Claim, env: Mapping[str, Value]) -> Value:
    """What ``expect`` stands for in a claim's own text: its formula, text or quantity."""
    try:
        q = units.parse_quantity(claim.expect)
        return Value(q.value, q.dim)
    except units.UnitError:
        pass
    if claim.vary or not _is_formula(claim.expect):
        return Value(claim.expect, units.Dim.TEXT)
    if claim.where:
        return Value(claim.expect, units.Dim.TEXT, formula=claim.expect)
    try:
        return Value(closed_form(claim.expect, env), None)
    except DeckError:
        return Value(claim.expect, units.Dim.TEXT, formula=claim.expect)


def _is_formula(text: str) -> bool:
    from deck.cards.facts import CHOICE_REF
    from deck.formula import FormulaError, parse

    try:
        parse(CHOICE_REF.sub(r"\1", text))
    except FormulaError:
        return False
    return True


def _point(card: Card, instance: Any) -> str:
    if not card.params:
        return ""
    shown = ", ".join(f"{k}={v}" for k, v in instance.shown.items() if k in _param_names(card))
    return f"at {shown}: "


def _param_names(card: Card) -> set[str]:
    return {p.name for p in card.params}
