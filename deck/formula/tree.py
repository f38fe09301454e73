"""The expression tree of the formula language: :class:`Expr` and its frozen, hashable node
kinds (:class:`Num`, :class:`Const`, :class:`Var`, :class:`Neg`, :class:`BinOp`,
:class:`Call`), each evaluating itself over floats and printing itself with the fewest
parentheses that parse back to the same tree. Callers import from :mod:`deck.formula`.
"""

from __future__ import annotations

import abc
import functools
import math
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

from deck.formula.base import _CONSTANTS, _FUNCTIONS, _LOG_FUNCTIONS, FormulaError, _check_arity


class _Scale:
    """The largest magnitude seen while evaluating: bounds the rounding error of the result."""

    __slots__ = ("largest",)

    def __init__(self) -> None:
        self.largest = 0.0

    def see(self, value: float) -> float:
        if not math.isfinite(value):
            raise OverflowError
        magnitude = abs(value)
        if magnitude > self.largest:
            self.largest = magnitude
        return value


def _short(expr: Expr) -> str:
    text = str(expr)
    return text if len(text) <= 60 else text[:57] + "..."


def _num_text(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


# Precedence levels used by __str__ to place the fewest parentheses that keep the tree.
_ADD, _MUL, _NEG, _POW, _ATOM = 1, 2, 3, 4, 5


@dataclass(frozen=True)
class Expr(abc.ABC):
    """A parsed expression: immutable, hashable, comparable by structure. Each node kind
    (Num, Const, Var, Neg, BinOp, Call) implements ``_eval`` and ``__str__``."""

    precedence: ClassVar[int] = _ATOM

    @functools.cached_property
    def variables(self) -> frozenset[str]:
        """Names of the variables the expression reads (constants excluded); computed once
        per tree (trees are immutable, and checking asks for them at every instance)."""
        return frozenset(node.name for node in self._walk() if isinstance(node, Var))

    def evaluate(self, env: Mapping[str, float]) -> float:
        """The value for the variable values ``env``; FormulaError when it has none."""
        try:
            return self._eval(env, _Scale())
        except OverflowError:
            raise FormulaError(f"overflow: the result of {_short(self)} is too large") from None

    def children(self) -> tuple[Expr, ...]:
        return ()

    def _walk(self) -> Iterator[Expr]:
        """Every node, pre-order, left to right (iterative: no recursion limit concerns)."""
        stack: list[Expr] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    @abc.abstractmethod
    def _eval(self, env: Mapping[str, float], scale: _Scale) -> float: ...

    def _rename(self, mapping: Mapping[str, str]) -> Expr:
        return self

    @abc.abstractmethod
    def __str__(self) -> str: ...


@dataclass(frozen=True)
class Num(Expr):
    value: float

    def __post_init__(self) -> None:
        try:
            value = float(self.value)
        except (OverflowError, TypeError, ValueError):
            raise FormulaError(f"number {self.value!r} is out of range") from None
        if not math.isfinite(value):
            raise FormulaError(f"number {self.value!r} is not finite")
        object.__setattr__(self, "value", value)

    @property
    def precedence(self) -> int:  # type: ignore[override]
        return _NEG if self.value < 0 else _ATOM

    def _eval(self, env: Mapping[str, float], scale: _Scale) -> float:
        return scale.see(self.value)

    def __str__(self) -> str:
        return _num_text(self.value)


@dataclass(frozen=True)
class Const(Expr):
    name: str  # "pi" or "e"

    def __post_init__(self) -> None:
        if self.name not in ("pi", "e"):
            raise FormulaError(f"unknown constant {self.name!r}")

    def _eval(self, env: Mapping[str, float], scale: _Scale) -> float:
        return scale.see(_CONSTANTS[self.name])

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Var(Expr):
    name: str

    def _eval(self, env: Mapping[str, float], scale: _Scale) -> float:
        try:
            raw = env[self.name]
        except KeyError:
            known = ", ".join(sorted(env)) or "none"
            raise FormulaError(f"unknown variable {self.name!r} (known: {known})") from None
        if isinstance(raw, bool) or not isinstance(raw, numbers.Real):
            raise FormulaError(f"variable {self.name!r} is not a number: {raw!r}")
        try:
            value = float(raw)
        except (OverflowError, ValueError, TypeError):
            raise FormulaError(f"variable {self.name!r} is out of range") from None
        if not math.isfinite(value):
            raise FormulaError(f"variable {self.name!r} is not a finite number")
        return scale.see(value)

    def _rename(self, mapping: Mapping[str, str]) -> Expr:
        return Var(mapping.get(self.name, self.name))

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Neg(Expr):
    operand: Expr
    precedence: ClassVar[int] = _NEG

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def _eval(self, env: Mapping[str, float], scale: _Scale) -> float:
        return -self.operand._eval(env, scale)

    def _rename(self, mapping: Mapping[str, str]) -> Expr:
        return Neg(self.operand._rename(mapping))

    def __str__(self) -> str:
        inner = str(self.operand)
        # -(a*b) and -(-a) keep their shape; -a^b needs nothing (power binds tighter).
        return f"-({inner})" if self.operand.precedence <= _NEG else f"-{inner}"


_BIN_PRECEDENCE = {"+": _ADD, "-": _ADD, "*": _MUL, "/": _MUL, "^": _POW}


def _pow(base: float, exponent: float, node: Expr) -> float:
    if base == 0.0:
        if exponent < 0:
            raise FormulaError(f"division by zero in {_short(node)}")
        return 1.0 if exponent == 0 else 0.0
    if base < 0 and not exponent.is_integer():
        raise FormulaError(f"negative number to a fractional power in {_short(node)}")
    # Guard the magnitude before computing, so 9^9^9 fails at once instead of overflowing late.
    magnitude = exponent * math.log(abs(base))
    if magnitude > 709.0:
        raise OverflowError
    if magnitude < -745.0:
        return 0.0
    return math.pow(base, exponent)


@dataclass(frozen=True)
class BinOp(Expr):
    op: str  # one of + - * / ^
    left: Expr
    right: Expr

    def __post_init__(self) -> None:
        if self.op not in _BIN_PRECEDENCE:
            raise FormulaError(f"unknown operator {self.op!r}")

    @property
    def precedence(self) -> int:  # type: ignore[override]
        return _BIN_PRECEDENCE[self.op]

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def _eval(self, env: Mapping[str, float], scale: _Scale) -> float:
        a = self.left._eval(env, scale)
        b = self.right._eval(env, scale)
        if self.op == "+":
            result = a + b
        elif self.op == "-":
            result = a - b
        elif self.op == "*":
            result = a * b
        elif self.op == "/":
            if b == 0:
                raise FormulaError(f"division by zero in {_short(self)}")
            result = a / b
        else:
            result = _pow(a, b, self)
        return scale.see(result)

    def _rename(self, mapping: Mapping[str, str]) -> Expr:
        return BinOp(self.op, self.left._rename(mapping), self.right._rename(mapping))

    def __str__(self) -> str:
        mine = self.precedence
        left, right = str(self.left), str(self.right)
        if self.left.precedence < mine or (self.op == "^" and self.left.precedence <= mine):
            left = f"({left})"
        # Left-associative operators keep a right operand of the same level in parentheses, so
        # the text parses back to this very tree; a negative right operand reads better wrapped.
        if (
            self.right.precedence < mine
            or (self.op != "^" and self.right.precedence == mine)
            or self.right.precedence == _NEG
        ):
            right = f"({right})"
        if self.op in "+-":
            return f"{left} {self.op} {right}"
        return f"{left}{self.op}{right}"


@dataclass(frozen=True)
class Call(Expr):
    name: str
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        function = _FUNCTIONS.get(self.name)
        if function is None:
            raise FormulaError(f"unknown function {self.name!r}")
        object.__setattr__(self, "args", tuple(self.args))
        _check_arity(function, len(self.args), None)

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def _eval(self, env: Mapping[str, float], scale: _Scale) -> float:
        values = [arg._eval(env, scale) for arg in self.args]
        name = self.name
        if name in _LOG_FUNCTIONS and values[0] <= 0:
            raise FormulaError(f"{name} of a non-positive number in {_short(self)}")
        if name == "log" and len(values) == 2 and (values[1] <= 0 or values[1] == 1):
            raise FormulaError(f"log base must be positive and not 1 in {_short(self)}")
        if name == "sqrt" and values[0] < 0:
            raise FormulaError(f"sqrt of a negative number in {_short(self)}")
        try:
            result = float(_FUNCTIONS[name].impl(*values))
        except ValueError:
            raise FormulaError(f"{name} is undefined in {_short(self)}") from None
        return scale.see(result)

    def _rename(self, mapping: Mapping[str, str]) -> Expr:
        return Call(self.name, tuple(arg._rename(mapping) for arg in self.args))

    def __str__(self) -> str:
        return f"{self.name}({', '.join(str(arg) for arg in self.args)})"
