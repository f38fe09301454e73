"""A small, safe expression language for formula cards, ``expr:`` values and ``expect:`` claims.

Provides :func:`parse` (text → a frozen, hashable :class:`Expr` tree), :func:`evaluate`,
:func:`equivalent` (whether two expressions are the same function, decided exactly by
:mod:`deck.equivalence`) and :func:`resolve_names`
(map what a user typed, ``n``, onto a card's variables, ``N``). Nothing here calls ``eval``
or the ``ast`` module: a hand-written tokenizer and recursive-descent parser build the tree,
and evaluation is plain ``math`` over floats. Every fault in the text or during evaluation
raises :class:`FormulaError` with a one-line message, never anything else.

The language
------------
* Numbers: ``42``, ``0.5``, ``.5``, ``1e9``, ``1.5E-3``, ``1_000``.
* Variables: identifiers of letters (any script, so ``ψ``, ``Ψ``, ``α``), ASCII digits and
  underscores not starting with a digit: ``N``, ``S_1``, ``x2``.
* Operators: ``+ - * / ^ **`` and the typographic ``× · ⋅ ∙ − – ÷ ∕``; ``√x``; superscript
  powers ``N²``, ``x⁻¹``; ceiling and floor brackets ``⌈x⌉``, ``⌊x⌋`` (``ceil(x)``, ``floor(x)``).
* Functions (need parentheses): ``log2 log10 ln log sqrt exp min max abs ceil floor``
  (``ceiling`` is read as ``ceil``, as sympy and spreadsheets write it).
  ``log(x)`` is the natural logarithm and ``log(x, b)`` the logarithm to base ``b``.
  As printed in papers: ``log₂`` and ``log₁₀`` are ``log2`` and ``log10``, and may take one
  operand without parentheses
  (``log₂N·S`` is ``log2(N)*S``, ``log₂N²`` is ``log2(N^2)``); ``⌈x⌉`` is ``ceil(x)`` and
  ``⌊x⌋`` is ``floor(x)``.
* Constants: ``pi`` (also ``π``) and ``e``; these names are never variables.

Precedence, loosest first: ``+ -``; ``* /`` and implicit multiplication (same level, left to
right, so ``1/2N`` is ``(1/2)*N`` and ``2(N-1)/N S`` is ``2*(N-1)/N*S``); unary minus; ``^``
(right-associative, so ``2^3^2`` is ``2^9`` and ``-2^2`` is ``-4``).

Implicit multiplication: juxtaposed operands multiply (``2N``, ``2(N-1)``, ``(N-1)(N+1)``,
``2 N S``, ``N S``, ``N log2(N)``). A run of letters is always ONE name: ``NS`` is the variable
``NS``, not ``N*S`` (write ``N S`` or ``N*S``); :func:`resolve_names` suggests that fix. A name
followed by ``(`` is a call only for the functions above: ``N(N-1)`` is ``N*(N-1)``. A number
never multiplies implicitly from the right (``N 2`` and ``2 3`` are errors, likely typos).
"""

from __future__ import annotations

import abc
import difflib
import functools
import math
import numbers
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from deck.errors import DeckError

if TYPE_CHECKING:
    from deck.equivalence import Equivalence

__all__ = [
    "MAX_DEPTH",
    "MAX_LENGTH",
    "BinOp",
    "Call",
    "Const",
    "Expr",
    "FormulaError",
    "Neg",
    "Num",
    "Var",
    "equivalent",
    "evaluate",
    "parse",
    "resolve_names",
]

MAX_LENGTH = 500  # characters of formula text
MAX_DEPTH = 100  # nested parentheses, signs, powers and calls


class FormulaError(DeckError, ValueError):
    """Text that is not a valid formula, or a formula that cannot be evaluated."""


# ----------------------------------------------------------------------------- functions


def _log(x: float, base: float | None = None) -> float:
    if base is None:
        return math.log(x)
    return math.log(x) / math.log(base)


@dataclass(frozen=True)
class _Function:
    name: str
    min_args: int
    max_args: int
    impl: Callable[..., float]


