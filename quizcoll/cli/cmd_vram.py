"""Inference memory of a model: weights in any dtype or quantization format, KV cache,
forward-pass activations (with or without FlashAttention), runtime overhead and total;
with --gpu, how many of that GPU it needs and the longest context that fits.
Every size is shown in bytes, GB (10^9) and GiB (2^30).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from quizcoll.cli.common import MAX_FLAG_COUNT, add_json_argument, emit

MAX_OVERHEAD = 2**50  # --overhead: at most 1 PiB per GPU


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--model",
        metavar="NAME",
        help="a built-in model (llama-3-8b, mixtral-8x7b ...) or a Hugging Face repo ORG/NAME",
    )
    source.add_argument(
        "--config", metavar="CONFIG_JSON", type=Path, help="a Hugging Face config.json"
    )
    source.add_argument("--params", metavar="N", help="a bare parameter count (7e9, 6.74B)")
    parser.add_argument(
        "--dtype",
        default="fp16",
        metavar="DT",
        help="weights: fp32 fp16 bf16 fp8 int8 int4, gptq[-gN] awq[-gN], q8_0 q6_k q5_k q4_k q4_0 (default fp16)",
    )
    parser.add_argument(
        "--kv-dtype",
        default=None,
        metavar="DT",
        help="KV cache: fp32 fp16 bf16 fp8 int8 (default: fp32 for fp32 weights, else 16-bit)",
    )
    parser.add_argument(
        "--context",
        default=None,
        metavar="T",
        help="tokens per sequence; 32k = 32,768 (default: 4096 or the model's maximum if shorter)",
    )
    parser.add_argument("--batch", default="1", metavar="B", help="sequences at once (default 1)")
    parser.add_argument(
        "--gpu",
        default=None,
        metavar="NAME",
        help="a GPU (h100, a100-40gb, rtx-4090 ...) or 2xh100",
    )
    parser.add_argument(
        "--utilization",
        default=None,
        metavar="F",
        help="fraction of GPU memory an engine may use (default 0.9, like vLLM)",
    )
    parser.add_argument(
        "--overhead",
        default="1GiB",
        metavar="SIZE",
        help="runtime overhead per GPU: CUDA context, workspaces, allocator slack (default 1GiB)",
    )
    parser.add_argument(
        "--no-flash-attention",
        action="store_true",
        help="eager attention: the T×T score matrix is materialised",
    )
    add_json_argument(parser)


def _int_arg(text: str, label: str, minimum: int = 1) -> int:
    from deck.units import parse_number

    # UnitError is a DeckError: main() reports it in one line with exit 2.
    return int(
        parse_number(str(text), f"--{label}", low=minimum, high=MAX_FLAG_COUNT, integer=True)
    )


def _bytes_arg(text: str, label: str) -> int:
    from deck.units import Dim, parse_number

    return round(parse_number(text, f"--{label}", dim=Dim.BYTES, low=0, high=MAX_OVERHEAD))


def _float_arg(text: str, label: str) -> float:
    from deck.units import parse_number

    return float(parse_number(text, f"--{label}", low=0, high=1))


def run(args: argparse.Namespace) -> int:
    # A MemoryInputError is a DeckError: main() reports it in one line with exit 2.
    document, text = _compute(args)
    return emit(args, document, text)


def _compute(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    from quizcoll.memory import inference
    from quizcoll.memory.formats import parse_format, parse_kv_dtype
    from quizcoll.memory.gpus import DEFAULT_UTILIZATION, check_utilization, parse_gpu_spec
    from quizcoll.memory.params import count_parameters
    from quizcoll.memory.source import parse_context, resolve_source

    source = resolve_source(args.model, args.config, args.params)
    cfg = source.config
    fmt = parse_format(args.dtype)
    kv_fmt = parse_kv_dtype(args.kv_dtype) if args.kv_dtype is not None else None
    if args.context is not None:
        context = parse_context(args.context)
    else:
        context = min(4096, (cfg.max_position_embeddings if cfg else None) or 4096)
    batch = _int_arg(args.batch, "batch")
    overhead = _bytes_arg(args.overhead, "overhead")
    utilization = check_utilization(
        DEFAULT_UTILIZATION
        if args.utilization is None
        else _float_arg(args.utilization, "utilization")
    )
    flash = not args.no_flash_attention
    est = inference.estimate(
        cfg,
        fmt,
        parameters=source.parameters,
        kv_format=kv_fmt,
        context=context,
        batch=batch,
        flash_attention=flash,
        overhead_bytes=overhead,
    )
    kv_name = kv_fmt.name if kv_fmt else ("fp32" if fmt.compute_bytes == 4 else "fp16")
    thumb_bits = est.weights_bytes * 8 / est.parameters
    base, low, high = inference.rule_of_thumb(est.parameters, fmt.nominal_bits_per_weight)
    doc: dict[str, Any] = {
        "model": source.label,
        "dtype": fmt.name,
        "kv_dtype": kv_name,
        "context": context,
        "batch": batch,
        "flash_attention": flash,
        "parameters": est.parameters,
        "active_parameters": est.active_parameters,
        "bytes_per_parameter": est.bytes_per_parameter,
        "weights_bytes": est.weights_bytes,
        "kv_bytes_per_token": est.kv_bytes_per_token,
        "kv_cache_bytes": est.kv_cache_bytes,
        "activation_bytes": est.activation_bytes,
        "score_matrix_bytes": est.activations.score_matrix_bytes if est.activations else None,
        "overhead_bytes": est.overhead_bytes,
        "total_bytes": est.total_bytes,
        "rule_of_thumb": {"weights_bytes": base, "low_bytes": low, "high_bytes": high},
    }
    doc["warnings"] = []
    if cfg is not None:
        counts = count_parameters(cfg)
        doc["parameters_by_component"] = counts.as_dict()
        doc["model_type"] = cfg.model_type
        doc["max_position_embeddings"] = cfg.max_position_embeddings
        trained = cfg.max_position_embeddings or 0
        if 0 < trained < context:
            doc["warnings"].append(
                f"context {context:,} exceeds the {trained:,} tokens {source.label} was trained "
                "for: the memory is computed, but the model is not made for it"
            )
    if est.weights is not None and fmt.kept_dtype:
        doc["quantization"] = {
            "quantized_parameters": est.weights.quantized_parameters,
            "kept_parameters": est.weights.kept_parameters,
            "kept_dtype": fmt.kept_dtype,
            "kept_bytes": est.weights.kept_bytes,
            "fallbacks": list(est.weights.fallbacks),
        }
    gpu_lines: list[str] = []
    if args.gpu:
        gpu, count = parse_gpu_spec(args.gpu)
        needed = inference.gpus_needed(est, gpu, utilization)
        n = count or needed
        gpu_doc: dict[str, Any] = {
            "name": gpu.name,
            "reported_bytes": gpu.memory_bytes,
            "utilization": utilization,
            "usable_bytes": gpu.usable_bytes(utilization),
            "count": n,
            "per_gpu_bytes": est.per_gpu_bytes(n),
            "fits": est.per_gpu_bytes(n) <= gpu.usable_bytes(utilization),
        }
        if cfg is not None:
            gpu_doc["max_context"] = inference.max_context(
                cfg,
                fmt,
                gpu,
                gpus=n,
                kv_format=kv_fmt,
                batch=batch,
                utilization=utilization,
                flash_attention=flash,
                overhead_bytes=overhead,
            )
        doc["gpus_needed"] = needed
        doc["gpu"] = gpu_doc
        trained = (cfg.max_position_embeddings or 0) if cfg is not None else 0
        gpu_lines = _gpu_text(gpu_doc, needed, cfg is not None, trained)
    return doc, _text(doc, est, fmt, thumb_bits, gpu_lines)


def _gpu_text(g: dict[str, Any], needed: int, with_context: bool, trained: int) -> list[str]:
    from quizcoll.memory.report import bytes_three_ways

    lines = [
        "",
        f"{g['name']}: reports {bytes_three_ways(g['reported_bytes'])}",
        f"  usable at utilization {g['utilization']:g}: {bytes_three_ways(g['usable_bytes'])}",
        f"  GPUs needed: {needed} (weights, KV cache and activations split evenly; overhead on each)",
        f"  on {g['count']} GPU(s): {bytes_three_ways(g['per_gpu_bytes'])} per GPU — "
        + ("fits" if g["fits"] else "does NOT fit"),
    ]
    if with_context:
        beside = f" (the model was trained for {trained:,})" if trained else ""
        lines.append(
            f"  longest context that fits on {g['count']} GPU(s): "
            f"{g['max_context']:,} tokens{beside}"
        )
    return lines


def _text(doc: dict[str, Any], est: Any, fmt: Any, thumb_bits: float, gpu_lines: list[str]) -> str:
    from quizcoll.memory.report import byte_table, bytes_three_ways, count_table

    out = [f"{doc['model']}: {doc['parameters']:,} parameters"]
    if doc["active_parameters"] != doc["parameters"]:
        out[0] += f" ({doc['active_parameters']:,} active per token)"
    out.append(f"weights {fmt.describe()}; average {thumb_bits:.4g} bits per parameter")
    if "parameters_by_component" in doc:
        out += ["", "Parameters"]
        out.append(count_table(list(doc["parameters_by_component"].items())))
    q = doc.get("quantization")
    if q:
        out.append(
            f"  quantized: {q['quantized_parameters']:,}; kept in {q['kept_dtype']}: "
            f"{q['kept_parameters']:,}"
            + (f"; fallbacks: {', '.join(q['fallbacks'])}" if q["fallbacks"] else "")
        )
    if doc.get("max_position_embeddings"):
        out.append(f"trained context: {doc['max_position_embeddings']:,} tokens")
    attention = "FlashAttention" if doc["flash_attention"] else "eager attention (T×T scores)"
    out += [
        "",
        f"Memory (context {doc['context']:,} × batch {doc['batch']}, KV cache {doc['kv_dtype']}, "
        f"{attention})",
        byte_table(
            [
                ("weights", doc["weights_bytes"]),
                ("KV cache", doc["kv_cache_bytes"]),
                ("activations", doc["activation_bytes"]),
                ("overhead", doc["overhead_bytes"]),
            ],
            total_label="total",
        ),
    ]
    if doc["kv_bytes_per_token"] is not None:
        out.append(f"  KV cache per token: {doc['kv_bytes_per_token']:,} B")
    if doc["score_matrix_bytes"]:
        out.append(
            f"  of the activations, score matrices: {bytes_three_ways(doc['score_matrix_bytes'])}"
        )
    if doc["kv_cache_bytes"] is None:
        out.append("  KV cache and activations need the architecture: give --model or --config")
    thumb = doc["rule_of_thumb"]
    out += [
        "",
        f"Rule of thumb (parameters × {fmt.nominal_bits_per_weight / 8:g} B + 20–30%): "
        f"{thumb['low_bytes'] / 1e9:,.2f}–{thumb['high_bytes'] / 1e9:,.2f} GB = "
        f"{thumb['low_bytes'] / 2**30:,.2f}–{thumb['high_bytes'] / 2**30:,.2f} GiB "
        f"(computed total: {doc['total_bytes'] / 1e9:,.2f} GB = {doc['total_bytes'] / 2**30:,.2f} GiB)",
    ]
    warnings = [f"warning: {w}" for w in doc["warnings"]]
    return "\n".join(out + gpu_lines + (["", *warnings] if warnings else []))
