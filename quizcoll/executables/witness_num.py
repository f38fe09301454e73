"""Second methods for the number-format, scaling and summation cards (``witness.*``).

Each executable wraps a witness of :mod:`quizcoll.witnesses` (``num_*`` modules). A format
comes in as its bit layout (exponent bits, mantissa bits, what the all-ones exponent holds),
written in the card, never looked up in the format table the calculators read; the witness
decodes its bit patterns itself. Each declares how it obtains its result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deck.cards.registry import (
    ArgumentError,
    Derivation,
    Dimension,
    Field,
    Param,
    ParamKind,
    Registry,
)
from quizcoll.constants import all_constants
from quizcoll.constants.models import model_keys
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.witnesses import num_attention, num_floats, num_summation

C, R = Dimension.COUNT, Dimension.RATIO


def _refusing(function: Callable[..., Any]) -> Callable[..., Any]:
    """A witness's ValueError as the registry's one-line argument error."""
    return refusals_as_argument_errors(function, lambda: ValueError)


def float_layout(exponent_bits: int, mantissa_bits: int, specials: str = "ieee") -> dict[str, Any]:
    """Every bit pattern of the format decoded; its range read off the values."""
    f = num_floats.layout(exponent_bits, mantissa_bits, specials)
    return {
        "max_finite": f.max_finite,
        "min_normal": f.min_normal,
        "min_subnormal": f.min_subnormal,
        "patterns": f.patterns,
        "finite_patterns": f.finite,
    }


def float_digits(exponent_bits: int, mantissa_bits: int, specials: str = "ieee") -> dict[str, Any]:
    """The run of integers the format holds exactly, found by search; its log10 in digits."""
    run = num_floats.exact_integers(exponent_bits, mantissa_bits, specials)
    return {
        "exact_integers": run,
        "decimal_digits": num_floats.decimal_digits(exponent_bits, mantissa_bits, specials),
    }


def loss_scale(
    grad_max: float,
    scale: float,
    exponent_bits: int,
    mantissa_bits: int,
    specials: str = "ieee",
) -> dict[str, Any]:
    """Bisections over powers of two on the enumerated format's round-to-nearest cast."""
    safe = num_floats.largest_safe_scale(grad_max, exponent_bits, mantissa_bits, specials)
    kept = num_floats.smallest_kept_gradient(scale, exponent_bits, mantissa_bits, specials)
    return {
        "largest_safe_scale": safe.scale,
        "largest_safe_power": safe.power,
        "smallest_kept_gradient": kept.scale,
    }


def fp8_scale(
    amax: float, margin: int, exponent_bits: int, mantissa_bits: int, specials: str
) -> dict[str, Any]:
    """The largest scale that keeps amax, with margin doublings of headroom, in range."""
    return {"scale": num_floats.fp8_scale(amax, margin, exponent_bits, mantissa_bits, specials)}


def rounded_sum(
    value: float, count: int, significand_bits: int, exponent_bits: int, order: str = "sequential"
) -> dict[str, Any]:
    """``count`` copies of ``value`` added one at a time, each partial sum rounded."""
    s = num_summation.repeated(value, count, significand_bits, exponent_bits, order)
    return {"result": s.result, "exact": s.exact}


def rounded_order(
    big: float, small: float, count: int, significand_bits: int, exponent_bits: int
) -> dict[str, Any]:
    """One big value and ``count`` small ones, summed with the big one first and last."""
    s = num_summation.big_and_small(big, small, count, significand_bits, exponent_bits)
    return {"big_first": s.big_first, "big_last": s.big_last, "difference": s.difference}


def _layout_params() -> list[Param]:
    return [
        Param("exponent_bits", ParamKind.INT, "exponent bits e", minimum=2, maximum=11),
        Param("mantissa_bits", ParamKind.INT, "stored mantissa bits m", minimum=1, maximum=52),
        Param(
            "specials",
            ParamKind.STR,
            "what the all-ones exponent holds",
            choices=num_floats.SPECIALS,
            default="ieee",
        ),
    ]


def _sum_params() -> list[Param]:
    return [
        Param(
            "significand_bits",
            ParamKind.INT,
            "precision p of every partial sum (bf16: 8)",
            minimum=2,
            maximum=53,
        ),
        Param("exponent_bits", ParamKind.INT, "exponent bits (range guard)", minimum=2, maximum=11),
    ]


