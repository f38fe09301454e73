"""What comparing two formulas decides: the variable domains, the verdict
(:class:`Equivalence`) with its witness, and the two reasons a value can be missing.

Shared by :mod:`deck.formula.equivalence` (exact rational comparison) and
:mod:`deck.formula.symbolic` (50-digit and symbolic comparison), so neither imports the other's
internals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from deck.formula.tree import Expr


class VariableLike(Protocol):
    name: str
    low: float
    high: float
    integer: bool


@dataclass(frozen=True)
class Domain:
    """Where a variable's values come from: ``low..high``, whole numbers when ``integer``."""

    name: str
    low: float = 1.0
    high: float = 100.0
    integer: bool = False

    @classmethod
    def of(cls, variable: VariableLike | Domain) -> Domain:
        return cls(variable.name, variable.low, variable.high, variable.integer)


@dataclass(frozen=True)
class Equivalence:
    """The outcome of comparing ``given`` with ``expected``; truthy when they are the same.

    ``method`` says how it was decided: ``identical`` (the same parse tree), ``exact``
    (rational arithmetic at the sample points),
    ``symbolic`` (sympy simplified the difference to zero) or ``numeric`` (50-digit values).
    When they differ, ``point`` is a witness, ``expected_value``/``given_value`` the values
    there, and ``factor`` the constant ratio given/expected when there is one (``2`` for a
    formula twice the answer), else None.
    """

    equal: bool
    method: str
    reason: str
    point: Mapping[str, float] | None = None
    expected_value: float | None = None
    given_value: float | None = None
    factor: Fraction | None = None
    given: Expr | None = field(default=None, compare=False)

    def __bool__(self) -> bool:
        return self.equal


class Inexact(Exception):
    """A value that exact rational arithmetic cannot represent (log2(3), pi)."""


class Undefined(Exception):
    """No value at this point (division by zero, log of a non-positive number)."""


def float_point(point: Mapping[str, Fraction]) -> dict[str, float]:
    return {k: float(v) for k, v in point.items()}


def describe_point(point: Mapping[str, float]) -> str:
    return ", ".join(f"{k} = {readable(v)}" for k, v in point.items())


def readable(value: float) -> str:
    """A sample value as people write it: ``16,777,216`` (a power of two as ``2^24``
    beside it), ``0.375``; never ``1.67772e+07``."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        whole = int(value)
        text = f"{whole:,}"
        if whole >= 1024 and whole & (whole - 1) == 0:
            text += f" (2^{whole.bit_length() - 1})"
        return text
    return f"{value:.6g}"


def as_float(value: Fraction) -> float:
    """``value`` as a float; beyond the float range, infinity of its sign (a typed
    ``1e308*1e308`` is exact as a fraction, and only too large to show)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


MAX_FACTOR_DIGITS = 15  # "it is 3× the expected value": a longer factor is shown as values


def different(
    method: str,
    point: Mapping[str, Fraction],
    va: float,
    vb: float | None,
    factor: Fraction | None,
    given: Expr,
) -> Equivalence:
    where = describe_point(float_point(point))
    if vb is None:
        reason = f"at {where} it has no value"
    elif (
        factor is not None
        and factor not in (0, 1)
        and max(len(str(abs(factor.numerator))), len(str(factor.denominator))) <= MAX_FACTOR_DIGITS
    ):
        reason = f"it is {_ratio_text(factor)} the expected value everywhere"
    else:
        reason = f"at {where} it is {readable(vb)} where the expected value is {readable(va)}"
    return Equivalence(False, method, reason, float_point(point), va, vb, factor, given)


def _ratio_text(factor: Fraction) -> str:
    if factor.denominator == 1:
        return f"{factor.numerator}×"
    return f"{factor.numerator}/{factor.denominator} of"
