"""Proving what a card shows: facts against their closed forms, figures against facts,
options against their marking, answers against two derivations, and no unproven text.

:mod:`deck.verify` runs these for every card of a collection; each function returns
:class:`~deck.failures.Failure` lines located at the offending text (``PATH:LINE:COL``).

* :func:`unproven_failures` — numbers, formulas and scaling adverbs that no span ties to
  a proof (:mod:`deck.prose`), and computed answers without an independent closed form.
* :func:`prove_instance` — at one drawn instance: every fact equals its ``expect``, every
  checked figure ``{~FIGURE=EXPR}`` equals (or, with ``!=``, differs from) its expression,
  correct options hold only true figures and wrong options hold a false one, and the
  computed answer equals ``answer.expect``.
* :func:`prove_formula_answer` — a formula card's answer equals its executable at sample
  points over the variables' whole domains.
"""

from __future__ import annotations

import functools
import math
import random
from collections import ChainMap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deck import units
from deck.errors import DeckError
from deck.facts import Value, evaluate_in, expand_choices, fact_value
from deck.failures import Failure
from deck.model import Card, CardType, Claim, Location, Tolerance
from deck.prose import Kind, unproven
from deck.registry import Registry
from deck.spancheck import dotted_to_flat
from deck.spans import Span, SpanError, SpanKind, find_spans, parse_number_literal

EXPECT_TOLERANCE = Tolerance(rel=1e-6)  # answer vs its closed form: two derivations agree
FORMULA_POINTS = 24  # sample points for a formula answer against its executable


# ----------------------------------------------------------------------------- locations


def text_location(card: Card, field: str, text: str, offset: int) -> Location:
    """Where ``text[offset]`` of the card's ``field`` stands in its file."""
    origin = card.origins.get(field)
    if origin is None:
        return card.location
    line, col = origin.locate(text, offset)
    return Location(card.location.path, line, col)


# ----------------------------------------------------------------------------- static


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


# ----------------------------------------------------------------------------- facts


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


# ----------------------------------------------------------------------------- figures


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
            return _check_formula_figure(span, target.formula, samples.get(name, ()))
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


@dataclass(frozen=True)
class FormulaScope:
    """Where a swept fact's formula holds: the domain of each swept variable, and the names
    it may use that stand for expressions — a derived sweep variable (``sbh`` for ``s*b*h``)
    or a declared constant (``fp16_bytes`` for ``2``)."""

    domains: tuple[Any, ...]
    names: Mapping[str, Any]


def formula_scope(claim: Claim, registry: Registry | None) -> FormulaScope:
    """The :class:`FormulaScope` of a swept fact."""
    from deck.formula import FormulaError, Num, parse

    names: dict[str, Any] = {}
    for spec in claim.where:
        if spec.formula is not None:
            try:
                names[spec.name] = parse(spec.formula)
            except FormulaError:
                continue
    if registry is not None:
        try:
            used = parse(claim.expect).variables
        except FormulaError:
            used = frozenset()
        for name in used:
            constant = registry.constant(name)
            if constant is not None and name not in names:
                names[name] = Num(float(constant.value))
    return FormulaScope(tuple(sweep_domains(claim)), names)


def _in_scope(expr: Any, names: Mapping[str, Any]) -> Any:
    """``expr`` with the scope's named expressions put in (derived names may nest)."""
    from deck.equivalence import substitute

    for _ in range(8):
        used = {n: names[n] for n in expr.variables if n in names}
        if not used:
            break
        expr = substitute(expr, used)
    return expr


def _check_formula_figure(span: Span, formula: str, scope: Any) -> FigureCheck:
    domains, names = (
        (scope.domains, scope.names) if isinstance(scope, FormulaScope) else (scope, {})
    )
    try:
        key = (tuple(domains), tuple(sorted(names.items())))
        hash(key)
    except TypeError:  # nothing hashable to remember the verdict by
        holds, message, checked = _formula_verdict(span.literal, formula, tuple(domains), names)
    else:
        holds, message, checked = _remembered_verdict(span.literal, formula, *key)
    return FigureCheck(span, holds, message, checked=checked)


@functools.lru_cache(maxsize=8192)
def _remembered_verdict(
    literal: str, formula: str, domains: tuple[Any, ...], names: tuple[tuple[str, Any], ...]
) -> tuple[bool, str, bool]:
    """A written formula against a proven one does not depend on the instance: decided once
    (check asks at every instance of every card that shows it)."""
    return _formula_verdict(literal, formula, domains, dict(names))


def _formula_verdict(
    literal: str, formula: str, domains: tuple[Any, ...], names: Mapping[str, Any]
) -> tuple[bool, str, bool]:
    """(holds, why, could be compared) for a written formula against a proven one."""
    from deck.formula import FormulaError, equivalent, parse

    try:
        given = _in_scope(parse(literal), names)
        expected = _in_scope(parse(formula), names)
    except FormulaError as exc:
        return False, f"cannot read the formula {literal!r}: {exc}", False
    given = _juxtaposed_products(given, expected.variables)
    # A written formula may also use the other swept variables (5a·s/h · sbh against 5·a·s²·b
    # swept over s, b, h, a): equivalence is judged over all of their domains.
    swept = {d.name for d in domains}
    extra = sorted(given.variables - expected.variables - swept)
    if extra:
        return False, f"{literal!r} uses {', '.join(extra)}, which {formula!r} does not", True
    try:
        verdict = equivalent(expected, given, list(domains))
    except FormulaError as exc:
        return False, f"cannot compare {literal!r}: {exc}", False
    why = "" if verdict.equal else f" ({verdict.reason})"
    return verdict.equal, f"{literal!r} vs the proven {formula!r}{why}", True


