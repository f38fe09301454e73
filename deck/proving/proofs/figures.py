"""Checked figures and options: every ``{~FIGURE=EXPR}`` of a card's text equals (or,
with ``!=``, differs from) its expression at one instance, and the options agree with
their marking — correct options hold only true figures, wrong options hold a false one.

A figure naming a swept fact shows a formula: :mod:`deck.proving.proofs.formulas` decides it.
"""

from __future__ import annotations

import math
from collections import ChainMap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deck import units
from deck.base.errors import DeckError
from deck.cards.facts import Value, evaluate_in
from deck.cards.model import Card
from deck.cards.spancheck import dotted_to_flat
from deck.cards.spans import Span, SpanError, SpanKind, find_spans, parse_number_literal
from deck.proving.failures import Failure, text_location
from deck.proving.proofs.formulas import formula_verdict


@dataclass(frozen=True)
class FigureCheck:
    """The outcome of one checked figure: whether it holds, and why not."""

    span: Span
    holds: bool
    message: str = ""
    checked: bool = True  # False when the figure could not be compared at all


def check_figure(span: Span, env: Mapping[str, Value], samples: Mapping[str, Any]) -> FigureCheck:
    """Does the figure of a ``{~FIGURE=EXPR}`` span equal its expression in ``env``?"""
    from deck.formula import FormulaError

    name = span.expr.strip()
    target = env.get(name)
    try:
        if target is not None and target.formula is not None:
            scope = samples.get(name, ())
            holds, message, checked = formula_verdict(span.literal, target.formula, scope)
            return FigureCheck(span, holds, message, checked=checked)
        if target is not None and isinstance(target.value, str):
            holds = _word(span.literal) == _word(target.value)
            return FigureCheck(span, holds, f"{span.literal!r} vs {target.value!r}")
        if target is not None:
            actual, dim = float(target.value), target.dim
        else:
            actual = evaluate_in(dotted_to_flat(span.expr), _flat_values(env))
            dim = None
        literal = parse_number_literal(span.literal, dim)
    except (FormulaError, SpanError, DeckError, TypeError, ValueError) as exc:
        return FigureCheck(span, False, f"cannot check {span.literal!r}: {exc}", checked=False)
    if (
        literal.dim is not None
        and dim is not None
        and literal.dim is not dim
        and units.Dim.COUNT not in (literal.dim, dim)
        and units.Dim.RATIO not in (literal.dim, dim)
    ):
        return FigureCheck(
            span, False, f"{span.literal!r} is in {literal.dim.value}, {name} in {dim.value}"
        )
    shown = units.format_number(actual, 6)
    if not math.isfinite(actual):
        return FigureCheck(span, False, f"{span.expr} is not finite ({actual})", checked=False)
    return FigureCheck(span, literal.matches(actual), f"{span.literal!r} vs {span.expr} = {shown}")


def _flat_values(env: Mapping[str, Value]) -> Mapping[str, Value]:
    """``env`` with ``result.x`` also reachable as ``result__x`` (the formula's spelling)."""
    dotted = {dotted_to_flat(k): v for k, v in env.items() if "." in k}
    return ChainMap(dotted, dict(env)) if dotted else env


def _word(text: str) -> str:
    """Scaling adverbs and adjectives compare equal: "linearly" is "linear"."""
    w = text.strip().lower()
    for suffix, repl in (("ically", "ic"), ("ally", "al"), ("ly", "")):
        if w.endswith(suffix) and len(w) > len(suffix) + 3:
            return w[: -len(suffix)] + repl
    return w


def figure_failures(
    card: Card,
    env: Mapping[str, Value],
    texts: Sequence[tuple[str, str]],
    point: str,
    samples: Mapping[str, Any],
) -> tuple[list[Failure], dict[str, list[FigureCheck]]]:
    """Check every figure of ``texts``; also return the checks per field (for options)."""
    failures: list[Failure] = []
    by_field: dict[str, list[FigureCheck]] = {}
    for field, text in texts:
        spans, _ = find_spans(text)
        checks = []
        for span in spans:
            if span.kind is not SpanKind.CHECK:
                continue
            result = check_figure(span, env, samples)
            checks.append(result)
            # A distractor that cannot be compared is not proven wrong: it fails like a figure.
            wrong = not result.checked or (result.holds if span.negated else not result.holds)
            if wrong:
                verb = (
                    "cannot be checked"
                    if not result.checked
                    else "is marked as a wrong figure (!=) but is right"
                    if span.negated
                    else "is not what the run gives"
                )
                failures.append(
                    Failure(
                        card.id,
                        text_location(card, field, text, span.start),
                        field,
                        f"{point}figure {span.literal!r} {verb}: {result.message}",
                    )
                )
        by_field[field] = checks
    return failures, by_field


def option_failures(card: Card, checks: Mapping[str, list[FigureCheck]]) -> list[Failure]:
    """Correct options hold only true figures; a wrong option with figures holds a false one."""
    out = []
    for i, text in enumerate(card.options):
        field = f"options[{i}]"
        found = checks.get(field, [])
        if not found:
            continue  # a qualitative option: nothing to run
        negated = [c for c in found if c.span.negated]
        where = text_location(card, field, text, 0)
        if i in card.correct and negated:
            out.append(
                Failure(
                    card.id,
                    where,
                    field,
                    f"marked correct, but its figure {negated[0].span.literal!r} is marked wrong (!=)",
                )
            )
        elif i not in card.correct and not negated:
            out.append(
                Failure(
                    card.id,
                    where,
                    field,
                    "marked wrong, but every figure in it is proven right: "
                    "mark the false figure with {~FIGURE!=EXPR}",
                )
            )
    return out
