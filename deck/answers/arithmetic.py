"""Arithmetic typed as a numeric answer: ``34*4 GB``, ``(80 - 16) GiB``, ``2^30 B``.

:func:`worked_out` evaluates the arithmetic at the start of an answer, exactly (decimal, no
float rounding), and gives the answer back with the result in its place (``136 GB``), so the
ordinary number reader judges it. Operators: ``+ - − * × · / ÷ ^ **`` and parentheses; no
names, no functions, no ``eval``. Text with no operator between numbers is left alone (a
plain ``4 GB``, ``-5 ms``, ``2 x 10^9`` are the number reader's).
"""

from __future__ import annotations

import re
from decimal import Context, Decimal, DivisionByZero, InvalidOperation, Overflow, localcontext

from deck.units import MAX_MAGNITUDE, UnitError

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*)(?:\.\d*)?(?:[eE][-+]?\d+)?"
    r"|\.\d+(?:[eE][-+]?\d+)?)|(?P<op>\*\*|[-+−*×·/÷^()]))"
)
_OPS = {"−": "-", "×": "*", "·": "*", "÷": "/", "**": "^"}
_CONTEXT = Context(prec=40, Emax=999, Emin=-999, traps=[DivisionByZero, InvalidOperation, Overflow])
_LIMIT = Decimal(f"{MAX_MAGNITUDE:g}")
# "7-8 GB", "7 – 8 GB": two plain numbers with a dash between them, the smaller first, is
# how people write a range, not a subtraction that comes out negative.
_RANGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[-–−]\s*(\d+(?:\.\d+)?)(?:\s*[^\d\s*×·/÷^()+\-−].*)?$")
MAX_POWER = 64  # 2^64 and 10^30 read; an exponent beyond this is no answer anyone types


class _Stop(Exception):
    """The tokens do not form an expression (the caller tries a shorter prefix)."""


def _tokens(text: str) -> tuple[list[str], list[int]]:
    """The number and operator tokens at the start of ``text`` and where each ends."""
    tokens: list[str] = []
    ends: list[int] = []
    pos = 0
    while m := _TOKEN.match(text, pos):
        tokens.append(m.group("num") or _OPS.get(m.group("op"), m.group("op")))
        ends.append(m.end())
        pos = m.end()
    return tokens, ends


class _Parser:
    """expr = term (+|- term)*; term = unary (*|/ unary)*; unary = -unary | power;
    power = atom (^ unary)?; atom = number | ( expr )."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.i = 0
        self.binary = 0  # operators between two operands: none means plain number

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise _Stop
        self.i += 1
        return token

    def expr(self) -> Decimal:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.term()
            self.binary += 1
            value = _checked(value + right if op == "+" else value - right)
        return value

    def term(self) -> Decimal:
        value = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()
            right = self.unary()
            self.binary += 1
            if op == "/" and right == 0:
                raise UnitError("that divides by zero")
            value = _checked(value * right if op == "*" else value / right)
        return value

    def unary(self) -> Decimal:
        if self.peek() in ("-", "+"):
            sign = self.take()
            value = self.unary()
            return -value if sign == "-" else value
        return self.power()

    def power(self) -> Decimal:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take()
        exponent = self.unary()
        self.binary += 1
        if exponent != exponent.to_integral_value() or abs(exponent) > MAX_POWER:
            raise UnitError(f"powers take a whole exponent of at most {MAX_POWER}")
        if base == 0 and exponent < 0:
            raise UnitError("that divides by zero")
        return _checked(base ** int(exponent))

    def atom(self) -> Decimal:
        token = self.take()
        if token == "(":
            value = self.expr()
            if self.take() != ")":
                raise _Stop
            return value
        if token[0].isdigit() or token[0] == ".":
            return Decimal(token.replace(",", "").replace("_", ""))
        raise _Stop


def _checked(value: Decimal) -> Decimal:
    if abs(value) > _LIMIT:
        raise UnitError(f"that works out beyond ±{MAX_MAGNITUDE:g}")
    return value


def _shown(value: Decimal) -> str:
    """A result as the number reader reads it: plain digits, or scientific when far out."""
    value = value.normalize(_CONTEXT)
    if value == value.to_integral_value() and abs(value) < Decimal(10) ** 16:
        return f"{int(value):d}"
    text = format(value, "f")
    return text if len(text) <= 24 else format(value, "E")


def worked_out(text: str) -> tuple[str, str] | None:
    """``(result, rest)`` for the arithmetic at the start of ``text`` (``"34*4 GB"`` →
    ``("136", "GB")``), or None when it holds no operator between two numbers.

    Raises :class:`~deck.units.UnitError` for arithmetic that cannot be done (a division by
    zero, a result beyond the number range, a range such as ``7-8 GB``)."""
    m = _RANGE.match(text)
    if m and float(m.group(1)) < float(m.group(2)):
        raise UnitError(f"{text.strip()} reads as a range; type one value")
    tokens, ends = _tokens(text)
    for n in range(len(tokens), 0, -1):  # the longest prefix that is a whole expression
        parser = _Parser(tokens[:n])
        try:
            with localcontext(_CONTEXT):
                value = parser.expr()
        except _Stop:
            continue
        except UnitError:
            raise
        except (ArithmeticError, ValueError):
            raise UnitError("that arithmetic cannot be worked out") from None
        if parser.i != n:
            continue
        if not parser.binary:
            return None
        return _shown(value), text[ends[n - 1] :].strip()
    return None
