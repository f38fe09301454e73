"""Structural mutations and rewritings of a formula, generated from its parse tree.

Mutations (each a different function, checked with sympy as an independent oracle): drop a
term (or, in a single product, a factor), change a coefficient, N → N−1 and N−1 → N, swap two
variables, square a term or factor. Rewritings (the same function, written differently):
expanded and factored (sympy), reordered, with ``·``, ``×`` and ``−``, and with implicit
multiplication (``2(N − 1)``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import sympy

from deck.cards.model import Variable
from deck.formula import BinOp, Call, Expr, Neg, Num, Var, parse
from deck.formula.symbolic import to_sympy as _to_sympy

Term = tuple[int, Expr]


def terms(e: Expr) -> list[Term]:
    """The signed terms of a sum."""
    if isinstance(e, BinOp) and e.op in "+-":
        right = terms(e.right)
        if e.op == "-":
            right = [(-s, t) for s, t in right]
        return terms(e.left) + right
    if isinstance(e, Neg):
        return [(-s, t) for s, t in terms(e.operand)]
    return [(1, e)]


def sum_of(ts: Sequence[Term]) -> Expr:
    out: Expr | None = None
    for sign, t in ts:
        if out is None:
            out = t if sign > 0 else Neg(t)
        else:
            out = BinOp("+" if sign > 0 else "-", out, t)
    return out if out is not None else Num(0.0)


def factors(e: Expr) -> tuple[list[Expr], list[Expr]]:
    """Numerators and denominators of a * and / chain."""
    if isinstance(e, BinOp) and e.op in "*/":
        n, d = factors(e.left)
        if e.op == "*":
            n2, d2 = factors(e.right)
            return n + n2, d + d2
        return n, [*d, e.right]
    return [e], []


def product_of(n: Sequence[Expr], d: Sequence[Expr]) -> Expr:
    out = n[0] if n else Num(1.0)
    for f in n[1:]:
        out = BinOp("*", out, f)
    for f in d:
        out = BinOp("/", out, f)
    return out


def nodes(e: Expr, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], Expr]]:
    yield path, e
    for i, child in enumerate(e.children()):
        yield from nodes(child, (*path, i))


def replace_at(e: Expr, path: tuple[int, ...], new: Expr) -> Expr:
    if not path:
        return new
    i, rest = path[0], path[1:]
    if isinstance(e, Neg):
        return Neg(replace_at(e.operand, rest, new))
    if isinstance(e, BinOp):
        if i == 0:
            return BinOp(e.op, replace_at(e.left, rest, new), e.right)
        return BinOp(e.op, e.left, replace_at(e.right, rest, new))
    assert isinstance(e, Call)
    args = list(e.args)
    args[i] = replace_at(args[i], rest, new)
    return Call(e.name, tuple(args))


def swap(e: Expr, a: str, b: str) -> Expr:
    if isinstance(e, Var):
        return Var(b) if e.name == a else Var(a) if e.name == b else e
    if isinstance(e, Neg):
        return Neg(swap(e.operand, a, b))
    if isinstance(e, BinOp):
        return BinOp(e.op, swap(e.left, a, b), swap(e.right, a, b))
    if isinstance(e, Call):
        return Call(e.name, tuple(swap(x, a, b) for x in e.args))
    return e


# ----------------------------------------------------------------------------- mutations


def _parts(e: Expr) -> tuple[list[Term], bool]:
    """The terms of ``e``, or (for a single product) its factors as terms of a product."""
    ts = terms(e)
    return ts, len(ts) > 1


def mutations(text: str, variables: Sequence[Variable]) -> dict[str, Expr]:
    """Named structural mutations of ``text``; every one a different function."""
    e = parse(text)
    out: dict[str, Expr] = {}
    ts, is_sum = _parts(e)
    if is_sum:
        for i in range(len(ts)):
            out[f"drop term {i}"] = sum_of(ts[:i] + ts[i + 1 :])
            squared = [(s, BinOp("^", t, Num(2.0)) if j == i else t) for j, (s, t) in enumerate(ts)]
            out[f"square term {i}"] = sum_of(squared)
    n, d = factors(e)
    if len(n) + len(d) > 1:
        for i in range(len(n)):
            out[f"drop factor {i}"] = product_of(n[:i] + n[i + 1 :], d)
            out[f"square factor {i}"] = product_of(
                [BinOp("^", f, Num(2.0)) if j == i else f for j, f in enumerate(n)], d
            )
        for i in range(len(d)):
            out[f"drop divisor {i}"] = product_of(n, d[:i] + d[i + 1 :])
    for path, node in nodes(e):
        if isinstance(node, Num):
            out[f"coefficient {node} + 1 at {path}"] = replace_at(e, path, Num(node.value + 1))
            if node.value not in (0.0, 1.0):
                out[f"coefficient {node} × 2 at {path}"] = replace_at(e, path, Num(node.value * 2))
    integers = {v.name for v in variables if v.integer}
    for path, node in nodes(e):
        if isinstance(node, Var) and node.name in integers:
            minus = BinOp("-", node, Num(1.0))
            out[f"{node.name} → {node.name}−1 at {path}"] = replace_at(e, path, minus)
        if (
            isinstance(node, BinOp)
            and node.op == "-"
            and isinstance(node.left, Var)
            and node.left.name in integers
            and node.right == Num(1.0)
        ):
            out[f"{node.left.name}−1 → {node.left.name} at {path}"] = replace_at(e, path, node.left)
    names = sorted(e.variables)
    for a, b in itertools.combinations(names, 2):
        out[f"swap {a} {b}"] = swap(e, a, b)
    return {k: m for k, m in out.items() if not same_function(e, m, variables)}


def same_function(a: Expr, b: Expr, variables: Sequence[Variable]) -> bool:
    """The oracle: sympy simplifies the difference to zero (real, positive symbols)."""
    symbols = {v.name: sympy.Symbol(v.name, positive=True) for v in variables}
    difference = _to_sympy(a, symbols, sympy) - _to_sympy(b, symbols, sympy)
    if difference.is_rational_function(*symbols.values()):
        return bool(sympy.cancel(difference) == 0)  # a decision for rational functions
    return bool(sympy.simplify(difference) == 0)


# ----------------------------------------------------------------------------- rewritings


def reordered(e: Expr) -> Expr:
    """Terms and factors in reverse order (a sum starting with a negative term gets a Neg)."""
    ts = terms(e)
    if len(ts) > 1:
        return sum_of([(s, reordered(t)) for s, t in reversed(ts)])
    n, d = factors(e)
    if len(n) + len(d) > 1:
        return product_of([reordered(f) for f in reversed(n)], [reordered(f) for f in d])
    return e


def implicit(e: Expr) -> str:
    """Text with implicit multiplication wherever the parser reads it the same: ``2(N − 1)``."""
    if isinstance(e, BinOp) and e.op == "*":
        left, right = implicit(e.left), implicit(e.right)
        if isinstance(e.left, BinOp) and e.left.op in "+-":
            left = f"({left})"
        if isinstance(e.right, BinOp) and e.right.op in "+-*/":
            return f"{left}({right})"
        if isinstance(e.right, Var | Call):
            return f"{left} {right}"
        if isinstance(e.right, BinOp) and e.right.op == "^" and isinstance(e.right.left, Var):
            return f"{left} {right}"
        return f"{left}*{_wrap(e.right, right)}"
    if isinstance(e, BinOp) and e.op == "/":
        left, right = implicit(e.left), implicit(e.right)
        if isinstance(e.left, BinOp) and e.left.op in "+-":
            left = f"({left})"
        return f"{left}/{_wrap(e.right, right)}"
    if isinstance(e, BinOp) and e.op in "+-":
        right = implicit(e.right)
        if (isinstance(e.right, BinOp) and e.right.op in "+-") or isinstance(e.right, Neg):
            right = f"({right})"
        return f"{implicit(e.left)} {e.op} {right}"
    return str(e)


def _wrap(node: Expr, text: str) -> str:
    return (
        text
        if isinstance(node, Var | Num | Call) and not str(node).startswith("-")
        else f"({text})"
    )


def _typed(s: Any) -> str:
    """sympy's text in the formula language: it spells ceil as ``ceiling``."""
    return str(s).replace("ceiling(", "ceil(")


def rewritings(text: str, variables: Sequence[Variable]) -> dict[str, str]:
    e = parse(text)
    symbols = {v.name: sympy.Symbol(v.name, positive=True) for v in variables}
    s = _to_sympy(e, symbols, sympy)
    plain = str(e)
    return {
        "expanded": _typed(sympy.expand(s)),
        "factored": _typed(sympy.factor(s)),
        "reordered": str(reordered(e)),
        "middle dot": plain.replace("*", "·"),
        "times sign": plain.replace("*", " × "),
        "minus sign": plain.replace("-", "−"),
        "implicit multiplication": implicit(e),
    }


def describe(variables: Sequence[Any]) -> str:
    return ", ".join(v.name for v in variables)