_FUNCTIONS: dict[str, _Function] = {
    f.name: f
    for f in (
        _Function("log2", 1, 1, math.log2),
        _Function("log10", 1, 1, math.log10),
        _Function("ln", 1, 1, math.log),
        _Function("log", 1, 2, _log),
        _Function("sqrt", 1, 1, math.sqrt),
        _Function("exp", 1, 1, math.exp),
        _Function("min", 1, 64, lambda *values: min(values)),
        _Function("max", 1, 64, lambda *values: max(values)),
        _Function("abs", 1, 1, abs),
        _Function("ceil", 1, 1, lambda x: float(math.ceil(x))),
        _Function("floor", 1, 1, lambda x: float(math.floor(x))),
    )
}
_FUNCTION_ALIASES = {
    "log_2": "log2",
    "log_10": "log10",
    "log₂": "log2",
    "log₁₀": "log10",
    "ceiling": "ceil",
}
# Names people will try that we deliberately do not offer: a clear error beats "sin*x".
_UNSUPPORTED = frozenset(
    {
        *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"),
        *("log1p", "expm1", "pow", "round", "sign", "mod", "gcd", "lcm"),
    }
)
_CONSTANTS = {"pi": math.pi, "π": math.pi, "Pi": math.pi, "PI": math.pi, "e": math.e}

_LOG_FUNCTIONS = frozenset({"log2", "log10", "ln", "log"})

# ----------------------------------------------------------------------------- tree


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


def _check_arity(function: _Function, count: int, column: int | None) -> None:
    if function.min_args <= count <= function.max_args:
        return
    if function.min_args == function.max_args:
        plural = "" if function.min_args == 1 else "s"
        wanted = f"{function.min_args} argument{plural}"
    elif function.max_args >= 64:
        wanted = f"at least {function.min_args} argument"
    else:
        wanted = f"{function.min_args} or {function.max_args} arguments"
    where = f" at column {column}" if column else ""
    raise FormulaError(f"{function.name} takes {wanted}, got {count}{where}")


# ----------------------------------------------------------------------------- tokens

_NUM, _NAME, _OP, _LPAREN, _RPAREN, _COMMA, _SUP, _ROOT, _END = range(9)

_OPERATORS = {
    "**": "^",
    "^": "^",
    "+": "+",
    "-": "-",
    "−": "-",
    "–": "-",
    "*": "*",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∙": "*",
    "/": "/",
    "÷": "/",
    "∕": "/",
}
_SUPERSCRIPTS = {
    "⁰": "0",
    "¹": "1",
    "²": "2",
    "³": "3",
    "⁴": "4",
    "⁵": "5",
    "⁶": "6",
    "⁷": "7",
    "⁸": "8",
    "⁹": "9",
    "⁻": "-",
}
_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class _Token:
    kind: int
    text: str  # as typed, for messages
    column: int  # 1-based
    value: str = ""  # normalised: operator symbol, superscript digits


def _scan_digits(text: str, i: int) -> int:
    """End of a run of ASCII digits with single underscores between them, from ``i``."""
    n = len(text)
    while i < n and text[i] in _DIGITS:
        i += 1
        if i + 1 < n and text[i] == "_" and text[i + 1] in _DIGITS:
            i += 1
    return i


def _number_end(text: str, start: int) -> int:
    n = len(text)
    i = _scan_digits(text, start)
    if i < n and text[i] == ".":
        i = _scan_digits(text, i + 1)
    if i < n and text[i] in "eE":
        j = i + 1
        if j < n and text[j] in "+-−":
            j += 1
        if j < n and text[j] in _DIGITS:
            while j < n and text[j] in _DIGITS:
                j += 1
            i = j
    return i


