"""The training cards' estimates: forward/backward FLOPs of a catalog model, a finished run's
MFU, float formats from any bit layout, and many identical live tensors in the caching
allocator (quizcoll/executables/estimates.py, quizcoll.systems.allocator.allocate_many)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.cards.registry import ArgumentError
from quizcoll.executables import build_registry
from quizcoll.systems import allocator as al

REGISTRY = build_registry()
MIB = 2**20


def run(name: str, **args: object) -> dict:
    return REGISTRY.call(name, args)


# ----------------------------------------------------------------------------- FLOPs


@pytest.mark.parametrize(
    ("model", "context"), [("llama-2-7b", 0), ("llama-3-8b", 8192), ("mixtral-8x7b", 4096)]
)
def test_forward_is_a_third_of_training_and_backward_twice_forward(
    model: str, context: int
) -> None:
    r = run("training.pass_flops", model=model, context=context)
    assert r["backward_flops_per_token"] == pytest.approx(2 * r["forward_flops_per_token"])
    assert r["training_flops_per_token"] == pytest.approx(3 * r["forward_flops_per_token"])
    # The same count as training.flops given the same shape and parameter count.
    p = run("memory.model_params", model=model)
    t = run(
        "training.flops",
        params=r["parameters"],
        tokens=1,
        seq_len=context,
        layers=p["layers"],
        heads=p["heads"],
        head_dim=p["head_dim"],
    )
    assert r["training_flops_per_token"] == pytest.approx(t["model_flops_per_token"])


def test_a_mixture_of_experts_counts_its_active_parameters() -> None:
    p = run("memory.model_params", model="mixtral-8x7b")
    r = run("training.pass_flops", model="mixtral-8x7b")
    assert r["parameters"] == p["active_parameters"] < p["parameters"]
    assert r["forward_flops_per_token"] == 2 * p["active_parameters"]


def test_forward_flops_by_hand() -> None:
    # Llama-2-7B at 4,096 tokens: 2N + 4·32·32·128·4096.
    r = run("training.pass_flops", model="llama-2-7b", context=4096, tokens=10)
    assert r["forward_flops_per_token"] == 2 * 6738415616 + 4 * 32 * 32 * 128 * 4096
    assert r["flops"] == 10 * r["forward_flops_per_token"]
    assert r["attention_share"] == pytest.approx(
        4 * 32 * 32 * 128 * 4096 / (2 * 6738415616 + 4 * 32 * 32 * 128 * 4096)
    )


@pytest.mark.parametrize(
    "args",
    [{}, {"model": "llama-2-7b", "layers": 32}, {"params": 7e9, "context": -1}],
)
def test_pass_flops_refusals(args: dict) -> None:
    with pytest.raises(ArgumentError):
        run("training.pass_flops", **args)


def test_run_mfu_matches_a_throughput_of_tokens_per_gpu_second() -> None:
    # Llama 2 7B: 2.0T tokens in 184,320 A100-hours.
    r = run("training.run_mfu", tokens=2e12, gpu_hours=184320, model="llama-2-7b", gpu="a100-80gb")
    m = run(
        "training.mfu",
        params=6738415616,
        tokens_per_second=2e12 / (184320 * 3600),
        gpus=1,
        gpu="a100-80gb",
    )
    assert (
        r["mfu"]
        == pytest.approx(m["mfu"])
        == pytest.approx(6 * 6738415616 * 2e12 / (184320 * 3600 * 312e12))
    )
    assert 0.39 < r["mfu"] < 0.40
    with_attention = run(
        "training.run_mfu",
        tokens=2e12,
        gpu_hours=184320,
        model="llama-2-7b",
        gpu="a100-80gb",
        seq_len=4096,
    )
    assert with_attention["mfu"] > r["mfu"]


# ----------------------------------------------------------------------------- formats


@pytest.mark.parametrize(
    ("name", "e", "m", "specials"),
    [
        ("fp32", 8, 23, "ieee"),
        ("fp16", 5, 10, "ieee"),
        ("bf16", 8, 7, "ieee"),
        ("fp8-e4m3", 4, 3, "nan-only"),
        ("fp8-e5m2", 5, 2, "ieee"),
        ("fp4-e2m1", 2, 1, "none"),
    ],
)
def test_a_layout_is_the_named_format(name: str, e: int, m: int, specials: str) -> None:
    assert run("precision.layout", exponent_bits=e, mantissa_bits=m, specials=specials) == run(
        "precision.format", format=name
    )


@given(st.integers(2, 11), st.integers(1, 52))
@settings(max_examples=60, deadline=None)
def test_ieee_layouts_decode_their_largest_pattern(e: int, m: int) -> None:
    from quizcoll.systems.precision import FloatFormat

    r = run("precision.layout", exponent_bits=e, mantissa_bits=m)
    largest_pattern = ((2**e - 2) << m) | (2**m - 1)  # exponent just below all-ones, mantissa full
    assert r["max_finite"] == FloatFormat("x", e, m).decode(largest_pattern)
    assert r["epsilon"] == 2.0**-m
    assert r["min_normal"] == 2.0 ** (2 - 2 ** (e - 1))


# ----------------------------------------------------------------------------- allocator


@pytest.mark.parametrize(
    ("size", "count", "segments", "allocated", "reserved"),
    [
        (512, 4096, 1, 2 * MIB, 2 * MIB),  # 4,096 × 512 B fill one 2 MiB segment exactly
        (1, 5000, 2, 5000 * 512, 4 * MIB),  # each rounds to 512 B
        (3 * MIB // 2, 13, 1, 20 * MIB, 20 * MIB),  # the 13th takes the 2 MiB it cannot split
        (3 * MIB // 2, 100, 8, 7 * 20 * MIB + 9 * 3 * MIB // 2, 8 * 20 * MIB),
        (6 * MIB, 3, 1, 18 * MIB, 20 * MIB),  # 2 MiB left over: too small for a fourth
        (10 * MIB, 4, 4, 40 * MIB, 40 * MIB),  # own segments from 10 MiB
        (11 * MIB, 2, 2, 2 * 12 * MIB, 2 * 12 * MIB),  # 12 MiB segment, 1 MiB rest not split
    ],
)
def test_many_requests_by_hand(
    size: int, count: int, segments: int, allocated: int, reserved: int
) -> None:
    r = al.allocate_many(size, count)
    assert (r.segments, r.allocated_bytes, r.reserved_bytes) == (segments, allocated, reserved)


@given(st.integers(1, 64 * MIB), st.integers(1, 3000))
@settings(max_examples=120, deadline=None)
def test_many_requests_invariants(size: int, count: int) -> None:
    r = al.allocate_many(size, count)
    b = al.allocate(size)
    assert r.segments == math.ceil(count / b.blocks_per_segment)
    assert count * size <= count * b.block_bytes <= r.allocated_bytes <= r.reserved_bytes
    assert r.reserved_bytes == r.segments * b.segment_bytes
    assert r.cached_free_bytes == r.reserved_bytes - r.allocated_bytes
    if count == 1:
        assert r.allocated_bytes == b.handed_out_bytes


@pytest.mark.parametrize(("size", "count"), [(0, 1), (512, 0), (512, al.MAX_REQUESTS + 1)])
def test_many_requests_refusals(size: int, count: int) -> None:
    with pytest.raises(ArgumentError):
        run("allocator.requests", bytes=size, count=count)


def test_requests_executable_fields() -> None:
    r = run("allocator.requests", bytes=6_400_000, count=1)  # PyTorch PR #86509's tensor
    assert r["segment_bytes"] == 20 * MIB and r["reserved_bytes"] == 20 * MIB
    assert r["allocated_bytes"] == 6_400_000 == r["requested_bytes"]
    assert r["cached_free_bytes"] == 20 * MIB - 6_400_000
