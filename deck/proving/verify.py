"""Proving a collection: every ``verify`` claim at every sweep point, every computed card for several seeds.

A card whose text states a wrong quantity fails here: its claim's expected value
differs from what the executable computes. Instances are also checked end to end:
drawn, solved, rendered with no placeholder left, and the exact answer as shown must
be accepted by the checker.
"""

from __future__ import annotations

import math
import re
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from deck.answers.checking import CheckError, check_answer, solve
from deck.base.errors import DeckError
from deck.base.forking import forked_map
from deck.cards.constraints import MIN_INSTANCES
from deck.cards.facts import constant_values, evaluate_in, resolve_value
from deck.cards.instances import Instance, draw, instance_count, render_front, render_options, sweep
from deck.cards.model import Card, CardType, Claim, Collection
from deck.cards.placeholders import placeholders
from deck.cards.registry import Registry
from deck.cards.spans import SpanKind, find_spans
from deck.proving.explanations import FAIL_ON_UNTRACED, explanation_failures
from deck.proving.failures import Failure
from deck.proving.heldfields import result_span_failures
from deck.proving.proofcache import ProofCache, Proven
from deck.proving.proofs import prove_instance, unproven_failures
from deck.proving.proofs.answers import prove_formula_answer
from deck.proving.proofs.facts import agrees, expected_value, show
from deck.proving.provenance import check_constants

DEFAULT_SEEDS = 5
__all__ = ["DEFAULT_SEEDS", "CheckReport", "Failure", "check_claim", "run_checks"]


@dataclass(frozen=True)
class CheckReport:
    cards: int
    claims: int
    claim_points: int
    instances: int
    failures: tuple[Failure, ...]
    remembered: int = 0  # cards counted from the proof cache, not proven in this run

    @property
    def errors(self) -> tuple[Failure, ...]:
        return tuple(f for f in self.failures if not f.warning)

    @property
    def warnings(self) -> tuple[Failure, ...]:
        return tuple(f for f in self.failures if f.warning)

    @property
    def ok(self) -> bool:
        return not self.errors


