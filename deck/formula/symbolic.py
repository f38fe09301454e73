"""Formulas beyond exact rational arithmetic: 50-digit values and symbolic proofs.

:func:`compare_numeric` compares two formulas at points with mpmath at 50 significant digits
(a witness where they differ); :func:`prove` asks sympy whether their difference is
identically zero (or a non-zero constant too small for 50 digits); :func:`to_sympy` builds the
sympy expression of a parse tree node by node — user text never reaches ``sympify``,
``parse_expr`` or ``eval``. :mod:`deck.formula.equivalence` calls these only for formulas with
``log2``, ``sqrt``, ``pi`` and the like, so mpmath and sympy are imported only then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from deck.formula.tree import BinOp, Call, Const, Expr, Neg, Num, Var
from deck.formula.verdict import Domain, Equivalence, Inexact, Undefined, different

__all__ = ["NUMERIC_DIGITS", "compare_numeric", "prove", "to_sympy"]

NUMERIC_DIGITS = 50
NUMERIC_REL = Fraction(1, 10**30)  # a mismatch at 50 digits is far above this


# ----------------------------------------------------------------------------- one walk


@dataclass(frozen=True)
class _Algebra:
    """How one number system reads a parse tree's leaves and operators: :func:`_fold` walks
    the tree once for both the 50-digit values and the sympy expressions."""

    number: Callable[[float], Any]  # a literal, from its exact decimal text
    variable: Callable[[str], Any]
    constant: Callable[[str], Any]  # pi or e
    divide: Callable[[Any, Any], Any]
    power: Callable[[Any, Any], Any]
    call: Callable[[str, list[Any]], Any]


def _fold(expr: Expr, algebra: _Algebra) -> Any:
    if isinstance(expr, Num):
        return algebra.number(expr.value)
    if isinstance(expr, Var):
        return algebra.variable(expr.name)
    if isinstance(expr, Const):
        return algebra.constant(expr.name)
    if isinstance(expr, Neg):
        return -_fold(expr.operand, algebra)
    if isinstance(expr, BinOp):
        a, b = _fold(expr.left, algebra), _fold(expr.right, algebra)
        if expr.op == "+":
            return a + b
        if expr.op == "-":
            return a - b
        if expr.op == "*":
            return a * b
        if expr.op == "/":
            return algebra.divide(a, b)
        return algebra.power(a, b)
    assert isinstance(expr, Call)
    return algebra.call(expr.name, [_fold(arg, algebra) for arg in expr.args])


# ----------------------------------------------------------------------------- 50 digits


def _mp_algebra(env: Mapping[str, Fraction], mp: Any) -> _Algebra:
    def divide(a: Any, b: Any) -> Any:
        if b == 0:
            raise Undefined
        return a / b

    def power(a: Any, b: Any) -> Any:
        if (a == 0 and b < 0) or (a < 0 and b != int(b)):
            raise Undefined
        if abs(b * mp.log(abs(a))) > 10**6 if a != 0 else False:
            raise Undefined  # beyond any sensible magnitude: no value here
        return mp.power(a, b)

    return _Algebra(
        number=lambda value: mp.mpf(repr(value)),
        variable=lambda name: mp.mpf(env[name].numerator) / env[name].denominator,
        constant=lambda name: +mp.pi if name == "pi" else mp.e,
        divide=divide,
        power=power,
        call=lambda name, args: _numeric_call(name, args, mp),
    )


def _numeric(expr: Expr, env: Mapping[str, Fraction], mp: Any) -> Any:
    return _fold(expr, _mp_algebra(env, mp))


def _numeric_call(name: str, args: list[Any], mp: Any) -> Any:
    x = args[0]
    if name in ("log2", "log10", "ln", "log") and x <= 0:
        raise Undefined
    if name == "log" and len(args) == 2:
        if args[1] <= 0 or args[1] == 1:
            raise Undefined
        return mp.log(x) / mp.log(args[1])
    if name == "sqrt" and x < 0:
        raise Undefined
    if name == "exp" and x > 10**6:
        raise Undefined
    table = {
        "log2": lambda: mp.log(x, 2),
        "log10": lambda: mp.log10(x),
        "ln": lambda: mp.log(x),
        "log": lambda: mp.log(x),
        "sqrt": lambda: mp.sqrt(x),
        "exp": lambda: mp.exp(x),
        "min": lambda: min(args),
        "max": lambda: max(args),
        "abs": lambda: abs(x),
        "ceil": lambda: mp.ceil(x),
        "floor": lambda: mp.floor(x),
    }
    return table[name]()


# ----------------------------------------------------------------------------- symbolic


@functools.lru_cache(maxsize=256)
def prove(expected: Expr, given: Expr, domains: tuple[Domain, ...]) -> bool | None:
    """What sympy proves about ``given - expected`` on the domains: True (identically zero),
    False (a non-zero constant: a term too small for 50 digits, like ``+ 1e-40``) or None
    (undecided). Cached: it does not depend on the seed, and simplifying is slow."""
    if sum(1 for _ in expected._walk()) + sum(1 for _ in given._walk()) > 300:
        return None  # simplify is not bounded in time: leave big inputs to the numbers
    import sympy

    symbols = {
        d.name: sympy.Symbol(d.name, positive=d.low > 0, integer=d.integer or None, real=True)
        for d in domains
    }
    try:
        difference = to_sympy(given, symbols, sympy) - to_sympy(expected, symbols, sympy)
        difference = sympy.simplify(sympy.expand_log(difference, force=False))
    except (Inexact, ArithmeticError, TypeError, ValueError, RecursionError):
        return None
    if difference == 0:
        return True
    if difference.is_number and difference.is_zero is False:
        return False
    return None


def to_sympy(expr: Expr, symbols: Mapping[str, Any], sympy: Any) -> Any:
    """The sympy expression of a parse tree, built node by node (never from text)."""

    def power(a: Any, b: Any) -> Any:
        if b.is_number and abs(b) > 64:
            raise Inexact  # 9^9^9 would be expanded exactly; leave it to the numbers
        return sympy.Pow(a, b)

    return _fold(
        expr,
        _Algebra(
            number=lambda value: sympy.Rational(repr(value)),
            variable=lambda name: symbols[name],
            constant=lambda name: sympy.pi if name == "pi" else sympy.E,
            divide=lambda a, b: a / b,
            power=power,
            call=lambda name, args: _sympy_call(name, args, sympy),
        ),
    )


def _sympy_call(name: str, args: list[Any], sympy: Any) -> Any:
    x = args[0]
    table = {
        "log2": lambda: sympy.log(x) / sympy.log(2),
        "log10": lambda: sympy.log(x) / sympy.log(10),
        "ln": lambda: sympy.log(x),
        "log": lambda: sympy.log(x) / sympy.log(args[1]) if len(args) == 2 else sympy.log(x),
        "sqrt": lambda: sympy.sqrt(x),
        "exp": lambda: sympy.exp(x),
        "min": lambda: sympy.Min(*args),
        "max": lambda: sympy.Max(*args),
        "abs": lambda: sympy.Abs(x),
        "ceil": lambda: sympy.ceiling(x),
        "floor": lambda: sympy.floor(x),
    }
    return table[name]()


def compare_numeric(a: Expr, b: Expr, points: Sequence[Mapping[str, Fraction]]) -> Equivalence:
    import mpmath

    checked = 0
    witness = None
    ratios: list[Any] = []
    with mpmath.workdps(NUMERIC_DIGITS):
        tolerance = mpmath.mpf(NUMERIC_REL.numerator) / NUMERIC_REL.denominator
        for point in points:
            try:
                va = _numeric(a, point, mpmath)
            except (Undefined, ValueError, ZeroDivisionError, OverflowError):
                continue
            try:
                vb = _numeric(b, point, mpmath)
            except (Undefined, ValueError, ZeroDivisionError, OverflowError):
                vb = None
            checked += 1
            same = vb is not None and abs(va - vb) <= tolerance * max(abs(va), abs(vb))
            ratios.append(vb / va if vb is not None and va != 0 else None)
            if witness is None and not same:
                witness = (point, va, vb)
        if checked == 0:
            return Equivalence(False, "numeric", "the expected formula has no value at any point")
        if witness is None:
            return Equivalence(
                True, "numeric", f"equal at {checked} points to {NUMERIC_DIGITS} digits", given=b
            )
        factor = None
        if ratios and all(r is not None for r in ratios):
            first = ratios[0]
            if all(abs(r - first) <= tolerance * abs(first) for r in ratios):
                candidate = Fraction(str(mpmath.nstr(first, 30))).limit_denominator(10**6)
                if abs(first - mpmath.mpf(candidate.numerator) / candidate.denominator) <= (
                    tolerance * abs(first)
                ):
                    factor = candidate
        point, va, vb = witness
        return different("numeric", point, float(va), None if vb is None else float(vb), factor, b)
