"""Number-format, fine-tuning and allocator executables: floating-point formats from their bit
layout (``precision.format``), loss scaling (``precision.loss_scale``), FP8 delayed scaling
(``precision.fp8_scale``), LoRA and QLoRA sizes and offload traffic (``finetune.*``) and the
PyTorch caching allocator's rounding (``allocator.block``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Field, Param, ParamKind, Registry
from deck.units import format_rate, format_seconds
from quizcoll.executables.common import (
    B,
    C,
    R,
    S,
    T,
    count_param,
    guard,
    num,
    params_param,
    sci,
    sizes,
    yes,
)
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.systems import allocator as al
from quizcoll.systems import finetune as ft
from quizcoll.systems import precision as pr


def float_format(format: str) -> dict[str, Any]:
    """A floating-point format's range and precision, computed from its bit layout."""
    return format_fields(pr.find_format(format))


def format_fields(f: pr.FloatFormat) -> dict[str, Any]:
    """The result fields of a format (``precision.format`` and ``precision.layout``)."""
    return {
        "max_finite": f.max_finite,
        "min_normal": f.min_normal,
        "min_subnormal": f.min_subnormal,
        "epsilon": f.epsilon,
        "exponent_bits": f.exponent_bits,
        "mantissa_bits": f.mantissa_bits,
        "bias": f.bias,
        "bits": f.bits,
        "bytes": f.bytes,
        "decimal_digits": f.decimal_digits,
    }


