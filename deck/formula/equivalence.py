"""Deciding whether two formulas are the same function of a card's variables.

Provides :func:`equivalent` (expected vs given → :class:`Equivalence`, with the reason and a
witness point when they differ), :func:`substitute` (put an expression in for a variable) and
:func:`sample_points` (the points a comparison uses).

Why not floats at random points: a term that is small where the points fall (a latency term
next to a bandwidth term) hides inside the rounding tolerance, so a wrong latency term was
accepted in most reviews. Here nothing depends on the size of a term:

* **Exact rationals first.** Numbers and variable values are :class:`fractions.Fraction`, so
  ``+ - * /``, whole powers, ``min max abs ceil floor``, and ``log2``/``sqrt``/``exp`` where
  the result is rational (``log2(8)``, ``sqrt(9/4)``) are computed without rounding: two
  expressions differ at a point iff their values differ. For rational functions a difference
  that is not identically zero vanishes only on a thin set, which random points from a huge
  set almost surely miss (Schwartz–Zippel); ``min``/``max``/``ceil``/``floor`` are piecewise,
  so they are compared at designed points as well: every corner of the variables' domain box
  (in log space each term of a sum of products is linear, so wherever a term dominates, it
  dominates at a corner), sweeps of each variable over its decades, and random points.
* **50-digit numbers, then symbolic** where an expression leaves that fragment (``log2(N)``,
  ``sqrt(N)``, ``pi``): mpmath at 50 significant digits looks for a witness at the corners
  and random points; when there is none, sympy simplifies the difference, which proves the
  identity (zero) or finds a constant too small for 50 digits (imported only then: the
  first time costs about half a second). The
  sympy expression is built node by node from this package's own parse tree; user text never
  reaches ``sympify``, ``parse_expr`` or ``eval``.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction

from deck.formula.base import FormulaError
from deck.formula.names import resolve_names
from deck.formula.parser import parse
from deck.formula.tree import BinOp, Call, Expr, Neg, Num, Var
from deck.formula.verdict import (
    Domain,
    Equivalence,
    Inexact,
    Undefined,
    VariableLike,
    as_float,
    different,
)

__all__ = [
    "Domain",
    "Equivalence",
    "equivalent",
    "sample_points",
    "substitute",
]

RANDOM_POINTS = 8  # random points per comparison (a fresh set for every seed)
MAX_CORNER_VARIABLES = 6  # 2^6 corners at most; beyond, sweeps and random points only
MAX_EXACT_EXPONENT = 4096  # larger whole powers are left to the 50-digit arithmetic
MAX_EXACT_BITS = 100_000  # bound on the size of an exact intermediate value


# ----------------------------------------------------------------------------- points


def _decades(lo: Fraction, hi: Fraction, integer: bool) -> list[Fraction]:
    """lo, hi and the powers of ten (and 2×, 5×) between them: a sweep over the decades."""
    values = {lo, hi}
    if lo > 0:
        exponent = math.floor(math.log10(lo))
        while Fraction(10) ** exponent <= hi:
            for m in (1, 2, 5):
                v = m * Fraction(10) ** exponent
                if lo <= v <= hi and (not integer or v.denominator == 1):
                    values.add(v)
            exponent += 1
    if integer and hi - lo >= 1:
        values.add(lo + 1)
    return sorted(values)


def _random_value(d: Domain, rng: random.Random) -> Fraction:
    """A random value of the domain: a whole number, or a 12-digit decimal (a set of about
    10^12 values per decade, far too many for a wrong formula to hit its roots, and small
    numerators keep the exact arithmetic fast)."""
    lo, hi = _decimal(float(d.low)), _decimal(float(d.high))
    if d.integer:
        return Fraction(rng.randint(math.ceil(d.low), math.floor(d.high)))
    if lo > 0 and hi / lo > 100:  # log-uniform over wide ranges
        x = math.exp(rng.uniform(math.log(d.low), math.log(d.high)))
    else:
        x = rng.uniform(float(d.low), float(d.high))
    return min(max(Fraction(f"{x:.12g}"), lo), hi)


def sample_points(
    domains: Sequence[Domain], seed: int = 0, *, designed: bool = True
) -> list[dict[str, Fraction]]:
    """The comparison points: designed ones (corners, per-variable sweeps) then random ones.

    Every value lies in its variable's domain (whole numbers for integer variables). The
    designed points do not depend on ``seed``; the random ones do.
    """
    return [dict(p) for p in _points(tuple(domains), seed, designed)]


def _bound(value: float, integer: bool, rounding: Callable[[float], int]) -> Fraction:
    return Fraction(rounding(value)) if integer else _decimal(float(value))


@functools.lru_cache(maxsize=512)
def _points(
    domains: tuple[Domain, ...], seed: int, designed: bool
) -> tuple[dict[str, Fraction], ...]:
    """:func:`sample_points`, cached: a review checks the same card and seed again and again
    (every attempt, every detector), and building the points costs more than comparing."""
    points: list[dict[str, Fraction]] = []
    lows = {d.name: _bound(d.low, d.integer, math.ceil) for d in domains}
    highs = {d.name: _bound(d.high, d.integer, math.floor) for d in domains}
    if designed:
        names = [d.name for d in domains]
        if len(names) <= MAX_CORNER_VARIABLES:
            for combo in itertools.product((False, True), repeat=len(names)):
                points.append(
                    {n: highs[n] if up else lows[n] for n, up in zip(names, combo, strict=True)}
                )
        for d in domains:
            for v in _decades(lows[d.name], highs[d.name], d.integer):
                for base in (lows, highs):
                    points.append({**base, d.name: v})
    rng = random.Random(f"equivalence:{seed}")
    for _ in range(RANDOM_POINTS):
        points.append({d.name: _random_value(d, rng) for d in domains})
    unique: dict[tuple[tuple[str, Fraction], ...], dict[str, Fraction]] = {}
    for p in points:
        unique.setdefault(tuple(sorted(p.items())), p)
    return tuple(unique.values())


# ----------------------------------------------------------------------------- exact values


def _bits(x: Fraction) -> int:
    return x.numerator.bit_length() + x.denominator.bit_length()


def _exact_pow(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator != 1 or abs(exponent) > MAX_EXACT_EXPONENT:
        raise Inexact
    if base == 0 and exponent < 0:
        raise Undefined
    if _bits(base) * abs(exponent.numerator) > MAX_EXACT_BITS:
        raise Inexact
    return base**exponent.numerator


def _exact_log2(x: Fraction) -> Fraction:
    if x <= 0:
        raise Undefined
    num, den = x.numerator, x.denominator
    if num & (num - 1) == 0 and den & (den - 1) == 0:
        return Fraction(num.bit_length() - den.bit_length())
    raise Inexact


def _exact_sqrt(x: Fraction) -> Fraction:
    if x < 0:
        raise Undefined
    rn, rd = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if rn * rn == x.numerator and rd * rd == x.denominator:
        return Fraction(rn, rd)
    raise Inexact


def _exact_call(name: str, args: list[Fraction]) -> Fraction:
    if name == "min":
        return min(args)
    if name == "max":
        return max(args)
    if name == "abs":
        return abs(args[0])
    if name == "ceil":
        return Fraction(math.ceil(args[0]))
    if name == "floor":
        return Fraction(math.floor(args[0]))
    if name == "sqrt":
        return _exact_sqrt(args[0])
    if name == "log2":
        return _exact_log2(args[0])
    if name == "log" and len(args) == 2:
        if args[1] <= 0 or args[1] == 1:
            raise Undefined
        numerator, denominator = _exact_log2(args[0]), _exact_log2(args[1])
        return numerator / denominator
    if name == "exp" and args[0] == 0:
        return Fraction(1)
    if name in ("ln", "log", "log10") and args[0] == 1:
        return Fraction(0)
    if name in ("ln", "log", "log10") and args[0] <= 0:
        raise Undefined
    raise Inexact


@functools.lru_cache(maxsize=4096)
def _decimal(value: float) -> Fraction:
    """The number as it was typed: 0.1 is 1/10, not the float nearest to it."""
    return Fraction(repr(value))


def _exact(expr: Expr, env: Mapping[str, Fraction]) -> Fraction:
    """The exact value of ``expr`` at ``env``; Inexact or Undefined when it has none."""
    return _compiled(expr)(env)


Exact = Callable[[Mapping[str, Fraction]], Fraction]


@functools.lru_cache(maxsize=2048)
def _compiled(expr: Expr) -> Exact:
    """``expr`` as nested closures: a review evaluates the same trees at the same points
    over and over (every attempt, every mistake detector), and walking the tree each time
    costs more than the arithmetic."""
    if isinstance(expr, Num):
        value = _decimal(expr.value)
        return lambda env: value
    if isinstance(expr, Var):
        name = expr.name
        return lambda env: env[name]
    if isinstance(expr, Neg):
        inner = _compiled(expr.operand)
        return lambda env: -inner(env)
    if isinstance(expr, BinOp):
        return _compiled_binop(expr.op, _compiled(expr.left), _compiled(expr.right))
    if isinstance(expr, Call):
        name, args = expr.name, tuple(_compiled(arg) for arg in expr.args)
        return lambda env: _exact_call(name, [arg(env) for arg in args])

    def inexact(env: Mapping[str, Fraction]) -> Fraction:
        raise Inexact  # Const: pi, e

    return inexact


def _compiled_binop(op: str, left: Exact, right: Exact) -> Exact:
    if op == "+":
        return lambda env: left(env) + right(env)
    if op == "-":
        return lambda env: left(env) - right(env)
    if op == "*":
        return lambda env: left(env) * right(env)
    if op == "^":
        return lambda env: _exact_pow(left(env), right(env))

    def divide(env: Mapping[str, Fraction]) -> Fraction:
        denominator = right(env)
        if denominator == 0:
            raise Undefined
        return left(env) / denominator

    return divide


# ----------------------------------------------------------------------------- comparing


def substitute(expr: Expr, mapping: Mapping[str, Expr]) -> Expr:
    """``expr`` with every variable named in ``mapping`` replaced by its expression."""
    if isinstance(expr, Var):
        return mapping.get(expr.name, expr)
    if isinstance(expr, Neg):
        return Neg(substitute(expr.operand, mapping))
    if isinstance(expr, BinOp):
        return BinOp(expr.op, substitute(expr.left, mapping), substitute(expr.right, mapping))
    if isinstance(expr, Call):
        return Call(expr.name, tuple(substitute(a, mapping) for a in expr.args))
    return expr


def _piecewise(expr: Expr) -> bool:
    return any(
        isinstance(n, Call) and n.name in ("min", "max", "abs", "ceil", "floor")
        for n in expr._walk()
    )


def _as_expr(value: str | Expr) -> Expr:
    return parse(value) if isinstance(value, str) else value


def equivalent(
    expected: str | Expr,
    given: str | Expr,
    variables: Iterable[VariableLike | Domain],
    *,
    seed: int = 0,
) -> Equivalence:
    """Whether ``given`` is the same function as ``expected`` over ``variables``' domains.

    Texts are parsed (FormulaError when they cannot be); ``given``'s names are mapped onto the
    variables as :func:`deck.formula.resolve_names` does (``n`` → ``N``). The comparison is
    exact (see the module docstring): a dropped, added or changed term is found however small
    it is next to the others. ``seed`` picks the random points. Points where ``expected`` has
    no value are skipped; ``given`` having none where ``expected`` has one is a difference.
    """
    domains = [Domain.of(v) for v in variables]
    a = _as_expr(expected)
    b = resolve_names(_as_expr(given), [d.name for d in domains])
    unknown = sorted(a.variables - {d.name for d in domains})
    if unknown:
        raise FormulaError(f"the expected formula uses undeclared variables {', '.join(unknown)}")
    if a == b:
        return Equivalence(True, "identical", "the same expression", given=b)
    key = tuple(domains)
    piecewise = _piecewise(a) or _piecewise(b)
    try:
        return _compare_exact(a, b, key, seed, "designed" if piecewise else "rational")
    except Inexact:
        pass
    # Outside the exact fragment: 50-digit values find a difference at the corners (where
    # each term dominates in turn) or the random points; sympy, when they agree, turns the
    # agreement into a proof (it is only asked then: it is slow).
    points = _point_set(key, seed, "designed" if piecewise else "numeric")
    from deck.formula import symbolic  # mpmath and sympy: only for formulas that need them

    outcome = symbolic.compare_numeric(a, b, points)
    if not outcome.equal:
        return outcome
    proved = symbolic.prove(a, b, key)
    if proved is True:
        return Equivalence(True, "symbolic", "the same expression, simplified", given=b)
    if proved is False:
        return Equivalence(
            False, "symbolic", "it differs from the expected formula by a constant", given=b
        )
    return outcome


def _values(expr: Expr, points: Sequence[Mapping[str, Fraction]]) -> tuple[Fraction | None, ...]:
    """The exact values of ``expr`` at ``points`` (None where it has none); Inexact when one
    cannot be represented."""
    f = _compiled(expr)
    out: list[Fraction | None] = []
    for point in points:
        try:
            out.append(f(point))
        except Undefined:
            out.append(None)
    return tuple(out)


@functools.lru_cache(maxsize=512)
def _point_set(
    domains: tuple[Domain, ...], seed: int, kind: str
) -> tuple[dict[str, Fraction], ...]:
    """The points a comparison uses: ``designed`` (corners, sweeps, random: for piecewise
    functions), ``rational`` (two corners for a readable witness, then the random points
    that carry the proof) or ``numeric`` (every corner, where each term dominates in turn,
    and the random points)."""
    designed = _points(domains, seed, True)
    if kind == "designed":
        return designed
    corners = designed[: 2 ** len(domains)] if len(domains) <= MAX_CORNER_VARIABLES else ()
    randoms = designed[-RANDOM_POINTS:]
    return (*corners[:2], *randoms) if kind == "rational" else (*corners, *randoms)


@functools.lru_cache(maxsize=1024)
def _reference_values(
    expr: Expr, domains: tuple[Domain, ...], seed: int, kind: str
) -> tuple[Fraction | None, ...]:
    """:func:`_values` of the expected formula, cached: every attempt at a card instance
    and every mistake detector compares with the same values."""
    return _values(expr, _point_set(domains, seed, kind))


def _compare_exact(
    a: Expr, b: Expr, domains: tuple[Domain, ...], seed: int, kind: str
) -> Equivalence:
    checked = 0
    witness: tuple[Mapping[str, Fraction], Fraction, Fraction | None] | None = None
    ratio: Fraction | None = None  # given/expected, while it is the same at every point
    constant = True
    points = _point_set(domains, seed, kind)
    expected = _reference_values(a, domains, seed, kind)
    given = _values(b, points)
    for point, va, vb in zip(points, expected, given, strict=True):
        if va is None:
            continue
        checked += 1
        if vb is None or va == 0:
            constant = constant and vb == va
        elif ratio is None:
            ratio = vb / va
        else:
            constant = constant and vb / va == ratio
        if witness is None and vb != va:
            witness = (point, va, vb)
    if checked == 0:
        return Equivalence(False, "exact", "the expected formula has no value at any sample point")
    if witness is None:
        return Equivalence(True, "exact", f"equal at {checked} points, exactly", given=b)
    point, va, vb = witness
    factor = ratio if constant else None
    return different("exact", point, as_float(va), None if vb is None else as_float(vb), factor, b)
