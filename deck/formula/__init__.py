"""A small, safe expression language for formula cards, ``expr:`` values and ``expect:`` claims.

Provides :func:`parse` (text → a frozen, hashable :class:`Expr` tree), :func:`evaluate`
and :func:`resolve_names` (map what a user typed, ``n``, onto a card's variables, ``N``).
Whether two expressions are the same function is decided exactly by
:mod:`deck.formula.equivalence` (with :mod:`deck.formula.symbolic` beyond rationals and
:mod:`deck.formula.latex` for display). Nothing here calls ``eval``
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

The pieces: :mod:`deck.formula.base` (FormulaError, the functions and constants),
:mod:`deck.formula.tree` (the node classes and their evaluation), :mod:`deck.formula.parser`
(tokenizer, parser, :func:`parse`, :func:`evaluate`) and :mod:`deck.formula.names`
(:func:`resolve_names`). Import from this module: it is the public API.
"""

from __future__ import annotations

from deck.formula.base import FormulaError
from deck.formula.names import resolve_names
from deck.formula.parser import MAX_DEPTH, MAX_LENGTH, evaluate, parse
from deck.formula.tree import BinOp, Call, Const, Expr, Neg, Num, Var

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
    "evaluate",
    "parse",
    "resolve_names",
]