def _explain_format(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    e, m = r["exponent_bits"], r["mantissa_bits"]
    return (
        f"{args['format']}: 1 sign + {e} exponent + {m} mantissa bits, bias {r['bias']}: largest "
        f"**{r['max_finite']:.6g}**, smallest normal 2^{1 - r['bias']} = {r['min_normal']:.4g}, "
        f"smallest subnormal 2^{1 - r['bias'] - m} = {r['min_subnormal']:.4g}, epsilon "
        f"2^−{m} = {r['epsilon']:.4g}."
    )


def loss_scale(format: str, scale: float, grad_max: float, grad_min: float) -> dict[str, Any]:
    """What a loss scale does to a gradient range: overflow, underflow, headroom."""
    s = pr.loss_scaling(pr.find_format(format), scale, grad_max, grad_min)
    return {
        "overflows": yes(s.overflows),
        "underflows": yes(s.underflows),
        "largest_safe_power": s.largest_safe_power,
        "largest_safe_scale": 2.0**s.largest_safe_power,
        "headroom_bits": s.headroom_bits,
        "smallest_kept_gradient": s.smallest_kept_gradient,
    }


def _explain_loss_scale(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"× {args['scale']:g}: the largest gradient becomes {args['grad_max'] * args['scale']:.4g} "
        f"(overflows: {r['overflows']}), the smallest {args['grad_min'] * args['scale']:.4g} "
        f"(flushes to zero: {r['underflows']}). The largest power-of-two scale that keeps "
        f"{args['grad_max']:g} finite is **2^{r['largest_safe_power']}**."
    )


def fp8_scale(format: str, amax: float, margin: int = 0) -> dict[str, Any]:
    """Transformer Engine's delayed-scaling factor (FP8_MAX / amax) / 2^margin."""
    s = pr.fp8_scale(pr.find_format(format), amax, margin)
    return {"scale": s.scale, "scale_inv": s.scale_inv, "scaled_amax": s.scaled_amax}


def _explain_fp8(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    top = pr.find_format(args["format"]).max_finite
    return (
        f"({top:g} / {args['amax']:g}) / 2^{args['margin']} = **{r['scale']:.6g}**; the amax then "
        f"lands at {r['scaled_amax']:.6g}."
    )


def lora(
    rank: int,
    model: str | None = None,
    targets: str = "q,v",
    d_in: int = 0,
    d_out: int = 0,
    matrices: int = 0,
    base_params: int = 0,
    state_bytes: float = 16,
) -> dict[str, Any]:
    """LoRA's trainable parameters r·(d_in + d_out) per adapted matrix, on a model or a shape."""
    if model is not None:
        if d_in or d_out or matrices or base_params:
            raise ArgumentError("give either model or d_in/d_out/matrices, not both")
        plan = ft.model_lora(load_model(model), rank, ft.parse_targets(targets))
        count, base, adapted = plan.lora_parameters, plan.base_parameters, plan.adapted_matrices
    else:
        if not (d_in and d_out and matrices):
            raise ArgumentError("give a model, or d_in, d_out and matrices")
        count = ft.lora_parameters([(d_out, d_in, matrices)], rank)
        base, adapted = base_params, matrices
    return {
        "lora_parameters": count,
        "adapted_matrices": adapted,
        "trainable_fraction": count / base if base else 0.0,
        "adapter_bytes": 2 * count,
        "trainable_state_bytes": state_bytes * count,
    }


def _explain_lora(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    where = (
        f"{args['model']} ({args['targets']})"
        if args["model"]
        else f"{args['matrices']} matrices of {args['d_out']} × {args['d_in']}"
    )
    return (
        f"r·(d_in + d_out) per matrix, r = {args['rank']}, over {r['adapted_matrices']:,} "
        f"adapted matrices of {where}: **{r['lora_parameters']:,} trainable parameters**"
        + (
            f" ({num(r['trainable_fraction'] * 100)} % of the model)"
            if r["trainable_fraction"]
            else ""
        )
        + f"; their training state at {num(args['state_bytes'])} B each: "
        f"{sizes(r['trainable_state_bytes'])}."
    )


def qlora(params: int, double_quant: bool = True) -> dict[str, Any]:
    """QLoRA's NF4 base weights: 4.5 bits per weight, 4.127 with double quantization."""
    s = ft.nf4_storage(params, double_quant)
    return {
        "bits_per_parameter": s.bits_per_parameter,
        "constant_bits": s.constant_bits,
        "weight_bytes": s.weight_bytes,
        "bf16_bytes": s.bf16_bytes,
        "saving": s.bf16_bytes / s.weight_bytes,
    }


def _explain_qlora(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    form = "4 + 8/64 + 32/(64·256)" if args["double_quant"] else "4 + 32/64"
    return (
        f"{form} = **{r['bits_per_parameter']:.4f} bits per weight**; × {sci(args['params'])} = "
        f"{sizes(r['weight_bytes'])} against {sizes(r['bf16_bytes'])} in bf16."
    )


def offload(params: int, bandwidth: float) -> dict[str, Any]:
    """ZeRO-Offload's PCIe traffic per step (fp16 grads out, fp16 params back) and its time."""
    o = ft.offload_transfer(params, bandwidth)
    return {
        "to_cpu_bytes": o.to_cpu_bytes,
        "to_gpu_bytes": o.to_gpu_bytes,
        "total_bytes": o.to_cpu_bytes + o.to_gpu_bytes,
        "duplex_time_s": o.duplex_time_s,
        "serial_time_s": o.serial_time_s,
    }


def _explain_offload(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"2Ψ of fp16 gradients to the CPU ({sizes(r['to_cpu_bytes'])}) and 2Ψ of fp16 "
        f"parameters back, at {format_rate(args['bandwidth'])} per direction: "
        f"**{format_seconds(r['duplex_time_s'])}** when both directions overlap, "
        f"{format_seconds(r['serial_time_s'])} one after the other."
    )


def block(bytes: int) -> dict[str, Any]:
    """How PyTorch's caching allocator rounds a request and what segment a miss allocates."""
    b = al.allocate(bytes)
    return {
        "block_bytes": b.block_bytes,
        "pool": b.pool,
        "segment_bytes": b.segment_bytes,
        "remainder_bytes": b.remainder_bytes,
        "split": yes(b.split),
        "handed_out_bytes": b.handed_out_bytes,
        "rounding_waste_bytes": b.rounding_waste_bytes,
        "blocks_per_segment": b.blocks_per_segment,
    }


def _explain_block(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{args['bytes']:,} B rounds up to a multiple of 512: **{r['block_bytes']:,} B**, "
        f"{r['pool']} pool; a cache miss cudaMallocs a {sizes(r['segment_bytes'])} segment, "
        f"the {sizes(r['remainder_bytes'])} rest is split off: {r['split']}; one segment serves "
        f"{r['blocks_per_segment']:,} such requests."
    )


FORMAT_FIELDS: tuple[Field, ...] = (
    Field("max_finite", R, "largest finite value"),
    Field("min_normal", R, "smallest positive normal value"),
    Field("min_subnormal", R, "smallest positive subnormal value"),
    Field("epsilon", R, "gap between 1 and the next value"),
    Field("exponent_bits", C, "exponent bits"),
    Field("mantissa_bits", C, "mantissa (fraction) bits"),
    Field("bias", C, "exponent bias"),
    Field("bits", C, "bits per value"),
    Field("bytes", R, "bytes per stored value"),
    Field("decimal_digits", R, "significant decimal digits"),
)


def register(registry: Registry) -> None:
    fmt = Param("format", ParamKind.STR, "floating-point format", choices=pr.FORMAT_NAMES)
    registry.add_function(
        "precision.format",
        guard(float_format),
        params=[fmt],
        fields=list(FORMAT_FIELDS),
        explain=_explain_format,
    )
    positive = {"minimum": 1e-45, "maximum": 1e38}
    registry.add_function(
        "precision.loss_scale",
        guard(loss_scale),
        params=[
            fmt,
            Param("scale", ParamKind.FLOAT, "loss scale S", minimum=1e-10, maximum=1e30),
            Param("grad_max", ParamKind.FLOAT, "largest gradient magnitude", **positive),
            Param("grad_min", ParamKind.FLOAT, "smallest gradient magnitude to keep", **positive),
        ],
        fields=[
            Field("overflows", T, "yes if grad_max × S is past the largest finite value"),
            Field("underflows", T, "yes if grad_min × S is below the smallest subnormal"),
            Field("largest_safe_power", C, "largest k with grad_max × 2^k finite"),
            Field("largest_safe_scale", R, "2^k"),
            Field("headroom_bits", R, "log2(max / (grad_max × S))"),
            Field("smallest_kept_gradient", R, "smallest gradient that survives the scale"),
        ],
        explain=_explain_loss_scale,
    )
    registry.add_function(
        "precision.fp8_scale",
        guard(fp8_scale),
        params=[
            Param("format", ParamKind.STR, "FP8 format", choices=("fp8-e4m3", "fp8-e5m2")),
            Param("amax", ParamKind.FLOAT, "largest |value| seen (amax history)", **positive),
            count_param("margin", "TE's margin (powers of two)", 64, minimum=0, default=0),
        ],
        fields=[
            Field("scale", R, "(FP8_MAX / amax) / 2^margin"),
            Field("scale_inv", R, "1 / scale"),
            Field("scaled_amax", R, "amax × scale"),
        ],
        explain=_explain_fp8,
    )
    zero = {"minimum": 0, "default": 0}
    registry.add_function(
        "finetune.lora",
        guard(lora),
        params=[
            count_param("rank", "LoRA rank r", 65536),
            Param("model", ParamKind.STR, "a built-in model", choices=model_names(), default=None),
            Param(
                "targets",
                ParamKind.STR,
                f"adapted matrices: comma-separated {', '.join(ft.TARGET_NAMES)}, or all",
                default="q,v",
            ),
            count_param("d_in", "input features (instead of a model)", 1e6, **zero),
            count_param("d_out", "output features", 1e6, **zero),
            count_param("matrices", "adapted matrices", 1e6, **zero),
            count_param("base_params", "base parameters (for the fraction)", 1e13, **zero),
            Param(
                "state_bytes",
                ParamKind.FLOAT,
                "training-state bytes per trainable parameter",
                minimum=1,
                maximum=64,
                default=16.0,
            ),
        ],
        fields=[
            Field("lora_parameters", C, "trainable parameters"),
            Field("adapted_matrices", C, "matrices with an adapter"),
            Field("trainable_fraction", R, "of the base model (0 if unknown)"),
            Field("adapter_bytes", B, "adapter weights in bf16"),
            Field("trainable_state_bytes", B, "weights, grads and Adam state of the adapters"),
        ],
        explain=_explain_lora,
    )
    registry.add_function(
        "finetune.qlora",
        guard(qlora),
        params=[
            params_param(),
            Param("double_quant", ParamKind.BOOL, "double quantization", default=True),
        ],
        fields=[
            Field("bits_per_parameter", R, "bits per weight, constants included"),
            Field("constant_bits", R, "quantization constants per weight, in bits"),
            Field("weight_bytes", B, "NF4 base weights"),
            Field("bf16_bytes", B, "the same weights in bf16"),
            Field("saving", R, "bf16 bytes over NF4 bytes"),
        ],
        explain=_explain_qlora,
    )
    registry.add_function(
        "finetune.offload",
        guard(offload),
        params=[
            params_param(),
            Param(
                "bandwidth",
                ParamKind.RATE,
                "host link bandwidth per direction",
                minimum=1e6,
                maximum=1e13,
            ),
        ],
        fields=[
            Field("to_cpu_bytes", B, "fp16 gradients to the CPU"),
            Field("to_gpu_bytes", B, "fp16 parameters back"),
            Field("total_bytes", B, "both directions"),
            Field("duplex_time_s", S, "both directions at once"),
            Field("serial_time_s", S, "one direction after the other"),
        ],
        explain=_explain_offload,
    )
    registry.add_function(
        "allocator.block",
        guard(block),
        params=[Param("bytes", ParamKind.BYTES, "requested bytes", minimum=1, maximum=2**40)],
        fields=[
            Field("block_bytes", B, "rounded block"),
            Field("pool", T, "small or large"),
            Field("segment_bytes", B, "cudaMalloc'd segment on a cache miss"),
            Field("remainder_bytes", B, "segment − block"),
            Field("split", T, "yes if the remainder stays cached"),
            Field("handed_out_bytes", B, "the block, or the whole segment"),
            Field("rounding_waste_bytes", B, "block − request"),
            Field("blocks_per_segment", C, "identical requests one segment serves"),
        ],
        explain=_explain_block,
    )
