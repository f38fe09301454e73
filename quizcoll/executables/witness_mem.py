"""Second methods for the memory and fine-tuning cards (``witness.*``): KV caches, decoder
layers, LoRA adapters, NF4 blocks, logits (the training-memory ones are in
:mod:`quizcoll.executables.witness_mem_training`).

Each executable here wraps a witness of :mod:`quizcoll.witnesses` (``mem_*`` modules): the
model shapes, byte widths and allocator constants come in as arguments, which the cards fill
from cited constants (a ``config.json`` line, a source file's constant), never from the
catalogs the calculators read. Each declares how it obtains its result.
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
from quizcoll.constants.models import model_constants, model_keys
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.witnesses import (
    mem_kv,
    mem_layers,
)

MAX_COUNT = 2**40


def cited_shape(model: str) -> dict[str, float]:
    """A catalog model's figures as its ``config.json`` prints them (the cited constants of
    :mod:`quizcoll.constants.models`, each quote-checked; not the calculators' parser):
    ``{"layers": 32.0, "kv_heads": 8.0, …}``."""
    prefix = model.replace("-", "_").replace(".", "_") + "_"
    shape = {c.name[len(prefix) :]: c.value for c in model_constants() if c.name.startswith(prefix)}
    if "layers" not in shape:
        raise ArgumentError(f"model: no config.json figures for {model!r}")
    return shape


def _model_param() -> Param:
    return Param(
        "model",
        ParamKind.STR,
        "catalog model: its config.json figures",
        choices=model_keys(),
        default=None,
    )


def _refusing(function: Callable[..., Any]) -> Callable[..., Any]:
    """A witness's ValueError as the registry's one-line argument error."""
    return refusals_as_argument_errors(function, lambda: ValueError)


def _int(
    name: str, help: str, *, minimum: int = 1, maximum: float = MAX_COUNT, default: Any = None
) -> Param:
    if default is None:
        return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum)
    return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum, default=default)


def _bytes_per_value(default: Any = None) -> Param:
    if default is None:
        return Param(
            "bytes_per_value",
            ParamKind.FLOAT,
            "bytes of one stored value",
            minimum=0.0625,
            maximum=64,
        )
    return Param(
        "bytes_per_value",
        ParamKind.FLOAT,
        "bytes of one stored value",
        minimum=0.0625,
        maximum=64,
        default=default,
    )


def kv_cache(
    model: str | None,
    layers: int,
    kv_heads: int,
    head_dim: int,
    tokens: int,
    bytes_per_value: float,
    batch: int = 1,
    window: int = 0,
) -> dict[str, float]:
    """The enumerated KV cache of explicit shapes, or of ``model``'s config.json figures
    (its sliding window where the config sets one)."""
    if model is not None:
        if layers or kv_heads or head_dim:
            raise ArgumentError("give model or layers/kv_heads/head_dim, not both")
        s = cited_shape(model)
        layers, kv_heads, head_dim = int(s["layers"]), int(s["kv_heads"]), int(s["head_dim"])
        if not window and s["attention_window"] < s["trained_context"]:
            window = int(s["attention_window"])
    elif not (layers and kv_heads and head_dim):
        raise ArgumentError("give model, or all of layers, kv_heads and head_dim")
    return mem_kv.kv_cache_bytes(layers, kv_heads, head_dim, tokens, bytes_per_value, batch, window)


def _register_kv(registry: Registry) -> None:
    registry.add_function(
        "witness.kv_cache",
        _refusing(kv_cache),
        params=[
            _model_param(),
            _int("layers", "decoder layers (or model's)", maximum=1024, default=0, minimum=0),
            _int("kv_heads", "key/value heads (or model's)", maximum=1024, default=0, minimum=0),
            _int("head_dim", "head dimension (or model's)", maximum=4096, default=0, minimum=0),
            _int("tokens", "tokens appended to each sequence", minimum=0, maximum=1 << 20),
            _bytes_per_value(),
            _int("batch", "sequences", maximum=4096, default=1),
            _int("window", "sliding window (0: none)", minimum=0, maximum=1 << 20, default=0),
        ],
        fields=[
            Field("bytes", Dimension.BYTES, "the cached tensors' elements × bytes per value"),
            Field("elements", Dimension.COUNT, "shape products of the cached tensors, summed"),
            Field("tensors", Dimension.COUNT, "cached tensors (a key and a value per layer)"),
            Field("tokens_kept", Dimension.COUNT, "tokens one sequence's cache holds"),
        ],
        summary="The KV cache enumerated tensor by tensor ([batch, tokens, kv_heads, head_dim])",
    )
    registry.declare_derivation(
        "witness.kv_cache",
        Derivation.ENUMERATED,
        "lists a key and a value tensor per layer, [batch, kept, kv_heads, head_dim], and sums "
        "their shape products; a sliding window steps a rolling buffer token by token "
        "(quizcoll.witnesses.mem_kv)",
    )


_SHORT = {
    "q": "q_proj",
    "k": "k_proj",
    "v": "v_proj",
    "o": "o_proj",
    "gate": "gate_proj",
    "up": "up_proj",
    "down": "down_proj",
}


def _targets(text: str) -> tuple[str, ...]:
    if text.strip() == "all":
        return mem_layers.ATTENTION + mem_layers.MLP
    names = tuple(t.strip() for t in text.split(","))
    unknown = [t for t in names if t not in _SHORT]
    if unknown:
        raise ArgumentError(f"targets: {unknown[0]!r} is none of all, {', '.join(_SHORT)}")
    return tuple(_SHORT[t] for t in names)


def _model_widths(model: str) -> dict[str, int]:
    s = cited_shape(model)
    return {
        "layers": int(s["layers"]),
        "hidden": int(s["hidden"]),
        "q_width": int(s["heads"] * s["head_dim"]),
        "kv_width": int(s["kv_heads"] * s["head_dim"]),
        "intermediate": int(s["intermediate"]),
    }


def decoder_layer(
    hidden: int, kv_width: int, intermediate: int, q_width: int = 0
) -> dict[str, int]:
    """A Llama layer's tensors, listed and summed (q width = hidden unless given)."""
    return mem_layers.layer_parameter_counts(hidden, q_width or hidden, kv_width, intermediate)


