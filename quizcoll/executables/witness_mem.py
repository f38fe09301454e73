"""Second methods for the memory, fine-tuning, sharding and allocator cards (``witness.*``).

Each executable here wraps a witness of :mod:`quizcoll.witnesses` (``mem_*`` modules): the
model shapes, byte widths and allocator constants come in as arguments, which the cards fill
from cited constants (a ``config.json`` line, a source file's constant), never from the
catalogs the calculators read. Each declares how it obtains its result.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
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
from quizcoll.constants.data import figures
from quizcoll.constants.models import model_constants, model_keys
from quizcoll.witnesses import (
    mem_activations,
    mem_allocator,
    mem_formats,
    mem_kv,
    mem_layers,
    mem_offload,
    mem_sharding,
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

    @wraps(function)
    def run(**kwargs: Any) -> Any:
        try:
            return function(**kwargs)
        except ValueError as exc:
            raise ArgumentError(str(exc)) from None

    return run


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
_ALLOC = {
    "min_block": "alloc_min_block",
    "small_size": "alloc_small_size",
    "small_buffer": "alloc_small_buffer",
    "large_buffer": "alloc_large_buffer",
    "min_large_alloc": "alloc_min_large_alloc",
    "round_large": "alloc_round_large",
}


def _allocator_constants() -> mem_allocator.AllocatorConstants:
    cited = {c.name: c.value for c in figures("training")}
    return mem_allocator.AllocatorConstants(**{k: int(cited[v]) for k, v in _ALLOC.items()})


def allocator(bytes: int, count: int = 1) -> dict[str, float]:
    """``count`` requests of ``bytes`` replayed on an empty cache, and how many the first
    segment serves when the requests keep coming."""
    c = _allocator_constants()
    state = mem_allocator.replay([int(bytes)] * count, c)
    return {
        "reserved_bytes": state.reserved_bytes,
        "allocated_bytes": state.allocated_bytes,
        "segments": len(state.segments),
        "first_segment_bytes": state.segments[0],
        "first_handed_out_bytes": state.handed_out[0],
        "served_by_first_segment": mem_allocator.served_by_first_segment(int(bytes), c),
    }


def _register_allocator(registry: Registry) -> None:
    registry.add_function(
        "witness.allocator",
        _refusing(allocator),
        params=[
            Param("bytes", ParamKind.BYTES, "bytes of each request", minimum=1, maximum=2**40),
            _int("count", "requests, all kept", maximum=mem_allocator.MAX_REQUESTS, default=1),
        ],
        fields=[
            Field("reserved_bytes", Dimension.BYTES, "the segments cudaMalloc-ed"),
            Field("allocated_bytes", Dimension.BYTES, "the blocks handed out"),
            Field("segments", Dimension.COUNT, "segments cudaMalloc-ed"),
            Field("first_segment_bytes", Dimension.BYTES, "the first segment's size"),
            Field("first_handed_out_bytes", Dimension.BYTES, "the first request's block"),
            Field("served_by_first_segment", Dimension.COUNT, "requests before a second segment"),
        ],
        summary="PyTorch's caching allocator replayed request by request on an empty cache",
    )
    registry.declare_derivation(
        "witness.allocator",
        Derivation.SIMULATED,
        "replays the requests block by block: best-fit free block or a new segment, split "
        "when the rest is worth keeping (quizcoll.witnesses.mem_allocator)",
    )


# Storage widths of the formats the sharding cards name (IEEE 754 binary32 and binary16;
# bfloat16 is 1 + 8 + 7 bits): this module's own record, not the calculators' table.
_WIDTH = {"fp32": 4, "bf16": 2, "fp16": 2}


def _width(name: str, dtype: str) -> int:
    if dtype not in _WIDTH:
        raise ArgumentError(f"{name}: {dtype!r} is none of {', '.join(_WIDTH)}")
    return _WIDTH[dtype]


def fsdp(
    params: int,
    gpus: int,
    units: int,
    shard_size: int = 0,
    param_dtype: str = "bf16",
    reduce_dtype: str = "fp32",
    prefetch: int = 1,
    reshard_after_forward: bool = True,
    state_bytes: float = 16.0,
) -> dict[str, float]:
    """One FSDP/HSDP step of rank 0, stepped unit by unit (shard group ``shard_size``, or
    all ``gpus``)."""
    group = shard_size or gpus
    if gpus % group:
        raise ArgumentError(f"shard_size: {group} does not divide {gpus} GPUs")
    step = mem_sharding.fsdp_step(
        params,
        group,
        units,
        replicas=gpus // group,
        prefetch=prefetch,
        reshard_after_forward=reshard_after_forward,
        param_bytes=_width("param_dtype", param_dtype),
        grad_bytes=_width("reduce_dtype", reduce_dtype),
        state_bytes=state_bytes,
    )
    return {
        "sharded_state_bytes": step.sharded_state_bytes,
        "forward_peak_bytes": step.forward_peak_bytes,
        "backward_peak_bytes": step.backward_peak_bytes,
        "shard_sent_bytes": step.shard_sent_bytes,
        "replicate_sent_bytes": step.replicate_sent_bytes,
        "sent_bytes": step.sent_bytes,
        "all_gathers_per_unit": step.all_gathers,
    }


def optimizer_shards(params: int, ranks: int, replicated: str, sharded: str) -> dict[str, float]:
    """Rank 0's model states: the ``replicated`` tensors whole, its range of the ``sharded``."""

    def widths(name: str, text: str) -> tuple[int, ...]:
        return tuple(_width(name, t.strip()) for t in text.split(",") if t.strip())

    return mem_sharding.distributed_optimizer_state(
        params, ranks, widths("replicated", replicated), widths("sharded", sharded)
    )


