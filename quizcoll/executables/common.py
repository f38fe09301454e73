"""Shared pieces of the systems executables: refusals as argument errors, dtype parameters, text.

Every systems executable wraps its function with :func:`guard`, so a calculator's refusal
(``SystemsInputError``, or ``MemoryInputError`` from the model and GPU catalogs) reaches the
card author as the registry's one-line ``ArgumentError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deck.cards.registry import Dimension, Param, ParamKind
from deck.units import format_bytes_both, format_number
from quizcoll.executables import refusals_as_argument_errors

# Storage dtypes a size argument may name, and their bytes per value.
VALUE_BYTES: dict[str, float] = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}
MAX_PARAMS = 1e13
MAX_TOKENS = 1e16

# The namespaces of the systems executables (pipeline.*, training.*, ...).
SYSTEMS_NAMESPACES: tuple[str, ...] = (
    "pipeline",
    "training",
    "gpu",
    "serving",
    "context",
    "moe",
    "layout",
    "precision",
    "finetune",
    "allocator",
    "overlap",
)

# Field dimensions, short: bytes, counts, ratios, seconds, text.
B, C, R, S, T = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.SECONDS, Dimension.TEXT


def _refusals() -> tuple[type[Exception], ...]:
    from quizcoll.memory.errors import MemoryInputError
    from quizcoll.systems.errors import SystemsInputError

    return (SystemsInputError, MemoryInputError)


def guard(function: Callable[..., Any]) -> Callable[..., Any]:
    """Report the calculators' refusals as registry argument errors (one line, no traceback)."""
    return refusals_as_argument_errors(function, _refusals)


def dtype_param(name: str, help: str, default: str, choices: tuple[str, ...] = ()) -> Param:
    """A dtype argument (``bf16``) that :func:`value_bytes` turns into bytes per value."""
    return Param(name, ParamKind.STR, help, choices=choices or tuple(VALUE_BYTES), default=default)


def value_bytes(dtype: str) -> float:
    return VALUE_BYTES[dtype]


_REQUIRED: Any = object()


def count_param(
    name: str, help: str, maximum: float, *, minimum: float = 1, default: Any = _REQUIRED
) -> Param:
    """A whole-number argument; required unless ``default`` is given (None: optional)."""
    if default is _REQUIRED:
        return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum)
    return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum, default=default)


def params_param(default: Any = _REQUIRED) -> Param:
    return count_param("params", "parameter count", MAX_PARAMS, default=default)


def sizes(n: float) -> str:
    """Bytes in both units: ``13.04 GiB (14.00 GB)``."""
    return format_bytes_both(n)


def num(x: float, digits: int = 4) -> str:
    return format_number(x, digits)


def sci(x: float) -> str:
    """``7e9`` → ``7×10^9``; small numbers with separators."""
    if abs(x) >= 1e6:
        exponent = len(str(int(abs(x)))) - 1
        mantissa = x / 10**exponent
        return f"{format_number(mantissa, 4)}×10^{exponent}"
    return format_number(x)


def yes(flag: bool) -> str:
    return "yes" if flag else "no"


def utilization_param() -> Param:
    from quizcoll.memory.gpus import DEFAULT_UTILIZATION

    return Param(
        "utilization",
        ParamKind.FLOAT,
        "usable fraction of GPU memory",
        minimum=0.05,
        maximum=1.0,
        default=DEFAULT_UTILIZATION,
    )


def overhead_param() -> Param:
    from quizcoll.memory.inference import DEFAULT_OVERHEAD_BYTES

    return Param(
        "overhead",
        ParamKind.BYTES,
        "runtime overhead per GPU",
        minimum=0,
        maximum=2**40,
        default=DEFAULT_OVERHEAD_BYTES,
    )