def run_checks(
    collection: Collection,
    registry: Registry | None,
    *,
    seeds: int = DEFAULT_SEEDS,
    on_card: Callable[[int, int, Card], Any] | None = None,
    jobs: int = 1,
    cache: ProofCache | None = None,
    explanations: bool = FAIL_ON_UNTRACED,
) -> CheckReport:
    """Prove every card of ``collection``. With ``jobs`` > 1 (and ``fork`` available) the
    cards are shared among that many worker processes; the report is the same, in order.
    With ``explanations``, a number of an executable's explanation that traces to no
    proven value fails too (:func:`deck.proving.explanations.explanation_failures`).

    With a ``cache``, a card proven clean before (same card, seeds and code) is counted
    from it instead of proven again, and every card proven clean now is remembered."""
    cards = collection.cards
    keys = (
        [cache.key(card, seeds, explanations=explanations) for card in cards]
        if cache is not None
        else []
    )
    known = [cache.get(key) for key in keys] if cache is not None else [None] * len(cards)
    todo = [i for i, proven in enumerate(known) if proven is None]
    workers = min(jobs, len(todo) // MIN_CARDS_PER_JOB)

    def progress(done: int, total: int, index: int) -> None:
        if on_card is not None:
            on_card(done, total, cards[todo[index]])

    proven_now = forked_map(
        lambda i: check_card(cards[i], registry, seeds, explanations=explanations),
        todo,
        workers,
        on_result=progress,
        chunksize=4,
    )
    outcomes: list[_CardOutcome] = [
        _CardOutcome(p.claims, p.points, p.instances, ()) if p is not None else _PENDING
        for p in known
    ]
    for i, outcome in zip(todo, proven_now, strict=True):
        outcomes[i] = outcome
        if cache is not None and not outcome.failures:
            cache.put(keys[i], Proven(outcome.claims, outcome.points, outcome.instances))
    # The cited constants' quotes, checked every run (cheap, and not part of any card's key).
    provenance = check_constants(registry.constants.values()) if registry is not None else ()
    return CheckReport(
        len(cards),
        sum(o.claims for o in outcomes),
        sum(o.points for o in outcomes),
        sum(o.instances for o in outcomes),
        (*provenance, *(f for o in outcomes for f in o.failures)),
        remembered=len(cards) - len(todo),
    )


@dataclass(frozen=True)
class _CardOutcome:
    claims: int
    points: int
    instances: int
    failures: tuple[Failure, ...]


_PENDING = _CardOutcome(0, 0, 0, ())


def check_card(
    card: Card, registry: Registry | None, seeds: int, *, explanations: bool = FAIL_ON_UNTRACED
) -> _CardOutcome:
    """Every proof of one card: its text, claims, answer, instance space and instances (and,
    with ``explanations``, the numbers of its executable's explanations)."""
    failures = list(unproven_failures(card, registry))
    failures.extend(result_span_failures(card, registry))
    if explanations:
        failures.extend(explanation_failures(card, registry))
    claims = points = 0
    for claim_index, claim in enumerate(card.verify):
        claims += 1
        if claim.where:
            n, fails = check_claim(card, claim_index, claim, registry)
            points += n
            failures.extend(fails)
    if registry is not None:
        failures.extend(prove_formula_answer(card, registry))
    failures.extend(_instance_space(card, registry))
    n, fails = check_instances(card, registry, seeds)
    points += n * sum(1 for c in card.verify if not c.where)
    failures.extend(fails)
    return _CardOutcome(claims, points, n, tuple(failures))


MIN_CARDS_PER_JOB = 40  # below this a worker's start-up is not worth it


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
    comp = claim.computation
    dim = None
    if comp is not None:
        fdef = registry.get(comp.run).field_(comp.field)
        dim = fdef.dimension if fdef else None
    constants = constant_values(registry)
    for values, shown in sweep(claim.where):
        n += 1
        env = ChainMap(values, constants)  # hundreds of constants: looked up, not copied
        try:
            if comp is not None:
                args = {k: resolve_value(v, values, shown) for k, v in comp.args}
                actual = registry.call(comp.run, args)[comp.field]
            else:
                assert claim.expr is not None
                actual = evaluate_in(claim.expr, env)
            expected = expected_value(claim, env, dim)
        except DeckError as exc:
            failures.append(
                Failure(card.id, claim.location, what, f"at {_point_text(shown)}: {exc}")
            )
            if len(failures) >= 3:  # the same fault at every point: three say enough
                break
            continue
        if not agrees(actual, expected, claim.tolerance):
            failures.append(
                Failure(
                    card.id,
                    claim.location,
                    what,
                    f"at {_point_text(shown)}" if shown else "",
                    show(expected, dim),
                    show(actual, dim),
                )
            )
            if len(failures) >= 3:  # a wrong claim fails everywhere; three points say enough
                break
    return n, failures


def _instance_space(card: Card, registry: Registry | None) -> list[Failure]:
    """A parametric card must offer ``MIN_INSTANCES`` distinct instances (or none to vary)."""
    if not card.params:
        return []
    count = instance_count(card, registry)
    if count is None or count >= MIN_INSTANCES or (count == 1 and not card.constraints):
        return []
    if count == 0:
        message = "no instance satisfies the constraints"
    else:
        message = (
            f"only {count} distinct instance(s) (at least {MIN_INSTANCES}, so answers are "
            "computed, not remembered): add values or widen ranges"
        )
    return [Failure(card.id, card.location, "params", message, warning=card.unproven == "warn")]


def check_instances(card: Card, registry: Registry | None, seeds: int) -> tuple[int, list[Failure]]:
    """Draw ``seeds`` instances and check each end to end."""
    if not card.params:
        seeds = 1  # every seed draws the same values: one instance proves them all
    failures: list[Failure] = []
    n = 0
    for seed in range(seeds):
        n += 1
        try:
            inst = draw(card, seed, registry, all_facts=True)
        except DeckError as exc:
            failures.append(Failure(card.id, card.location, f"params (seed {seed})", str(exc)))
            break
        failures.extend(_unfilled(card, inst))
        try:
            sol = solve(card, inst, registry)
        except (CheckError, DeckError) as exc:
            failures.append(Failure(card.id, card.location, f"answer (seed {seed})", str(exc)))
            break
        if registry is not None:
            failures.extend(prove_instance(card, inst, registry, sol))
        if card.type is CardType.BASIC:
            left = _left_spans(sol.back)
            if left:
                failures.append(Failure(card.id, card.location, "back", left))
            if failures:
                break
            continue
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
            if _left_spans(sol.back):
                failures.append(Failure(card.id, card.location, "back", _left_spans(sol.back)))
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


def _left_spans(text: str) -> str:
    """A message naming the first rendered span the text could not show, or ''."""
    spans, _ = find_spans(text)
    left = [s for s in spans if s.kind is SpanKind.RENDER]
    return f"span {{={left[0].ref}}} has no value to show" if left else ""


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
        elif _left_spans(text):
            out.append(Failure(card.id, card.location, field, _left_spans(text)))
    return out