def _register_sharding(registry: Registry) -> None:
    dtypes = tuple(_WIDTH)
    registry.add_function(
        "witness.fsdp",
        _refusing(fsdp),
        params=[
            _int("params", "parameters", maximum=1 << 42),
            _int("gpus", "GPUs", maximum=1 << 16),
            _int("units", "FSDP units", maximum=4096),
            _int(
                "shard_size", "GPUs per shard group (0: all)", minimum=0, maximum=1 << 16, default=0
            ),
            Param("param_dtype", ParamKind.STR, "all-gather dtype", choices=dtypes, default="bf16"),
            Param("reduce_dtype", ParamKind.STR, "gradient dtype", choices=dtypes, default="fp32"),
            _int("prefetch", "units gathered ahead", minimum=0, maximum=64, default=1),
            Param(
                "reshard_after_forward", ParamKind.BOOL, "free units after forward", default=True
            ),
            Param(
                "state_bytes",
                ParamKind.FLOAT,
                "sharded bytes per parameter",
                minimum=1,
                maximum=64,
                default=16.0,
            ),
        ],
        fields=[
            Field("sharded_state_bytes", Dimension.BYTES, "the padded shard of the states"),
            Field("forward_peak_bytes", Dimension.BYTES, "most held during the forward"),
            Field("backward_peak_bytes", Dimension.BYTES, "most held during the backward"),
            Field("shard_sent_bytes", Dimension.BYTES, "sent in the shard group's rings"),
            Field("replicate_sent_bytes", Dimension.BYTES, "sent in the replicas' rings"),
            Field("sent_bytes", Dimension.BYTES, "all the rank sends in a step"),
            Field("all_gathers_per_unit", Dimension.COUNT, "times each unit is gathered"),
        ],
        summary="An FSDP/HSDP step stepped unit by unit: memory held and ring chunks sent",
    )
    registry.declare_derivation(
        "witness.fsdp",
        Derivation.SIMULATED,
        "walks the forward and backward unit by unit, gathering, prefetching and freeing, "
        "tracks the bytes held, and steps every all-gather, reduce-scatter and replica "
        "all-reduce as a ring, chunk by chunk (quizcoll.witnesses.mem_sharding)",
    )
    registry.add_function(
        "witness.optimizer_shards",
        _refusing(optimizer_shards),
        params=[
            _int("params", "parameters", maximum=1 << 42),
            _int("ranks", "data-parallel ranks", maximum=1 << 16),
            Param("replicated", ParamKind.STR, "dtypes of the tensors every rank holds whole"),
            Param("sharded", ParamKind.STR, "dtypes of the tensors split over the ranks"),
        ],
        fields=[
            Field("bytes", Dimension.BYTES, "rank 0's model states"),
            Field("replicated_bytes", Dimension.BYTES, "the whole tensors"),
            Field("sharded_bytes", Dimension.BYTES, "rank 0's ranges"),
            Field("tensors", Dimension.COUNT, "tensors rank 0 holds"),
        ],
        summary="The model-state tensors one data-parallel rank holds, whole or its range",
    )
    registry.declare_derivation(
        "witness.optimizer_shards",
        Derivation.ENUMERATED,
        "lists the state tensors rank 0 holds: the replicated ones whole and its contiguous "
        "range of each sharded one (quizcoll.witnesses.mem_sharding)",
    )