# Ceiling and floor brackets, as the literature writes them: ⌈x⌉ is ceil(x), ⌊x⌋ is floor(x).
_BRACKETS = {"⌈": ("ceil", "⌉"), "⌊": ("floor", "⌋")}
_CLOSERS = {"⌉": "⌈", "⌋": "⌊"}


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    n = len(text)
    i = 0
    opened: list[str] = []  # the open brackets, so ⌈x) and (x⌉ are refused
    while i < n:
        ch = text[i]
        column = i + 1
        if ch in _BRACKETS:
            tokens.append(_Token(_NAME, _BRACKETS[ch][0], column))
            tokens.append(_Token(_LPAREN, ch, column))
            opened.append(ch)
            i += 1
            continue
        if ch in _CLOSERS or ch == ")":
            want = _CLOSERS.get(ch, "(")
            if opened and opened[-1] != want:
                raise FormulaError(f"unexpected {ch!r} at column {column}: {opened[-1]!r} is open")
            if opened:
                opened.pop()
            tokens.append(_Token(_RPAREN, ch, column))
            i += 1
            continue
        if ch == "(":
            opened.append(ch)
        if ch.isspace():
            i += 1
        elif ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
            end = _number_end(text, i)
            raw = text[i:end]
            if raw == ".":
                raise FormulaError(f"unexpected '.' at column {column}")
            if end < n and text[end] == "_":
                raise FormulaError(f"malformed number {raw + '_'!r} at column {column}")
            value = float(raw.replace("_", "").replace("−", "-"))
            if not math.isfinite(value):
                shown = raw if len(raw) <= 24 else raw[:21] + "..."
                raise FormulaError(f"number {shown!r} at column {column} is too large")
            tokens.append(_Token(_NUM, raw, column, repr(value)))
            i = end
        elif ch.isalpha() or ch == "_":
            end = i + 1
            while end < n and (text[end].isalpha() or text[end] in _DIGITS or text[end] == "_"):
                end += 1
            if text[i:end].lower() == "log":  # log₂ and log₁₀, as papers print them
                for sub in ("₁₀", "₂"):
                    if text.startswith(sub, end):
                        end += len(sub)
                        break
            tokens.append(_Token(_NAME, text[i:end], column))
            i = end
        elif ch in _SUPERSCRIPTS:
            end = i
            while end < n and text[end] in _SUPERSCRIPTS:
                end += 1
            raw = text[i:end]
            digits = "".join(_SUPERSCRIPTS[c] for c in raw)
            body = digits.removeprefix("-")
            if not body.isdigit():  # "-" only in front, digits after it
                raise FormulaError(f"malformed superscript power {raw!r} at column {column}")
            tokens.append(_Token(_SUP, raw, column, digits))
            i = end
        elif text.startswith("**", i):
            tokens.append(_Token(_OP, "**", column, "^"))
            i += 2
        elif ch in _OPERATORS:
            tokens.append(_Token(_OP, ch, column, _OPERATORS[ch]))
            i += 1
        elif ch == "(":
            tokens.append(_Token(_LPAREN, ch, column))
            i += 1
        elif ch == ",":
            tokens.append(_Token(_COMMA, ch, column))
            i += 1
        elif ch == "√":
            tokens.append(_Token(_ROOT, ch, column))
            i += 1
        else:
            raise FormulaError(f"unexpected character {ch!r} at column {column}")
    tokens.append(_Token(_END, "", n + 1))
    return tokens


# ----------------------------------------------------------------------------- parser