def lora(
    rank: int,
    targets: str,
    state_bytes: float,
    model: str | None = None,
    d_in: int = 0,
    d_out: int = 0,
) -> dict[str, float]:
    """LoRA's A and B on every targeted projection of ``model`` (config.json's shape), or
    on one ``d_out`` × ``d_in`` matrix."""
    if model is not None:
        w = _model_widths(model)
        adapters = mem_layers.lora_adapters(rank, targets=_targets(targets), **w)
    elif d_in and d_out:
        adapters = [("A", (rank, d_in)), ("B", (d_out, rank))]
    else:
        raise ArgumentError("give model, or d_in and d_out")
    return mem_layers.lora_totals(adapters, state_bytes)


def nf4(values: int, double_quant: bool = True) -> dict[str, float]:
    """QLoRA's NF4 storage of ``values`` weights, block by block (the paper's block sizes)."""
    return mem_layers.nf4_bytes(values, double_quant=double_quant)


def logits(model: str, tokens: int, ranks: int, bytes_per_value: float) -> dict[str, float]:
    """The largest rank's logits with ``model``'s config.json vocabulary split over ``ranks``."""
    vocab = int(cited_shape(model)["vocab"])
    return mem_layers.vocab_parallel_logits(tokens, vocab, ranks, bytes_per_value)


