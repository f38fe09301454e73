"""Constraints on draws: what makes an instance of a card realistic.

A card lists ``constraints:`` — comparisons over its parameters, facts and constants::

    constraints:
      - "context <= trained_context"        # within the model's trained context (a fact)
      - "heads / tp == floor(heads / tp)"   # tp divides the heads: a valid TP degree
      - "per_gpu <= h200_reported"          # fits on the largest GPU

Drawing rejects instances that break one (deterministically per seed, a bounded number of
tries), and :func:`count_instances` tells ``check`` how many distinct instances a card can
show: a parametric card needs :data:`MIN_INSTANCES`, so its answers cannot be memorised.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from deck.base.errors import DeckError

MIN_INSTANCES = 20  # distinct instances a parametric card must offer
MAX_DRAW_TRIES = 500  # rejected draws before a seed gives up
MAX_ENUMERATION = 4096  # parameter combinations counted one by one; beyond, sampled

_COMPARISON = re.compile(r"(<=|>=|==|!=|<|>|≤|≥|≠)")
_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<=": lambda a, b: a <= b * (1 + 1e-12),
    "≤": lambda a, b: a <= b * (1 + 1e-12),
    ">=": lambda a, b: a * (1 + 1e-12) >= b,
    "≥": lambda a, b: a * (1 + 1e-12) >= b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "==": lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12),
    "!=": lambda a, b: not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12),
    "≠": lambda a, b: not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12),
}


class ConstraintError(DeckError):
    """A constraint that cannot be read or evaluated."""


@dataclass(frozen=True)
class Constraint:
    """``left OP right``: two formulas and a comparison."""

    text: str
    left: str
    op: str
    right: str

    @property
    def names(self) -> set[str]:
        from deck.formula import parse

        return set(parse(self.left).variables | parse(self.right).variables)

    def holds(self, env: Mapping[str, float]) -> bool:
        from deck.formula import evaluate

        return _OPERATORS[self.op](evaluate(self.left, env), evaluate(self.right, env))


def parse_constraint(text: str) -> Constraint:
    """Read ``"a <= b"``; ConstraintError unless it is exactly one comparison of two formulas."""
    from deck.formula import FormulaError, parse

    parts = _COMPARISON.split(text)
    if len(parts) != 3:
        raise ConstraintError(
            f"{text!r}: a constraint compares two expressions with one of <= < >= > == !="
        )
    left, op, right = (p.strip() for p in parts)
    for side in (left, right):
        try:
            parse(side)
        except FormulaError as exc:
            raise ConstraintError(f"{text!r}: {exc}") from None
    return Constraint(text, left, op, right)


def satisfied(constraints: tuple[Constraint, ...], env: Mapping[str, Any]) -> bool:
    """Whether every constraint holds for the numeric values of ``env``."""
    if not constraints:
        return True
    names = set().union(*(c.names for c in constraints))
    numbers = {
        k: float(v)
        for k in names
        if k in env and isinstance(v := env[k], int | float) and not isinstance(v, bool)
    }
    return all(c.holds(numbers) for c in constraints)


def count_instances(
    axes: list[list[Any]],
    accept: Callable[[tuple[Any, ...]], bool],
    *,
    limit: int = MIN_INSTANCES,
) -> int | None:
    """How many combinations of ``axes`` (one value list per parameter) ``accept`` takes,
    counting up to ``limit`` (enough to pass); None when the space is too large to count."""
    total = math.prod(len(a) for a in axes)
    if total > MAX_ENUMERATION:
        return None
    found = 0
    for combo in itertools.product(*axes):
        if accept(combo):
            found += 1
            if found >= limit:
                break
    return found
