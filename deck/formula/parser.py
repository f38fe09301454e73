"""Formula text to a tree: the tokenizer, the recursive-descent parser, and :func:`parse`
and :func:`evaluate` with the limits on length and nesting. The language it reads is
described in :mod:`deck.formula`, which is where callers import these from.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from deck.formula.base import (
    _CONSTANTS,
    _FUNCTION_ALIASES,
    _FUNCTIONS,
    _UNSUPPORTED,
    FormulaError,
    _check_arity,
)
from deck.formula.tree import BinOp, Call, Const, Expr, Neg, Num, Var

MAX_LENGTH = 500  # characters of formula text
MAX_DEPTH = 100  # nested parentheses, signs, powers and calls


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
