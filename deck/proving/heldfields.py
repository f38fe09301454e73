"""Which fields of a computed answer's run are proven at an instance, and the card text's
``{=result.FIELD}`` spans held to them.

A numeric card's back may show other outputs of its answer's run (``{=result.gradients|GiB}``).
So may a ``{result.FIELD}`` placeholder. Such a field is *held* at an instance when

- it is the answer's own field (the answer is held to its ``expect``), or
- a claim of the card runs the same executable for that field **with the same arguments at
  that instance** (after the executable's defaults are bound) and its two sides share no
  formula (:mod:`deck.proving.independence`): a claim on the same field of another
  configuration, or one that re-types the executable's formula, does not prove what this
  instance shows.

A field that no claim holds may still show a figure that is proven another way: a parameter
or argument the card gives, a cited constant of its unit dimension, or a fact of the card
whose own proof is independent, equal within display rounding (:func:`close`). Anything else
is a run output shown as though proven: :func:`result_span_failures` fails it at its span.

The small tracing helpers (:func:`close`, :func:`unit_dim`, :func:`instance_constants`,
:func:`given_arguments`) live here and :mod:`deck.proving.explanations` reads them, so the
two modules import in one direction only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from deck import units
from deck.answers.checking import CheckError, Solution, resolve_args, solve
from deck.base.errors import DeckError
from deck.cards.instances import Instance, draw
from deck.cards.model import Card, CardType
from deck.cards.placeholders import PLACEHOLDER
from deck.cards.registry import Registry
from deck.cards.spancheck import expr_names
from deck.cards.spans import SpanKind, find_spans
from deck.formula import FormulaError
from deck.proving.failures import Failure, text_location
from deck.proving.independence import card_independence

_PREFIX = "result."
# Shown figures round to 3–4 significant digits ("3.4 µs", "80.00 GiB"): a match within 2%
# is the same figure; a wrong figure in an explanation is off by far more.
_REL = 0.02
_UNIT_DIMS = frozenset({units.Dim.BYTES, units.Dim.RATE, units.Dim.SECONDS})


def given_arguments(names: Iterable[str], resolved: Mapping[str, Any] | None) -> list[float]:
    """The figures the card passes to its answer's run at the instance, resolved ("size:
    4KiB", "latency: 0s", "size: = 2*S"): givens of the question, like its parameters. Only
    the arguments the card writes count, not the executable's defaults; a word ("nvlink")
    is not a figure."""
    if not resolved:
        return []
    written = set(names)
    return [
        float(v)
        for k, v in resolved.items()
        if k in written and isinstance(v, int | float) and not isinstance(v, bool)
    ]


def unit_dim(dim: units.Dim | None) -> units.Dim | None:
    """``dim`` where a unit names it (bytes, a rate, seconds); None for counts and ratios."""
    return dim if dim in _UNIT_DIMS else None


def instance_constants(registry: Registry) -> list[tuple[float, units.Dim | None]]:
    """The cited constants as (value, dimension): "63.83 GB/s" is known with its dimension, not
    as a parameter count that happens to read 63.83 G (hundreds of constants make such
    coincidences common)."""
    return [
        (float(c.value), unit_dim(c.dimension))
        for c in registry.constants.values()
        if c.cited and isinstance(c.value, int | float) and not isinstance(c.value, bool)
    ]


def close(a: float, b: float) -> bool:
    """The same figure within display rounding."""
    return math.isclose(a, b, rel_tol=_REL, abs_tol=0.0) or (a == 0 == b)


def independent_claims(card: Card, registry: Registry | None) -> frozenset[int]:
    """Indexes of the card's claims whose two sides share no formula."""
    out = set()
    for pair in card_independence(card, registry).pairs:
        if pair.what.startswith("verify[") and pair.independent:
            out.add(int(pair.what[len("verify[") : -1]))
    return frozenset(out)


def held_fields(
    card: Card,
    registry: Registry | None,
    instance: Instance,
    solution: Solution,
    independent: frozenset[int] | None = None,
) -> frozenset[str]:
    """The fields of the answer's run that ``instance`` has proven (see the module doc)."""
    a = card.answer
    if a is None or a.computation is None or registry is None or solution.args is None:
        return frozenset()
    comp = a.computation
    if comp.run not in registry:
        return frozenset()
    executable = registry.get(comp.run)
    chosen = independent_claims(card, registry) if independent is None else independent
    held = {comp.field}
    for i, claim in enumerate(card.verify):
        c = claim.computation
        if i not in chosen or c is None or claim.where or claim.vary or c.run != comp.run:
            continue
        try:
            args = executable.bind(resolve_args(c, instance))
        except DeckError:
            continue
        if _same(args, solution.args):
            held.add(c.field)
    return frozenset(held)


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if a.keys() != b.keys():
        return False
    for k, v in a.items():
        w = b[k]
        if isinstance(v, float | int) and isinstance(w, float | int):
            if float(v) != float(w):
                return False
        elif v != w:
            return False
    return True