def gpt_activations(
    seq_len: int,
    micro_batch: int,
    model: str | None = None,
    hidden: int = 0,
    heads: int = 0,
    layers: int = 1,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
) -> dict[str, float]:
    """The paper's GPT layer listed tensor by tensor, with ``model``'s config.json hidden
    size, heads and layers or the ones given."""
    if model is not None:
        shape = cited_shape(model)
        hidden, heads, layers = int(shape["hidden"]), int(shape["heads"]), int(shape["layers"])
    if not (hidden and heads):
        raise ArgumentError("give model, or hidden and heads")
    saved = mem_activations.gpt_layer_saved(seq_len, micro_batch, hidden, heads, recompute)
    per_layer = mem_activations.saved_bytes(saved, tensor_parallel, sequence_parallel)
    return {"per_layer_bytes": per_layer, "total_bytes": per_layer * layers, "tensors": len(saved)}


def llama_activations(model: str, seq_len: int, micro_batch: int) -> dict[str, float]:
    """A Llama-family layer's saved tensors (SDPA, bf16) with config.json's shape."""
    s = cited_shape(model)
    saved = mem_activations.llama_layer_saved(
        seq_len,
        micro_batch,
        int(s["hidden"]),
        int(s["heads"]),
        int(s["kv_heads"]),
        int(s["head_dim"]),
        int(s["intermediate"]),
    )
    per_layer = mem_activations.saved_bytes(saved)
    return {
        "per_layer_bytes": per_layer,
        "total_bytes": per_layer * int(s["layers"]),
        "tensors": len(saved),
    }


def _register_activations(registry: Registry) -> None:
    seq = _int("seq_len", "sequence length", maximum=1 << 20)
    mb = _int("micro_batch", "micro-batch", maximum=4096)
    fields = [
        Field("per_layer_bytes", Dimension.BYTES, "one layer's saved tensors on one rank"),
        Field("total_bytes", Dimension.BYTES, "all layers"),
        Field("tensors", Dimension.COUNT, "saved tensors listed per layer"),
    ]
    registry.add_function(
        "witness.gpt_activations",
        _refusing(gpt_activations),
        params=[
            seq,
            mb,
            _model_param(),
            _int("hidden", "hidden size (or model's)", minimum=0, maximum=1 << 20, default=0),
            _int("heads", "attention heads (or model's)", minimum=0, maximum=4096, default=0),
            _int("layers", "layers (or model's)", maximum=1024, default=1),
            _int("tensor_parallel", "tensor-parallel ranks", maximum=1024, default=1),
            Param(
                "sequence_parallel",
                ParamKind.BOOL,
                "split the rest along the sequence",
                default=False,
            ),
            Param(
                "recompute",
                ParamKind.STR,
                "none, selective or full",
                choices=("none", "selective", "full"),
                default="none",
            ),
        ],
        fields=fields,
        summary="Korthikanti et al.'s GPT layer: the tensors saved for backward, listed",
    )
    registry.declare_derivation(
        "witness.gpt_activations",
        Derivation.ENUMERATED,
        "lists the layer's saved tensors (§4.1) with their shapes, widths and whether tensor "
        "parallelism splits them, and sums them per rank (quizcoll.witnesses.mem_activations)",
    )
    registry.add_function(
        "witness.llama_activations",
        _refusing(llama_activations),
        params=[
            Param(
                "model", ParamKind.STR, "catalog model: its config.json shape", choices=model_keys()
            ),
            seq,
            mb,
        ],
        fields=fields,
        summary="A Llama layer's tensors saved for backward under SDPA, listed",
    )
    registry.declare_derivation(
        "witness.llama_activations",
        Derivation.ENUMERATED,
        "lists the tensors a Llama layer saves under SDPA (norms, q, k, v, log-sum-exp, "
        "SwiGLU) with config.json's shape and sums them (quizcoll.witnesses.mem_activations)",
    )


