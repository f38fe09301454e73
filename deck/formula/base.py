"""What every part of the formula language shares: :class:`FormulaError`, the one error it
raises, and its vocabulary: the built-in functions (with their arity check), the names read
as functions, the names refused as functions, and the constants.

Used by :mod:`deck.formula.tree` (evaluating a call), :mod:`deck.formula.parser` (reading a
name) and :mod:`deck.formula.names` (hints); callers import from :mod:`deck.formula`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from deck.base.errors import DeckError


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