class _Parser:
    """Recursive descent over the token list; ``depth`` bounds the recursion."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    @property
    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def advance(self) -> _Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def enter(self, token: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError(
                f"formula is nested too deeply (more than {MAX_DEPTH} levels) at column {token.column}"
            )

    def unexpected(self, token: _Token) -> FormulaError:
        if token.kind == _END:
            previous = self.tokens[self.pos - 1] if self.pos else None
            after = f" after {previous.text!r}" if previous else ""
            return FormulaError(f"unexpected end of formula{after}")
        return FormulaError(f"unexpected {token.text!r} at column {token.column}")

    def parse(self) -> Expr:
        expr = self.expression()
        token = self.peek
        if token.kind != _END:
            raise self.unexpected(token)
        return expr

    def expression(self) -> Expr:
        left = self.term()
        while self.peek.kind == _OP and self.peek.value in "+-":
            op = self.advance().value
            left = BinOp(op, left, self.term())
        return left

    def term(self) -> Expr:
        left = self.unary()
        while True:
            token = self.peek
            if token.kind == _OP and token.value in "*/":
                self.advance()
                left = BinOp(token.value, left, self.unary())
            elif token.kind in (_NAME, _LPAREN, _ROOT):
                left = BinOp("*", left, self.power())  # implicit multiplication
            elif token.kind == _NUM:
                raise FormulaError(
                    f"missing operator before {token.text!r} at column {token.column}"
                )
            else:
                return left

    def unary(self) -> Expr:
        token = self.peek
        if token.kind == _OP and token.value in "+-":
            self.advance()
            self.enter(token)
            operand = self.unary()
            self.depth -= 1
            return Neg(operand) if token.value == "-" else operand
        return self.power()

    def power(self) -> Expr:
        base = self.postfix()
        token = self.peek
        if token.kind == _OP and token.value == "^":
            self.advance()
            self.enter(token)
            exponent = self.unary()
            self.depth -= 1
            return BinOp("^", base, exponent)
        return base

    def postfix(self) -> Expr:
        expr = self.atom()
        while self.peek.kind == _SUP:
            digits = self.advance().value
            exponent: Expr = Num(float(digits.lstrip("-")))
            if digits.startswith("-"):
                exponent = Neg(exponent)
            expr = BinOp("^", expr, exponent)
        return expr

    def atom(self) -> Expr:
        token = self.advance()
        if token.kind == _NUM:
            return Num(float(token.value))
        if token.kind == _NAME:
            return self.name(token)
        if token.kind == _LPAREN:
            if self.peek.kind == _RPAREN:
                raise FormulaError(f"empty parentheses at column {token.column}")
            self.enter(token)
            inner = self.expression()
            self.depth -= 1
            self.close(token)
            return inner
        if token.kind == _ROOT:
            self.enter(token)
            operand = self.unary()
            self.depth -= 1
            return Call("sqrt", (operand,))
        self.pos -= 1
        raise self.unexpected(token)

    def close(self, opening: _Token) -> None:
        token = self.peek
        if token.kind == _RPAREN:
            self.advance()
            return
        if token.kind == _END:
            closing = _BRACKETS.get(opening.text, ("", ")"))[1]
            raise FormulaError(
                f"missing {closing!r} for the {opening.text!r} at column {opening.column}"
            )
        raise self.unexpected(token)

    def name(self, token: _Token) -> Expr:
        text = token.text
        function_name = _FUNCTION_ALIASES.get(text.lower(), text.lower())
        function = _FUNCTIONS.get(function_name)
        if function is not None:
            opening = self.peek
            if text.lower() in ("log₂", "log₁₀") and opening.kind in (_NAME, _NUM):
                self.enter(token)  # log₂N: one operand, as printed
                operand = self.postfix()
                self.depth -= 1
                return Call(function_name, (operand,))
            if opening.kind != _LPAREN:
                raise FormulaError(
                    f"function {text!r} at column {token.column} needs parentheses, "
                    f"e.g. {function_name}(x)"
                )
            self.advance()
            self.enter(opening)
            args: list[Expr] = []
            if self.peek.kind != _RPAREN:
                args.append(self.expression())
                while self.peek.kind == _COMMA:
                    self.advance()
                    args.append(self.expression())
            self.depth -= 1
            self.close(opening)
            _check_arity(function, len(args), token.column)
            return Call(function_name, tuple(args))
        if text.lower() in _UNSUPPORTED and self.peek.kind == _LPAREN:
            supported = ", ".join(_FUNCTIONS)
            raise FormulaError(
                f"function {text!r} at column {token.column} is not supported (use {supported})"
            )
        if text in _CONSTANTS:
            return Const("e" if text == "e" else "pi")
        return Var(text)


@functools.lru_cache(maxsize=16384)  # a collection's expects, spans and answers: thousands
def _parse_cached(text: str) -> Expr:
    return _Parser(_tokenize(text)).parse()


def parse(text: str) -> Expr:
    """Parse formula text into an :class:`Expr`; FormulaError on anything malformed."""
    if not isinstance(text, str):
        raise FormulaError(f"expected formula text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise FormulaError(
            f"formula is too long ({len(text)} characters; at most {MAX_LENGTH}): "
            f"it goes on past column {MAX_LENGTH}"
        )
    text = unicodedata.normalize("NFC", text)
    if not text.strip():
        raise FormulaError("empty formula")
    return _parse_cached(text)


def evaluate(text: str, env: Mapping[str, float]) -> float:
    """Parse ``text`` and evaluate it with the variable values ``env``."""
    return parse(text).evaluate(env)


# ----------------------------------------------------------------------------- comparing


def equivalent(
    expected: str | Expr, given: str | Expr, variables: Iterable[Any], *, seed: int = 0
) -> Equivalence:
    """Whether ``given`` is the same function as ``expected`` over ``variables`` (objects
    with ``name``, ``low``, ``high``, ``integer``, like a card's): a
    :class:`deck.equivalence.Equivalence`, truthy when they are, with the reason and a
    witness point when they are not. Exact: see :mod:`deck.equivalence`."""
    from deck.equivalence import equivalent as decide

    return decide(expected, given, variables, seed=seed)


# ----------------------------------------------------------------------------- names


def _split_into(name: str, allowed: Mapping[str, str]) -> list[str] | None:
    """``name`` as a concatenation of two or more allowed names (any case), or None."""
    folded = name.casefold()
    n = len(folded)
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for i in range(n):
        parts = best[i]
        if parts is None:
            continue
        for key, original in allowed.items():
            if key and folded.startswith(key, i) and best[i + len(key)] is None:
                best[i + len(key)] = [*parts, original]
    found = best[n]
    return found if found is not None and len(found) >= 2 else None


def _hint(name: str, allowed: list[str]) -> str:
    by_fold: dict[str, str] = {}
    for candidate in allowed:
        by_fold.setdefault(candidate.casefold(), candidate)
    folded = name.casefold()
    for function in sorted(_FUNCTIONS, key=len, reverse=True):
        rest = folded.removeprefix(function)
        if rest != folded and rest in by_fold:
            return f" (did you mean '{function}({by_fold[rest]})'?)"
    parts = _split_into(name, by_fold)
    if parts:
        return f" (a product needs '*' or a space: {'*'.join(parts)!r})"
    close = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=0.6)
    return f" (did you mean {by_fold[close[0]]!r}?)" if close else ""


def _first_seen(expr: Expr) -> list[str]:
    names: dict[str, None] = {}
    for node in expr._walk():
        if isinstance(node, Var):
            names.setdefault(node.name)
    return list(names)


def resolve_names(expr: Expr, allowed: Iterable[str]) -> Expr:
    """Map variable names onto ``allowed``: exact names first, then case-insensitive matches.

    ``n`` becomes ``N`` when ``N`` is the only allowed name equal to it ignoring case. A name
    that matches nothing, or several names equally, raises FormulaError naming the allowed
    variables (with a "did you mean" when one is close).
    """
    names = list(dict.fromkeys(allowed))
    exact = set(names)
    listing = ", ".join(names)
    mapping: dict[str, str] = {}
    for name in _first_seen(expr):
        if name in exact:
            continue
        matches = [c for c in names if c.casefold() == name.casefold()]
        if len(matches) == 1:
            mapping[name] = matches[0]
            continue
        if len(matches) > 1:
            options = " or ".join(repr(m) for m in matches)
            raise FormulaError(f"variable {name!r} is ambiguous: write {options}")
        if not names:
            raise FormulaError(f"unknown variable {name!r}: this formula takes no variables")
        raise FormulaError(f"unknown variable {name!r}; use {listing}{_hint(name, names)}")
    return expr._rename(mapping) if mapping else expr
