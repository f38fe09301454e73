"""serving.decode_crossover, hardware.transfer and hardware.hbm against their closed forms."""

from __future__ import annotations

import math

import pytest

from deck.cards.registry import ArgumentError
from quizcoll.executables import build_registry

REGISTRY = build_registry()
GB = 1e9
H100_BW, H100_BF16 = 3.35e12, 989.4e12
LLAMA31_8B = 8_030_261_248  # parameters (config.json)
KV_8B = 2 * 32 * 8 * 128  # values per token: 2 · layers · kv_heads · head_dim


def _crossover(weights: float, bw: float, flops: float, peak: float, kv_time: float) -> int:
    """Pope et al.: compute ≥ memory ⇔ b·(flops/peak − kv_time) ≥ weights/bw."""
    per_sequence = flops / peak - kv_time
    if per_sequence <= 0:
        return 0
    b = math.ceil((weights / bw) / per_sequence)
    return b if b <= 4096 else 0


@pytest.mark.parametrize(
    ("gpu", "bw", "peak"),
    [
        ("h100-80gb", H100_BW, H100_BF16),
        ("a100-80gb", 2.039e12, 312e12),
        ("h200", 4.8e12, H100_BF16),
    ],
)
@pytest.mark.parametrize(("dtype", "bytes_per_param"), [("bf16", 2), ("fp8", 1)])
def test_weights_only_crossover_is_the_ridge_times_bytes_per_parameter_over_two(
    gpu: str, bw: float, peak: float, dtype: str, bytes_per_param: int
) -> None:
    r = REGISTRY.call(
        "serving.decode_crossover", {"model": "llama-3.1-8b", "gpu": gpu, "dtype": dtype}
    )
    w = LLAMA31_8B * bytes_per_param
    assert r["weights_bytes"] == w
    assert r["batch"] == math.ceil(peak / bw * bytes_per_param / 2)
    assert r["batch"] == _crossover(w, bw, 2 * LLAMA31_8B, peak, 0.0)
    assert r["compute_bound"] == "yes"


@pytest.mark.parametrize(
    ("model", "params", "kv", "lhq", "context", "gpu", "bw", "peak"),
    [
        ("llama-3.1-8b", LLAMA31_8B, KV_8B, 32 * 32 * 128, 1024, "h100-80gb", H100_BW, H100_BF16),
        (
            "llama-3.1-70b",
            70_553_706_496,
            2 * 80 * 8 * 128,
            80 * 64 * 128,
            4096,
            "h200",
            4.8e12,
            H100_BF16,
        ),
        (
            "llama-3.1-70b",
            70_553_706_496,
            2 * 80 * 8 * 128,
            80 * 64 * 128,
            512,
            "h100-80gb",
            H100_BW,
            H100_BF16,
        ),
    ],
)
def test_crossover_with_a_kv_cache(
    model: str, params: int, kv: int, lhq: int, context: int, gpu: str, bw: float, peak: float
) -> None:
    args = {"model": model, "gpu": gpu, "dtype": "fp8", "kv_dtype": "fp8", "context": context}
    r = REGISTRY.call("serving.decode_crossover", args)
    expected = _crossover(params, bw, 2 * params + 4 * lhq * context, peak, kv * context / bw)
    assert r["batch"] == expected
    assert r["kv_bytes_per_token"] == kv
    if expected:  # the step at that batch is compute-bound, one below is not
        step = {k: v for k, v in args.items()}
        assert REGISTRY.call("serving.decode", {**step, "batch": expected})["bound"] == "compute"
        assert REGISTRY.call("serving.decode", {**step, "batch": expected - 1})["bound"] == "memory"


def test_gqa_8b_never_turns_compute_bound_at_long_context() -> None:
    r = REGISTRY.call("serving.decode_crossover", {"model": "llama-3.1-8b", "context": 8192})
    assert (r["batch"], r["compute_bound"]) == (0, "no")
    assert r["kv_time_per_sequence_s"] > r["flops_time_per_sequence_s"]


@pytest.mark.parametrize(
    ("link", "count", "line", "nccl", "raw"),
    [
        ("h100", 1, 450, 370.8, 450),
        ("v100", 1, 150, 120, 150),
        ("gen5", 1, 63.015, 48, 64),
        ("gen4", 2, 2 * 31.508, 48, 64),
        ("ndr", 8, 400, 400, 400),
        ("hdr", 4, 100, 100, 100),
    ],
)
def test_transfer_times(link: str, count: int, line: float, nccl: float, raw: float) -> None:
    size = 3 * 2**30
    r = REGISTRY.call("hardware.transfer", {"link": link, "size": size, "count": count})
    assert r["time_s"] == pytest.approx(size / (line * GB), rel=1e-4)
    assert r["nccl_time_s"] == pytest.approx(size / (nccl * GB))
    assert r["raw_time_s"] == pytest.approx(size / (raw * GB))
    assert r["bandwidth"] == pytest.approx(line * GB, rel=1e-4)


@pytest.mark.parametrize(
    ("gpu", "bw"), [("h100-80gb", 3.35e12), ("a100-80gb", 2.039e12), ("h200", 4.8e12)]
)
def test_hbm_pass(gpu: str, bw: float) -> None:
    r = REGISTRY.call("hardware.hbm", {"gpu": gpu, "size": 16 * GB})
    assert r["time_s"] == pytest.approx(16 * GB / bw)
    assert r["passes_per_s"] == pytest.approx(bw / (16 * GB))


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("hardware.transfer", {"link": "nvlink9", "size": 1}, "link"),
        ("hardware.transfer", {"link": "ndr", "size": 0}, "size"),
        ("hardware.transfer", {"link": "ndr", "size": 1, "count": 65}, "count"),
        ("hardware.hbm", {"gpu": "h1000", "size": 1}, "gpu"),
        ("serving.decode_crossover", {"model": "gpt2", "context": 4096}, "1024"),
        (
            "serving.decode_crossover",
            {"model": "llama-3.1-8b", "gpu": "a100-80gb", "compute_dtype": "fp8"},
            "fp8",
        ),
    ],
)
def test_refusals_are_one_line_argument_errors(name: str, args: dict, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        REGISTRY.call(name, args)


def test_explanations_name_the_answer() -> None:
    for name, args in [
        ("hardware.transfer", {"link": "ndr", "size": 2**30, "count": 8}),
        ("hardware.hbm", {"gpu": "h100-80gb", "size": 2**30}),
        ("serving.decode_crossover", {"model": "llama-3.1-8b"}),
        ("serving.decode_crossover", {"model": "llama-3.1-8b", "context": 8192}),
    ]:
        ex = REGISTRY.get(name)
        bound = ex.bind(args)
        assert "**" in ex.explain(bound, REGISTRY.call(name, args))