def _juxtaposed_products(expr: Any, names: frozenset[str]) -> Any:
    """Written formulas juxtapose one-letter variables (``2(b−1)/(ab)``): a name the proven
    formula lacks but that spells several of its variables in a row is their product."""
    from deck.equivalence import substitute
    from deck.formula import parse

    mapping = {}
    for name in expr.variables - names:
        parts = _spell(name, names)
        if parts:
            mapping[name] = parse("*".join(parts))
    return substitute(expr, mapping) if mapping else expr


def _spell(name: str, names: frozenset[str]) -> list[str] | None:
    """``name`` as a run of two or more of ``names`` (shortest split first), or None."""
    best: list[list[str] | None] = [None] * (len(name) + 1)
    best[0] = []
    for i in range(len(name)):
        if best[i] is None:
            continue
        for candidate in names:
            j = i + len(candidate)
            if name.startswith(candidate, i) and best[j] is None:
                best[j] = [*best[i], candidate]  # type: ignore[misc]
    found = best[len(name)]
    return found if found is not None and len(found) >= 2 else None


def sweep_domains(claim: Claim) -> list[Any]:
    """The domain of each variable of a swept fact: its range (or choices), base units."""
    from deck.equivalence import Domain
    from deck.instances import param_values

    out = []
    for spec in claim.where:
        if spec.formula is not None:
            continue
        values = param_values(spec)
        if values is None:
            assert spec.range is not None
            factor = units.lookup_unit(spec.unit).factor if units.is_unit(spec.unit) else 1
            lo, hi = spec.range[0] * factor, spec.range[1] * factor
        else:
            numbers = [v for v in values if isinstance(v, int | float)]
            if not numbers:
                continue
            lo, hi = min(numbers), max(numbers)
        if lo == hi:
            hi = lo + 1  # a single value: any neighbourhood keeps the formula's shape
        out.append(Domain(spec.name, float(lo), float(hi), spec.integer))
    return out


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


# ----------------------------------------------------------------------------- instances


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
    from deck.facts import CHOICE_REF
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


def answer_span_values(card: Card, solution: Any) -> dict[str, Value]:
    """``answer`` and ``result.FIELD`` as span values, from a solved instance."""
    out: dict[str, Value] = {}
    if solution is None:
        return out
    if card.type is CardType.FORMULA and solution.formula:
        out["answer"] = Value(solution.formula, units.Dim.TEXT, formula=solution.formula)
    elif solution.value is not None:
        out["answer"] = Value(solution.value, solution.dim)
    for key, value in (solution.result or {}).items():
        if isinstance(value, int | float | str) and not isinstance(value, bool):
            out[f"result.{key}"] = Value(value, None)
    return out


def answer_expect_failures(
    card: Card, instance: Any, solution: Any, env: Mapping[str, Any], point: str
) -> list[Failure]:
    a = card.answer
    if card.type is not CardType.NUMERIC or a is None or a.expect is None or solution is None:
        return []
    try:
        expected = closed_form(a.expect, {**env, **instance.values})
    except DeckError as exc:
        return [Failure(card.id, a.location, "answer.expect", f"{point}{exc}")]
    tol = a.expect_tolerance or EXPECT_TOLERANCE
    if solution.value is None or tol.accepts(solution.value, expected):
        return []
    return [
        Failure(
            card.id,
            a.location,
            "answer",
            f"{point}the computed answer and its closed form (answer.expect) disagree",
            show(expected, solution.dim),
            show(solution.value, solution.dim),
        )
    ]


# ----------------------------------------------------------------------------- formulas


def variable_samples(card: Card, seed: int = 0, n: int = FORMULA_POINTS) -> list[dict[str, float]]:
    """Points spread over every variable's domain: its ends, powers of two and random draws."""
    rng = random.Random(f"proof:{card.id}:{seed}")
    points: list[dict[str, float]] = []
    for k in range(n):
        point = {}
        for v in card.variables:
            lo, hi = v.low, v.high
            if k == 0:
                x = lo
            elif k == 1:
                x = hi
            elif lo > 0 and k % 2 == 0:
                x = math.exp(rng.uniform(math.log(lo), math.log(hi)))  # every decade
            else:
                x = rng.uniform(lo, hi)
            point[v.name] = float(round(x)) if v.integer else x
        points.append(point)
    return points


def prove_formula_answer(card: Card, registry: Registry) -> list[Failure]:
    """A formula card's answer must equal its executable over the variables' domains."""
    from deck.checking import resolve_value
    from deck.formula import FormulaError, parse

    a = card.answer
    if card.type is not CardType.FORMULA or a is None or a.computation is None:
        return []
    comp = a.computation
    expr = parse(a.formula or "")
    tol = a.tolerance if a.tolerance.rel > 1e-6 else EXPECT_TOLERANCE
    for point in variable_samples(card):
        shown = {k: units.format_number(v) for k, v in point.items()}
        env = {k: (int(v) if float(v).is_integer() else v) for k, v in point.items()}
        try:
            args = {k: resolve_value(v, env, shown) for k, v in comp.args}
            actual = float(registry.call(comp.run, args)[comp.field])
            expected = expr.evaluate(point)
        except (DeckError, FormulaError, TypeError, ValueError) as exc:
            return [Failure(card.id, a.location, "answer", f"at {shown}: {exc}")]
        if not tol.accepts(actual, expected):
            return [
                Failure(
                    card.id,
                    a.location,
                    "answer",
                    f"at {', '.join(f'{k}={v}' for k, v in shown.items())}: the formula and "
                    f"{comp.run}.{comp.field} disagree",
                    units.format_number(expected, 8),
                    units.format_number(actual, 8),
                )
            ]
    return []