def register(registry: Registry) -> None:
    positive = {"minimum": 1e-45, "maximum": 1e38}
    registry.add_function(
        "witness.float_layout",
        _refusing(float_layout),
        params=_layout_params(),
        fields=[
            Field("max_finite", R, "largest finite value among the patterns"),
            Field("min_normal", R, "smallest positive value with a non-zero exponent field"),
            Field("min_subnormal", R, "smallest positive value of all"),
            Field("patterns", C, "bit patterns decoded"),
            Field("finite_patterns", C, "patterns that are finite numbers"),
        ],
    )
    registry.declare_derivation(
        "witness.float_layout",
        Derivation.ENUMERATED,
        "decodes every bit pattern of the format field by field and takes the max and min "
        "(quizcoll.witnesses.num_floats.layout)",
    )
    registry.add_function(
        "witness.float_digits",
        _refusing(float_digits),
        params=_layout_params(),
        fields=[
            Field("exact_integers", C, "largest 2^j with every integer up to it held exactly"),
            Field("decimal_digits", R, "log10 of that run"),
        ],
    )
    registry.declare_derivation(
        "witness.float_digits",
        Derivation.SEARCHED,
        "doubles j until 2^j + 1 is not a value, each test a bisection over the ordered "
        "patterns (quizcoll.witnesses.num_floats.exact_integers)",
    )
    registry.add_function(
        "witness.loss_scale",
        _refusing(loss_scale),
        params=[
            Param("grad_max", ParamKind.FLOAT, "largest gradient magnitude", **positive),
            Param("scale", ParamKind.FLOAT, "loss scale S", minimum=1e-10, maximum=1e30),
            *_layout_params(),
        ],
        fields=[
            Field("largest_safe_scale", R, "largest 2^k with grad_max · 2^k cast finite"),
            Field("largest_safe_power", C, "that k"),
            Field("smallest_kept_gradient", R, "smallest 2^j with 2^j · S cast unchanged"),
        ],
    )
    registry.declare_derivation(
        "witness.loss_scale",
        Derivation.SEARCHED,
        "bisects powers of two on a round-to-nearest cast to the enumerated format "
        "(quizcoll.witnesses.num_floats.largest_safe_scale, smallest_kept_gradient)",
    )
    registry.add_function(
        "witness.fp8_scale",
        _refusing(fp8_scale),
        params=[
            Param("amax", ParamKind.FLOAT, "largest |value| seen", **positive),
            Param("margin", ParamKind.INT, "powers of two of headroom", minimum=0, maximum=64),
            *_layout_params(),
        ],
        fields=[Field("scale", R, "largest s with amax · s · 2^margin ≤ the largest value")],
    )
    registry.declare_derivation(
        "witness.fp8_scale",
        Derivation.SEARCHED,
        "bisects the ordered float64 bit patterns for the largest scale that keeps the "
        "scaled amax under the enumerated format's largest value (num_floats.fp8_scale)",
    )
    acc = _sum_params()
    registry.add_function(
        "witness.rounded_sum",
        _refusing(rounded_sum),
        params=[
            Param("value", ParamKind.FLOAT, "the value added", minimum=1e-30, maximum=1e30),
            Param("count", ParamKind.INT, "copies", minimum=1, maximum=num_summation.MAX_COUNT),
            *acc,
            Param(
                "order",
                ParamKind.STR,
                "sequential or pairwise",
                choices=("sequential", "pairwise"),
                default="sequential",
            ),
        ],
        fields=[
            Field("result", R, "the sum, every partial sum rounded"),
            Field("exact", R, "the rounded input times the count"),
        ],
    )
    registry.declare_derivation(
        "witness.rounded_sum",
        Derivation.SIMULATED,
        "adds the values one at a time (or pair by pair), rounding every partial sum on its "
        "float64 bit pattern (quizcoll.witnesses.num_summation)",
    )
    registry.add_function(
        "witness.rounded_order",
        _refusing(rounded_order),
        params=[
            Param("big", ParamKind.FLOAT, "the one large value", minimum=1e-30, maximum=1e30),
            Param("small", ParamKind.FLOAT, "the small value", minimum=1e-30, maximum=1e30),
            Param(
                "count",
                ParamKind.INT,
                "copies of the small value",
                minimum=1,
                maximum=num_summation.MAX_COUNT,
            ),
            *acc,
        ],
        fields=[
            Field("big_first", R, "big value first, then the small ones"),
            Field("big_last", R, "the small ones first, then the big value"),
            Field("difference", R, "big_last − big_first"),
        ],
    )
    registry.declare_derivation(
        "witness.rounded_order",
        Derivation.SIMULATED,
        "adds the values one at a time in each order, rounding every partial sum on its "
        "float64 bit pattern (quizcoll.witnesses.num_summation.big_and_small)",
    )
    register_attention(registry)


def _cited(model: str) -> dict[str, float]:
    """A catalog model's published parameter count and config.json shape (cited constants,
    quote-checked; not the calculators' parser or parameter counter)."""
    prefix = model.replace("-", "_").replace(".", "_") + "_"
    wanted = {f"{prefix}{k}": k for k in ("params", "layers", "heads", "head_dim")}
    found = {wanted[c.name]: c.value for c in all_constants() if c.name in wanted}
    missing = sorted(set(wanted.values()) - set(found))
    if missing:
        raise ArgumentError(f"model {model!r}: no cited {', '.join(missing)}")
    return found


def attention_share(model: str, context: int) -> dict[str, Any]:
    """Attention's share of a training step's FLOPs, its matmuls enumerated."""
    c = _cited(model)
    s = num_attention.attention_share(
        c["params"], int(c["layers"]), int(c["heads"]), int(c["head_dim"]), context
    )
    return {
        "attention_share": s.attention_share,
        "attention_flops_per_token": s.attention_flops_per_token,
        "matmuls": s.matmuls,
    }


def register_attention(registry: Registry) -> None:
    registry.add_function(
        "witness.attention_share",
        _refusing(attention_share),
        params=[
            Param("model", ParamKind.STR, "catalog model: its cited figures", choices=model_keys()),
            Param("context", ParamKind.INT, "sequence length T", minimum=1, maximum=1 << 20),
        ],
        fields=[
            Field("attention_share", R, "attention's share of the training FLOPs per token"),
            Field("attention_flops_per_token", C, "the attention matmuls' FLOPs over T"),
            Field("matmuls", C, "attention matmuls enumerated"),
        ],
    )
    registry.declare_derivation(
        "witness.attention_share",
        Derivation.ENUMERATED,
        "lists every attention matmul of a forward and backward pass (layer by layer, head by "
        "head, each gradient) and sums 2·m·k·n (quizcoll.witnesses.num_attention)",
    )