def fact_values(instance: Instance, names: Iterable[str]) -> list[float]:
    """The numeric values at ``instance`` of the facts ``names``."""
    wanted = set(names)
    return [
        float(f.value)
        for name, f in instance.facts.items()
        if name in wanted and isinstance(f.value, int | float) and not isinstance(f.value, bool)
    ]


def independent_fact_names(card: Card, independent: frozenset[int]) -> set[str]:
    """The card's facts whose own proof is independent (``independent``: claim indexes)."""
    return {c.name for i, c in enumerate(card.verify) if c.name and i in independent}


def solved_instances(
    card: Card, registry: Registry | None, seeds: Iterable[int]
) -> Iterator[tuple[Instance, Solution]]:
    """The card's instances at ``seeds`` (one, for a card without parameters) with their
    solutions; an instance that does not solve is left out (the instance checks report why)."""
    for seed in seeds if card.params else (0,):
        try:
            inst = draw(card, seed, registry, all_facts=True)
            yield inst, solve(card, inst, registry)
        except (CheckError, DeckError):
            continue


def instance_givens(card: Card, instance: Instance, solution: Solution) -> list[float]:
    """What an instance gives as proven: the answer, the parameters' values and the
    arguments the card writes for its answer's run (:func:`given_arguments`)."""
    a = card.answer
    written = [k for k, _ in a.computation.args] if a is not None and a.computation else []
    known = [solution.value] if solution.value is not None else []
    known += [v for v in instance.values.values() if isinstance(v, int | float)]
    return known + given_arguments(written, solution.args)


def result_spans(text: str) -> Iterator[tuple[int, str]]:
    """(offset, field) of every result field a span or a ``{result.FIELD}`` placeholder of
    ``text`` shows or checks against."""
    for m in PLACEHOLDER.finditer(text):
        if m.group(1).startswith(_PREFIX):
            yield m.start(), m.group(1)[len(_PREFIX) :]
    spans, _ = find_spans(text)
    for span in spans:
        if span.kind is SpanKind.RENDER:
            names = {span.ref}
        else:
            try:
                names = expr_names(span.expr)
            except FormulaError:
                continue
        for name in sorted(names):
            if name.startswith(_PREFIX):
                yield span.start, name[len(_PREFIX) :]


def unheld_result_fields(
    card: Card, registry: Registry | None, seeds: Iterable[int] = (0, 1)
) -> dict[str, tuple[int, int]]:
    """The result fields the card's back shows (or checks against) that are neither held nor
    showing a proven figure at some drawn instance: field → (seed, offset of its span)."""
    a = card.answer
    if registry is None or card.type is not CardType.NUMERIC or a is None:
        return {}
    if a.computation is None or not card.back:
        return {}
    spans = list(result_spans(card.back))
    if not spans:
        return {}
    independent = independent_claims(card, registry)
    # A cited constant stands for a span only in a dimension a unit names: a count of 32
    # matches dozens of unrelated constants, 2 B per parameter matches bf16_bytes.
    cited = [(k, d) for k, d in instance_constants(registry) if d is not None]
    facts = independent_fact_names(card, independent)
    run = registry.get(a.computation.run)
    out: dict[str, tuple[int, int]] = {}
    for inst, sol in solved_instances(card, registry, seeds):
        held = held_fields(card, registry, inst, sol, independent)
        known = instance_givens(card, inst, sol) + fact_values(inst, facts)
        result = sol.result or {}
        for offset, field in spans:
            if field in held or field in out or field not in result:
                continue
            value = result[field]
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue  # a word the run chose ("small"): the card's choices teach it
            fdef = run.field_(field)
            dim = unit_dim(fdef.dimension if fdef is not None else None)
            if any(close(float(value), k) for k in known) or any(
                close(float(value), k) for k, d in cited if d == dim
            ):
                continue
            out[field] = (inst.seed, offset)
    return out


def result_span_failures(
    card: Card, registry: Registry | None, seeds: Iterable[int] = (0, 1)
) -> list[Failure]:
    """A failure for each ``{=result.FIELD}`` span of the card's back whose field is not held
    at a drawn instance and whose shown value traces to nothing proven."""
    a = card.answer
    out: list[Failure] = []
    for field, (seed, offset) in unheld_result_fields(card, registry, seeds).items():
        assert a is not None and a.computation is not None
        out.append(
            Failure(
                card.id,
                text_location(card, "back", card.back, offset),
                "back",
                f"span {{=result.{field}}} shows a run output that no claim derives another "
                f"way (seed {seed}): add a claim on {a.computation.run}.{field} with the "
                "answer's arguments, held to a simulation, a witness or a published figure",
                warning=card.unproven == "warn",
            )
        )
    return out
