"""Training memory per GPU for mixed-precision Adam: model states (weights, gradients,
optimizer states) at ZeRO stage 0–3 over N data-parallel GPUs, per the ZeRO paper with
K = 12; activations per Korthikanti et al. (2022), reported apart.
Every size is shown in bytes, GB (10^9) and GiB (2^30).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from quizcoll.cli.common import MAX_FLAG_COUNT, add_json_argument, emit

# The flags that only the activation estimate reads, with their defaults: given without an
# architecture (--params), they would be silently ignored.
_ACTIVATION_FLAGS = {"tp": "1", "seq_len": "2048", "micro_batch": "1"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--model",
        metavar="NAME",
        help="a built-in model (llama-3-8b, gpt2 ...) or a Hugging Face repo ORG/NAME",
    )
    source.add_argument(
        "--config", metavar="CONFIG_JSON", type=Path, help="a Hugging Face config.json"
    )
    source.add_argument("--params", metavar="N", help="a bare parameter count (7.5e9, 7.5B)")
    parser.add_argument(
        "--zero", default="0", choices=["0", "1", "2", "3"], help="ZeRO stage (default 0)"
    )
    parser.add_argument("--gpus", default="1", metavar="N", help="data-parallel GPUs (default 1)")
    parser.add_argument(
        "--seq-len",
        default=_ACTIVATION_FLAGS["seq_len"],
        metavar="S",
        help="sequence length for activations (2048)",
    )
    parser.add_argument(
        "--micro-batch",
        default=_ACTIVATION_FLAGS["micro_batch"],
        metavar="B",
        help="micro-batch size (1)",
    )
    parser.add_argument(
        "--tp", default=_ACTIVATION_FLAGS["tp"], metavar="T", help="tensor-parallel size (1)"
    )
    parser.add_argument(
        "--sequence-parallel", action="store_true", help="sequence parallelism with --tp"
    )
    parser.add_argument(
        "--recompute",
        default="none",
        choices=["none", "selective", "full"],
        help="activation recomputation (default none)",
    )
    add_json_argument(parser)


# Documented bounds (docs/limits.md): a sequence of at most 2^24 tokens, tensor parallelism
# over at most 1,024 GPUs, at most 2^20 GPUs, and a micro-batch of at most 4,096 sequences
# (a micro-batch is a part of the global batch; `--micro-batch 32k` is a sequence length
# typed into the wrong flag, not a batch any GPU holds).
MAX_SEQ_LEN = 2**24
MAX_TP = 1024
MAX_MICRO_BATCH = 4096
_MAXIMA = {"seq-len": MAX_SEQ_LEN, "tp": MAX_TP, "micro-batch": MAX_MICRO_BATCH}


def _int_arg(text: str, label: str) -> int:
    from deck.units import parse_number

    # UnitError is a DeckError: main() reports it in one line with exit 2.
    high = _MAXIMA.get(label, MAX_FLAG_COUNT)
    return int(parse_number(str(text), f"--{label}", low=1, high=high, integer=True))


def _check_tensor_parallel(tp: int, heads: int) -> None:
    """Megatron splits attention by whole heads: ``--tp`` must divide the head count.
    (The activation formula itself takes any t, as the cards' limit claims do.)"""
    from quizcoll.memory.errors import MemoryInputError

    if heads % tp:
        divisors = ", ".join(str(d) for d in range(1, heads + 1) if heads % d == 0)
        raise MemoryInputError(
            f"--tp {tp} does not divide the model's {heads} attention heads: tensor "
            f"parallelism gives each GPU whole heads (use one of {divisors})"
        )


def _refuse_activation_flags(args: argparse.Namespace) -> None:
    """--tp, --seq-len, --micro-batch, --sequence-parallel and --recompute need the model's
    layers and heads: with only --params nothing could check or use them."""
    from quizcoll.cli.common import UsageError

    given = [
        f"--{name.replace('_', '-')}"
        for name, default in _ACTIVATION_FLAGS.items()
        if getattr(args, name) != default
    ]
    given += ["--sequence-parallel"] if args.sequence_parallel else []
    given += ["--recompute"] if args.recompute != "none" else []
    if given:
        raise UsageError(
            f"{', '.join(given)}: the activation estimate needs the architecture (layers, "
            "heads); give --model or --config instead of --params"
        )


def run(args: argparse.Namespace) -> int:
    # A MemoryInputError is a DeckError: main() reports it in one line with exit 2.
    document, text = _compute(args)
    return emit(args, document, text)


def _compute(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    from quizcoll.memory.params import count_parameters
    from quizcoll.memory.source import resolve_source
    from quizcoll.memory.training import (
        ADAM_K,
        Recompute,
        model_states,
        training_activations,
        zero_table,
    )

    source = resolve_source(args.model, args.config, args.params)
    cfg = source.config
    parameters = count_parameters(cfg).total if cfg else source.parameters
    assert parameters is not None
    if cfg is None:
        _refuse_activation_flags(args)
    stage = int(args.zero)
    gpus = _int_arg(args.gpus, "gpus")
    states = model_states(parameters, stage, gpus)
    doc: dict[str, Any] = {
        "model": source.label,
        "parameters": parameters,
        "zero_stage": stage,
        "gpus": gpus,
        "optimizer_bytes_per_parameter": ADAM_K,
        "per_gpu_bytes": states.as_dict(),
        "zero_stages": {str(s.zero_stage): s.as_dict() for s in zero_table(parameters, gpus)},
        "activation_bytes": None,
        "activations": None,
    }
    if cfg is not None:
        _check_tensor_parallel(_int_arg(args.tp, "tp"), cfg.num_heads)
        acts = training_activations(
            seq_len=_int_arg(args.seq_len, "seq-len"),
            micro_batch=_int_arg(args.micro_batch, "micro-batch"),
            hidden=cfg.hidden_size,
            heads=cfg.num_heads,
            layers=cfg.num_layers,
            tensor_parallel=_int_arg(args.tp, "tp"),
            sequence_parallel=args.sequence_parallel,
            recompute=Recompute(args.recompute),
        )
        doc["activation_bytes"] = acts.total_bytes
        doc["activations"] = {
            "per_layer_bytes": acts.per_layer_bytes,
            "layers": acts.layers,
            "formula": acts.formula,
            "seq_len": _int_arg(args.seq_len, "seq-len"),
            "micro_batch": _int_arg(args.micro_batch, "micro-batch"),
            "tensor_parallel": _int_arg(args.tp, "tp"),
            "sequence_parallel": args.sequence_parallel,
            "recompute": args.recompute,
        }
    return doc, _text(doc)


def _text(doc: dict[str, Any]) -> str:
    from quizcoll.memory.report import byte_table, bytes_three_ways

    per = doc["per_gpu_bytes"]
    out = [
        f"{doc['model']}: {doc['parameters']:,} parameters, mixed-precision Adam "
        f"(K = {doc['optimizer_bytes_per_parameter']} B/parameter), "
        f"ZeRO stage {doc['zero_stage']} on {doc['gpus']} GPU(s)",
        "",
        "Model states per GPU",
        byte_table(
            [
                ("weights", per["weights"]),
                ("gradients", per["gradients"]),
                ("optimizer", per["optimizer_states"]),
            ],
            total_label="total",
        ),
        "",
        "All ZeRO stages, total per GPU",
        byte_table(
            [
                (f"stage {s}" + (" ◀" if int(s) == doc["zero_stage"] else ""), v["total"])
                for s, v in doc["zero_stages"].items()
            ]
        ),
        "",
    ]
    acts = doc["activations"]
    if acts is None:
        out.append("Activations: need the architecture; give --model or --config")
    else:
        out.append(
            f"Activations per GPU (Korthikanti et al. 2022, {acts['formula']} per layer; "
            f"s={acts['seq_len']}, b={acts['micro_batch']}, t={acts['tensor_parallel']}, "
            f"recompute {acts['recompute']}):"
        )
        out.append(f"  per layer: {bytes_three_ways(acts['per_layer_bytes'])}")
        out.append(f"  × {acts['layers']} layers: {bytes_three_ways(doc['activation_bytes'])}")
    return "\n".join(out)