def _register_layers(registry: Registry) -> None:
    width = "a width"
    registry.add_function(
        "witness.decoder_layer",
        _refusing(decoder_layer),
        params=[
            _int("hidden", "hidden size", maximum=1 << 20),
            _int("kv_width", "key/value projection width", maximum=1 << 20),
            _int("intermediate", "MLP width", maximum=1 << 22),
            _int("q_width", "query width (0: hidden)", minimum=0, maximum=1 << 20, default=0),
        ],
        fields=[
            Field("parameters", Dimension.COUNT, "the layer's tensors' elements"),
            Field("attention_parameters", Dimension.COUNT, "q, k, v, o"),
            Field("mlp_parameters", Dimension.COUNT, "gate, up, down"),
            Field("norm_parameters", Dimension.COUNT, "the two RMSNorm weights"),
        ],
        summary="A Llama decoder layer's parameter tensors listed shape by shape and summed",
    )
    registry.declare_derivation(
        "witness.decoder_layer",
        Derivation.ENUMERATED,
        "lists LlamaDecoderLayer's nine parameter tensors as [out, in] shapes and sums their "
        "products (quizcoll.witnesses.mem_layers)",
    )
    registry.add_function(
        "witness.lora",
        _refusing(lora),
        params=[
            _int("rank", "LoRA rank", maximum=4096),
            Param(
                "targets", ParamKind.STR, "all, or projections q,k,v,o,gate,up,down", default="q,v"
            ),
            Param(
                "state_bytes",
                ParamKind.FLOAT,
                "bytes kept per trainable value",
                minimum=0.0625,
                maximum=64,
                default=16.0,
            ),
            _model_param(),
            _int("d_in", f"inputs of one matrix ({width})", minimum=0, maximum=1 << 22, default=0),
            _int("d_out", "outputs of one matrix", minimum=0, maximum=1 << 22, default=0),
        ],
        fields=[
            Field("parameters", Dimension.COUNT, "the adapters' elements"),
            Field("adapted_matrices", Dimension.COUNT, "projections with an A and a B"),
            Field("state_bytes", Dimension.BYTES, "elements × state bytes"),
        ],
        summary="LoRA's A and B matrices listed on every targeted projection and summed",
    )
    registry.declare_derivation(
        "witness.lora",
        Derivation.ENUMERATED,
        "lists A [r, in] and B [out, r] for each targeted projection of each layer, shapes "
        "from config.json, and sums them (quizcoll.witnesses.mem_layers)",
    )
    registry.add_function(
        "witness.nf4",
        _refusing(nf4),
        params=[
            _int("values", "weights quantized", maximum=1 << 44),
            Param(
                "double_quant", ParamKind.BOOL, "quantize the block constants again", default=True
            ),
        ],
        fields=[
            Field("bytes", Dimension.BYTES, "codes and constants"),
            Field("code_bytes", Dimension.BYTES, "the packed 4-bit codes"),
            Field("constant_bytes", Dimension.BYTES, "the quantization constants"),
            Field("blocks", Dimension.COUNT, "blocks of 64 weights"),
        ],
        summary="NF4 storage counted block by block (codes, constants, second-level constants)",
    )
    registry.declare_derivation(
        "witness.nf4",
        Derivation.ENUMERATED,
        "counts the blocks of 64 weights and the groups of 256 block constants, and the bytes "
        "of codes and constants each stores (quizcoll.witnesses.mem_layers)",
    )
    registry.add_function(
        "witness.logits",
        _refusing(logits),
        params=[
            Param(
                "model",
                ParamKind.STR,
                "catalog model: its config.json vocabulary",
                choices=model_keys(),
            ),
            _int("tokens", "positions", maximum=1 << 30),
            _int("ranks", "tensor-parallel ranks splitting the vocabulary", maximum=1024),
            _bytes_per_value(),
        ],
        fields=[
            Field("bytes", Dimension.BYTES, "the largest rank's logits"),
            Field("elements", Dimension.COUNT, "the largest rank's logits' elements"),
            Field("slice", Dimension.COUNT, "the largest vocabulary slice"),
            Field("total_elements", Dimension.COUNT, "every rank's logits' elements"),
        ],
        summary="The logits tensor [tokens, slice] of every rank of a vocabulary split",
    )
    registry.declare_derivation(
        "witness.logits",
        Derivation.ENUMERATED,
        "splits config.json's vocabulary into contiguous rank slices and sums each rank's "
        "[tokens, slice] logits (quizcoll.witnesses.mem_layers)",
    )


# The allocator's figures as quizcoll/data/training.yaml cites them from
# c10/cuda/CUDACachingAllocator.cpp (not the calculator's own constants).


def register(registry: Registry) -> None:
    _register_kv(registry)
    _register_layers(registry)