def offload(params: int, bandwidth: float, duplex: bool = True) -> dict[str, float]:
    """ZeRO-Offload's copies (fp16 gradients out, fp16 parameters back) stepped on a clock."""
    step = mem_offload.offload_steps(params, bandwidth, duplex=duplex)
    return {
        "to_cpu_bytes": step.to_cpu_bytes,
        "to_gpu_bytes": step.to_gpu_bytes,
        "total_bytes": step.total_bytes,
        "step_time_s": step.step_time_s,
    }


def _register_offload(registry: Registry) -> None:
    registry.add_function(
        "witness.offload",
        _refusing(offload),
        params=[
            _int("params", "parameters", maximum=1 << 42),
            Param("bandwidth", ParamKind.RATE, "per direction", minimum=1, maximum=1e15),
            Param("duplex", ParamKind.BOOL, "a copy engine per direction", default=True),
        ],
        fields=[
            Field("to_cpu_bytes", Dimension.BYTES, "gradients copied out per step"),
            Field("to_gpu_bytes", Dimension.BYTES, "parameters copied back per step"),
            Field("total_bytes", Dimension.BYTES, "both directions"),
            Field("step_time_s", Dimension.SECONDS, "a steady-state step's copies"),
        ],
        summary="ZeRO-Offload's host copies stepped bucket by bucket on a clock",
    )
    registry.declare_derivation(
        "witness.offload",
        Derivation.SIMULATED,
        "steps the copy engines bucket by bucket over several steps (gradients out, "
        "parameters back once updated) and times a steady-state step "
        "(quizcoll.witnesses.mem_offload)",
    )


def _register_formats(registry: Registry) -> None:
    registry.add_function(
        "witness.stored_weights",
        _refusing(mem_formats.stored_bytes),
        params=[
            _int("values", "weights stored", maximum=1 << 44),
            Param("fmt", ParamKind.STR, "number format or GGUF type", choices=mem_formats.FORMATS),
        ],
        fields=[
            Field("bytes", Dimension.BYTES, "the encoded arrays' nbytes"),
            Field("bits_per_weight", Dimension.RATIO, "bytes × 8 / values"),
        ],
        summary="Weights encoded in a format with numpy and their bytes measured",
    )
    registry.declare_derivation(
        "witness.stored_weights",
        Derivation.MEASURED,
        "encodes a chunk of weights with numpy (IEEE dtypes, bf16 as fp32's upper half, int4 "
        "packed two to a byte, GGUF blocks as ggml-common.h's structs) and reads nbytes "
        "(quizcoll.witnesses.mem_formats)",
    )


def register(registry: Registry) -> None:
    _register_kv(registry)
    _register_layers(registry)
    _register_allocator(registry)
    _register_sharding(registry)
    _register_activations(registry)
    _register_offload(registry)
    _register_formats(registry)
