"""Dtypes and quantization formats: bits per weight from block layouts, GPTQ/AWQ tensor bytes."""

from __future__ import annotations

import pytest

from quizcoll.memory.catalog import load_model
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import (
    GGUF_BLOCKS,
    bytes_for_parameter_count,
    parse_format,
    parse_kv_dtype,
    weight_bytes,
)
from quizcoll.memory.params import Component, Role, Tensor, count_parameters, tensors


@pytest.mark.parametrize(
    ("name", "bpw"), [("q8_0", 8.5), ("q6_k", 6.5625), ("q5_k", 5.5), ("q4_k", 4.5), ("q4_0", 4.5)]
)
def test_gguf_bits_per_weight(name: str, bpw: float) -> None:
    assert GGUF_BLOCKS[name].bits_per_weight == bpw
    assert parse_format(name.upper()).nominal_bits_per_weight == bpw


@pytest.mark.parametrize(
    ("name", "bits"),
    [("fp32", 32), ("bf16", 16), ("float16", 16), ("fp8", 8), ("int8", 8), ("int4", 4)],
)
def test_plain_dtypes(name: str, bits: int) -> None:
    fmt = parse_format(name)
    assert fmt.bits == bits
    cfg = load_model("llama-2-7b")
    assert weight_bytes(tensors(cfg), fmt).total_bytes == 6_738_415_616 * bits // 8


def test_gptq_layout_of_one_linear() -> None:
    linear = Tensor("w", (4096, 4096), Component.ATTENTION, Role.LINEAR)
    fmt = parse_format("gptq")
    assert fmt.group_size == 128
    qweight = 4096 * 4096 // 2
    scales = 32 * 4096 * 2
    qzeros = 32 * (4096 // 8) * 4
    g_idx = 4096 * 4
    assert weight_bytes([linear], fmt).total_bytes == qweight + scales + qzeros + g_idx
    awq = weight_bytes([linear], parse_format("awq")).total_bytes
    assert awq == qweight + scales + qzeros
    assert (
        weight_bytes([linear], parse_format("gptq-g64")).total_bytes
        > qweight + scales + qzeros + g_idx
    )


def test_gptq_keeps_embeddings_head_norms_in_fp16() -> None:
    cfg = load_model("llama-2-7b")
    w = weight_bytes(tensors(cfg), parse_format("gptq"))
    kept = 2 * 32000 * 4096 + 65 * 4096
    assert w.kept_parameters == kept and w.kept_bytes == 2 * kept
    assert w.quantized_parameters + w.kept_parameters == 6_738_415_616
    # TheBloke/Llama-2-7B-GPTQ (4-bit, g128) ships 3.90 GB of safetensors
    assert 3.85e9 < w.total_bytes < 3.95e9


def test_gguf_keeps_vectors_and_router_in_f32_and_falls_back() -> None:
    mixtral = weight_bytes(tensors(load_model("mixtral-8x7b")), parse_format("q4_k"))
    counts = count_parameters(load_model("mixtral-8x7b"))
    assert mixtral.kept_parameters == counts.component(Component.NORMS) + counts.component(
        Component.ROUTER
    )
    assert mixtral.fallbacks == ()
    qwen = weight_bytes(tensors(load_model("qwen2.5-0.5b")), parse_format("q4_k"))
    # rows of 896 are not whole 256-blocks: llama.cpp uses Q5_0 (5.5 bits) for those tensors
    assert any("q5_0" in f for f in qwen.fallbacks)
    assert not any("down_proj" in f for f in qwen.fallbacks)  # rows of 4864 = 19 × 256


def test_bare_count_uses_nominal_bits() -> None:
    assert bytes_for_parameter_count(7_000_000_000, parse_format("fp16")) == 14_000_000_000
    assert bytes_for_parameter_count(1_000_000_000, parse_format("q4_0")) == 562_500_000
    assert parse_format("gptq").nominal_bits_per_weight == 4 + 20 / 128


@pytest.mark.parametrize(("bad", "hint"), [("fp61", "fp16"), ("q4_k_m", "q4_k"), ("bf61", "bf16")])
def test_unknown_format_suggests(bad: str, hint: str) -> None:
    with pytest.raises(MemoryInputError, match=f"did you mean '{hint}'"):
        parse_format(bad)


def test_kv_dtypes() -> None:
    assert parse_kv_dtype("fp8").bits == 8
    with pytest.raises(MemoryInputError, match="KV-cache dtype"):
        parse_kv_dtype("q4_k")
