"""Second methods for the training-memory cards (``witness.*``): PyTorch's caching allocator
replayed, FSDP/HSDP stepped unit by unit, the tensors a layer saves for backward listed,
ZeRO-Offload's copies clocked, weights stored and measured.

Like :mod:`quizcoll.executables.witness_mem` (whose helpers these share), each wraps a witness
of :mod:`quizcoll.witnesses` and takes figures as arguments from cited constants.
"""

from __future__ import annotations

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
from quizcoll.constants.models import model_keys
from quizcoll.executables.witness_mem import (
    _int,
    _model_param,
    _refusing,
    cited_shape,
)
from quizcoll.witnesses import (
    mem_activations,
    mem_allocator,
    mem_formats,
    mem_offload,
    mem_sharding,
)

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
    _register_allocator(registry)
    _register_sharding(registry)
    _register_activations(registry)
    _register_offload(registry)
    _register_formats(registry)
