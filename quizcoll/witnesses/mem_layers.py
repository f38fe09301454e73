"""A decoder's weight tensors and the tensors built on them, listed shape by shape.

Provides:

- :func:`decoder_layer_tensors`: a Llama decoder layer's parameters (``LlamaDecoderLayer``:
  q/k/v/o projections, gate/up/down, two RMSNorm weights) as ``(name, shape)``;
- :func:`lora_adapters`: the LoRA matrices ``A [r, d_in]`` and ``B [d_out, r]`` added to each
  targeted projection of every layer (Hu et al. 2022), with their count and, given the bytes
  each trainable value keeps (weight, gradient, Adam moments), their state;
- :func:`nf4_bytes`: a tensor quantized the QLoRA way, block by block (Dettmers et al. 2023
  §3: 4-bit codes, one 8-bit constant per block of 64, those constants quantized again in
  blocks of 256 with one fp32 constant each);
- :func:`vocab_parallel_logits`: the logits tensor ``[tokens, slice]`` on each rank of a
  vocabulary split over tensor-parallel ranks (Megatron's vocab-parallel output layer).

Shapes come in as arguments (a card fills them from the figures a ``config.json`` prints).
"""

from __future__ import annotations

import math

Shape = tuple[int, ...]

ATTENTION = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP = ("gate_proj", "up_proj", "down_proj")


def _whole(name: str, value: int, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: expected a whole number of at least {least}, got {value!r}")
    return value


def decoder_layer_tensors(
    hidden: int, q_width: int, kv_width: int, intermediate: int
) -> list[tuple[str, Shape]]:
    """One layer's parameter tensors, ``nn.Linear`` weights as ``[out, in]``, no biases."""
    h, q, k, f = (
        _whole(n, v)
        for n, v in (
            ("hidden", hidden),
            ("q_width", q_width),
            ("kv_width", kv_width),
            ("intermediate", intermediate),
        )
    )
    return [
        ("self_attn.q_proj.weight", (q, h)),
        ("self_attn.k_proj.weight", (k, h)),
        ("self_attn.v_proj.weight", (k, h)),
        ("self_attn.o_proj.weight", (h, q)),
        ("mlp.gate_proj.weight", (f, h)),
        ("mlp.up_proj.weight", (f, h)),
        ("mlp.down_proj.weight", (h, f)),
        ("input_layernorm.weight", (h,)),
        ("post_attention_layernorm.weight", (h,)),
    ]


def layer_parameter_counts(
    hidden: int, q_width: int, kv_width: int, intermediate: int
) -> dict[str, int]:
    """The layer's tensors' elements summed, in total and per block."""
    parts = {"attention": 0, "mlp": 0, "norm": 0}
    for name, shape in decoder_layer_tensors(hidden, q_width, kv_width, intermediate):
        part = (
            "attention"
            if name.startswith("self_attn")
            else "mlp"
            if name.startswith("mlp")
            else "norm"
        )
        parts[part] += math.prod(shape)
    return {
        "parameters": sum(parts.values()),
        "attention_parameters": parts["attention"],
        "mlp_parameters": parts["mlp"],
        "norm_parameters": parts["norm"],
    }


def lora_adapters(
    rank: int,
    layers: int,
    hidden: int,
    q_width: int,
    kv_width: int,
    intermediate: int,
    targets: tuple[str, ...],
) -> list[tuple[str, Shape]]:
    """The LoRA tensors on the projections named in ``targets`` (``q_proj`` …) of every
    layer: for a weight ``[out, in]``, ``A [rank, in]`` and ``B [out, rank]``."""
    _whole("rank", rank)
    _whole("layers", layers)
    unknown = sorted(set(targets) - set(ATTENTION + MLP))
    if unknown or not targets:
        raise ValueError(f"targets: expected projections among {', '.join(ATTENTION + MLP)}")
    weights = {
        name.split(".")[1]: shape
        for name, shape in decoder_layer_tensors(hidden, q_width, kv_width, intermediate)
        if len(shape) == 2
    }
    out: list[tuple[str, Shape]] = []
    for layer in range(layers):
        for target in targets:
            d_out, d_in = weights[target]
            out.append((f"layers.{layer}.{target}.lora_A", (rank, d_in)))
            out.append((f"layers.{layer}.{target}.lora_B", (d_out, rank)))
    return out


def lora_totals(adapters: list[tuple[str, Shape]], state_bytes: float) -> dict[str, float]:
    """Adapters' elements summed, matrices adapted, and ``state_bytes`` kept per element."""
    if not state_bytes > 0:
        raise ValueError(f"state_bytes: expected a positive number, got {state_bytes!r}")
    parameters = sum(math.prod(shape) for _, shape in adapters)
    return {
        "parameters": parameters,
        "adapted_matrices": len(adapters) // 2,
        "state_bytes": parameters * state_bytes,
    }


def nf4_bytes(
    values: int,
    *,
    code_bits: int = 4,
    block: int = 64,
    constant_bits: int = 8,
    second_block: int = 256,
    second_constant_bits: int = 32,
    double_quant: bool = True,
) -> dict[str, float]:
    """Storage of ``values`` weights quantized block by block: the packed codes, one
    constant per ``block`` values and, with double quantization, those constants stored in
    ``constant_bits`` with one ``second_constant_bits`` constant per ``second_block`` of them
    (without it, each block's constant is fp32, ``second_constant_bits`` wide)."""
    for name, v in (
        ("values", values),
        ("code_bits", code_bits),
        ("block", block),
        ("constant_bits", constant_bits),
        ("second_block", second_block),
        ("second_constant_bits", second_constant_bits),
    ):
        _whole(name, v)
    code_bytes = math.ceil(values * code_bits / 8)  # codes packed two nibbles to a byte
    blocks = math.ceil(values / block)
    if double_quant:
        groups = math.ceil(blocks / second_block)
        constant_bytes = math.ceil(blocks * constant_bits / 8) + groups * second_constant_bits // 8
    else:
        constant_bytes = blocks * second_constant_bits // 8
    return {
        "bytes": code_bytes + constant_bytes,
        "code_bytes": code_bytes,
        "constant_bytes": constant_bytes,
        "blocks": blocks,
    }


def vocab_parallel_logits(
    tokens: int, vocab: int, ranks: int, bytes_per_value: float
) -> dict[str, float]:
    """The vocabulary split into ``ranks`` contiguous slices (the first ones one row longer
    when it does not divide), each rank's logits ``[tokens, slice]``; the largest rank's."""
    _whole("tokens", tokens)
    _whole("vocab", vocab)
    _whole("ranks", ranks)
    if ranks > vocab:
        raise ValueError(f"ranks: {ranks} ranks cannot split a vocabulary of {vocab}")
    base, extra = divmod(vocab, ranks)
    starts, start = [], 0
    for rank in range(ranks):
        size = base + (1 if rank < extra else 0)
        starts.append((start, start + size))
        start += size
    assert start == vocab
    shapes = [(tokens, end - begin) for begin, end in starts]
    largest = max(math.prod(s) for s in shapes)
    return {
        "bytes": largest * bytes_per_value,
        "elements": largest,
        "slice": max(s[1] for s in shapes),
        "total_elements": sum(math.prod(s) for s in shapes),
    }
