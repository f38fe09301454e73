"""Inference memory: KV cache, activations, GPU catalog, how many GPUs, longest context."""

from __future__ import annotations

import pytest

from quizcoll.memory import inference
from quizcoll.memory.catalog import load_model
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import parse_format, parse_kv_dtype
from quizcoll.memory.gpus import GPUS, find_gpu, parse_gpu_spec

FP16 = parse_format("fp16")


@pytest.mark.parametrize(
    ("name", "per_token"),
    [("llama-2-7b", 524_288), ("llama-3-8b", 131_072), ("llama-2-70b", 327_680), ("gpt2", 36_864)],
)
def test_kv_bytes_per_token(name: str, per_token: int) -> None:
    est = inference.estimate(load_model(name), FP16, context=1024)
    assert est.kv_bytes_per_token == per_token
    assert est.kv_cache_bytes == per_token * 1024


def test_kv_cache_is_linear_in_context_and_batch() -> None:
    cfg = load_model("llama-3-8b")
    one = inference.kv_cache_bytes(cfg, 1000, 1, 2)
    assert inference.kv_cache_bytes(cfg, 2000, 3, 2) == 6 * one
    assert inference.kv_cache_bytes(cfg, 1000, 1, 1) * 2 == one  # fp8 halves it


def test_sliding_window_caps_kv_cache() -> None:
    cfg = load_model("mistral-7b")
    capped = inference.kv_cache_bytes(cfg, 32768, 1, 2)
    assert capped == inference.kv_cache_bytes(cfg, 4096, 1, 2) == 131_072 * 4096


def test_fp8_kv_dtype() -> None:
    est = inference.estimate(
        load_model("llama-3-8b"), FP16, kv_format=parse_kv_dtype("fp8"), context=8
    )
    assert est.kv_bytes_per_token == 65_536


def test_score_matrix_is_quadratic_only_without_flash() -> None:
    cfg = load_model("llama-2-7b")
    eager = [inference.activation_bytes(cfg, t, 1, 2, flash_attention=False) for t in (1024, 2048)]
    flash = [inference.activation_bytes(cfg, t, 1, 2, flash_attention=True) for t in (1024, 2048)]
    assert flash[0].score_matrix_bytes == 0
    assert eager[0].score_matrix_bytes == 2 * 32 * 1024 * 1024 * 2
    assert eager[1].score_matrix_bytes == 4 * eager[0].score_matrix_bytes
    logits = 32000 * 4
    assert flash[1].total_bytes - logits == 2 * (flash[0].total_bytes - logits)  # linear


def test_totals_add_up() -> None:
    est = inference.estimate(load_model("llama-3-8b"), parse_format("bf16"), context=8192, batch=2)
    assert est.weights_bytes == 2 * 8_030_261_248
    assert est.total_bytes == (
        est.weights_bytes + est.kv_cache_bytes + est.activation_bytes + est.overhead_bytes
    )
    assert est.overhead_bytes == inference.DEFAULT_OVERHEAD_BYTES == 2**30


def test_bare_parameter_count() -> None:
    est = inference.estimate(None, FP16, parameters=7_000_000_000, overhead_bytes=0)
    assert est.total_bytes == 14_000_000_000 and est.kv_cache_bytes is None


def test_rule_of_thumb() -> None:
    assert inference.rule_of_thumb(7_000_000_000, 16) == (
        14_000_000_000,
        16_800_000_000,
        18_200_000_000,
    )


@pytest.mark.parametrize(
    ("context", "batch", "overhead"), [(0, 1, 0), (-5, 1, 0), (10, 0, 0), (10, 1, -1)]
)
def test_bad_requests(context: int, batch: int, overhead: int) -> None:
    with pytest.raises(MemoryInputError):
        inference.estimate(
            load_model("gpt2"), FP16, context=context, batch=batch, overhead_bytes=overhead
        )


def test_gpt2_context_beyond_learned_positions() -> None:
    with pytest.raises(MemoryInputError, match="learned position embeddings"):
        inference.estimate(load_model("gpt2"), FP16, context=1025)


REPORTED_MIB = {
    "a100-80gb": 81_920,
    "a100-40gb": 40_960,
    "h100-80gb": 81_559,
    "h200": 143_771,
    "rtx-4090": 24_564,
    "rtx-3090": 24_576,
    "l4": 23_034,
    "t4": 15_360,
}


@pytest.mark.parametrize(("key", "mib"), sorted(REPORTED_MIB.items()))
def test_gpu_reported_memory(key: str, mib: int) -> None:
    gpu = find_gpu(key)
    assert gpu.reported_mib == mib and gpu.memory_bytes == mib * 2**20
    assert gpu.usable_bytes() == int(mib * 2**20 * 0.9)


def test_gpu_names_and_counts() -> None:
    assert find_gpu("H100").key == "h100-80gb"
    assert parse_gpu_spec("2xH100") == (find_gpu("h100-80gb"), 2)
    assert parse_gpu_spec("4×A100")[1] == 4
    assert len({g.key for g in GPUS}) == len(GPUS)
    with pytest.raises(MemoryInputError, match="did you mean"):
        find_gpu("h10")


def test_gpus_needed() -> None:
    est = inference.estimate(None, FP16, parameters=70_000_000_000)
    a100 = find_gpu("a100-80gb")
    room = a100.usable_bytes() - 2**30
    assert inference.gpus_needed(est, a100) == -(-140_000_000_000 // room) == 2
    assert est.per_gpu_bytes(2) <= a100.usable_bytes() < est.per_gpu_bytes(1)


def test_max_context_is_the_boundary() -> None:
    cfg = load_model("llama-3-8b")
    gpu = find_gpu("rtx-4090")
    best = inference.max_context(cfg, FP16, gpu)
    usable = gpu.usable_bytes()
    assert best > 0
    assert inference.estimate(cfg, FP16, context=best).total_bytes <= usable
    assert inference.estimate(cfg, FP16, context=best + 1).total_bytes > usable
    eager = inference.max_context(cfg, FP16, gpu, flash_attention=False)
    assert eager < best


def test_max_context_zero_when_weights_do_not_fit() -> None:
    assert inference.max_context(load_model("llama-2-70b"), FP16, find_gpu("t4")) == 0


@pytest.mark.parametrize(
    ("name", "degrees"),
    [
        ("llama-2-7b", [1, 2, 4, 8]),  # 32 heads, 32 KV heads
        ("llama-2-13b", [1, 2, 4, 5, 8]),  # 40 heads: 5 divides them
        ("qwen2.5-7b", [1, 2, 4]),  # 28 heads, 4 KV heads: 7 splits queries, not KV heads
        ("gemma-2b", [1, 2, 4, 8]),  # MQA: the one KV head is replicated
        ("gpt2-xl", [1, 5]),  # 25 heads
    ],
)
def test_valid_tensor_parallel_degrees(name: str, degrees: list[int]) -> None:
    cfg = load_model(name)
    assert [d for d in range(1, 9) if inference.valid_tp_degree(cfg, d)] == degrees
    assert [inference.tp_degree(cfg, n) for n in range(1, 10)] == [
        min([d for d in degrees if d >= n], default=0) for n in range(1, 10)
    ]
