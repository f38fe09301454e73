"""Roofline, decode speed, PagedAttention, prefix caching, speculative decoding, MLA."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizcoll.executables import build_registry
from quizcoll.systems import serving as sv
from quizcoll.systems.errors import SystemsInputError

H100 = (989.4e12, 3.35e12)


def test_roofline_ridge_and_bounds() -> None:
    peak, bw = H100
    low = sv.roofline(1e9, 1e9, peak, bw)  # intensity 1: far below the ridge
    assert low.ridge_point == pytest.approx(295.34, abs=0.01)
    assert low.bound == "memory" and low.attainable_flops == pytest.approx(bw)
    high = sv.roofline(1e12, 1e9, peak, bw)  # intensity 1000
    assert high.bound == "compute" and high.attainable_flops == peak
    assert high.time_s == pytest.approx(1e12 / peak)


@pytest.mark.parametrize(("m", "intensity"), [(1, 4096 / 4098), (4096, 4096 / 3)])
def test_matmul_intensity(m: int, intensity: float) -> None:
    # A GEMV (one token) reads the whole 4096 × 4096 weight for 2 FLOPs per weight: ≈ 1.
    flops, nbytes = sv.matmul_cost(m, 4096, 4096, 2)
    assert flops / nbytes == pytest.approx(intensity)


def test_decode_step() -> None:
    step = sv.decode_step(
        weights_bytes=14e9,
        kv_read_bytes=2e9,
        batch=4,
        flops_per_token=14e9,
        bandwidth=2e12,
        peak_flops=312e12,
    )
    assert step.memory_time_s == pytest.approx(16e9 / 2e12)
    assert step.compute_time_s == pytest.approx(4 * 14e9 / 312e12)
    assert step.bound == "memory" and step.time_s == step.memory_time_s


def test_batching_amortises_the_weight_read() -> None:
    registry = build_registry()
    one = registry.call("serving.decode", {"model": "llama-3-8b", "context": 1024, "batch": 1})
    many = registry.call("serving.decode", {"model": "llama-3-8b", "context": 1024, "batch": 32})
    assert many["tokens_per_s"] > 10 * one["tokens_per_s"]
    assert many["tokens_per_s_per_sequence"] < one["tokens_per_s_per_sequence"]
    huge = registry.call("serving.decode", {"model": "llama-3-8b", "context": 16, "batch": 4096})
    assert huge["bound"] == "compute"  # enough tokens per weight read to pass the ridge


def test_request_decode_time_sums_the_steps() -> None:
    registry = build_registry()
    r = registry.call("serving.request", {"model": "llama-2-7b", "prompt": 100, "output": 10})
    weights, kv, bw = 2 * 6_738_415_616, 524_288, 3.35e12
    expected = sum((weights + kv * (100 + i)) / bw for i in range(10))
    assert r["decode_s"] == pytest.approx(expected)
    assert r["memory_bound_steps"] == 10
    assert r["prefill_bound"] == "memory"  # 100 tokens: reading the weights takes longer
    long = registry.call("serving.request", {"model": "llama-2-7b", "prompt": 4000, "output": 1})
    assert long["prefill_bound"] == "compute"
    assert long["prefill_s"] == pytest.approx(long["prefill_flops"] / 989.4e12)


@pytest.mark.parametrize(
    ("tokens", "block", "blocks", "waste"),
    [(1, 16, 1, 15), (16, 16, 1, 0), (17, 16, 2, 15), (1000, 16, 63, 8), (4095, 32, 128, 1)],
)
def test_paged_kv(tokens: int, block: int, blocks: int, waste: int) -> None:
    p = sv.paged_kv(tokens, block, 524_288, sequences=2, max_len=4096)
    assert (p.blocks, p.waste_tokens) == (blocks, waste)
    assert p.waste_bytes == waste * 524_288 * 2
    assert p.reserved_waste_bytes == (4096 - tokens) * 524_288 * 2
    assert p.waste_tokens < block


def test_prefix_cache_shares_full_blocks_only() -> None:
    c = sv.prefix_cache(1000, 8, 16, 131_072)
    assert c.shared_tokens == 992
    assert c.saved_bytes == 7 * 992 * 131_072
    assert c.bytes_with_sharing == c.bytes_without_sharing - c.saved_bytes
    assert sv.prefix_cache(15, 8, 16, 1).saved_bytes == 0  # no full block to share


@given(alpha=st.floats(0, 0.99), gamma=st.integers(1, 16))
def test_speculative_expectation_is_leviathans_closed_form(alpha: float, gamma: int) -> None:
    s = sv.speculative(alpha, gamma, 0.0)
    assert s.expected_tokens == pytest.approx((1 - alpha ** (gamma + 1)) / (1 - alpha))
    assert s.accepted_draft_tokens == pytest.approx(s.expected_tokens - 1)


def test_speculative_edges_and_best_gamma() -> None:
    assert sv.speculative(1.0, 4, 0.0).expected_tokens == 5  # every draft accepted
    assert sv.speculative(0.0, 4, 0.0).expected_tokens == 1  # only the target's token
    s = sv.speculative(0.8, 4, 0.05)
    assert s.speedup == pytest.approx(((1 - 0.8**5) / 0.2) / (4 * 0.05 + 1))
    assert s.best_speedup >= s.speedup
    assert sv.speculative(0.5, 1, 1.0).best_gamma == 1  # an expensive draft: γ = 1 at most


def test_mla_deepseek_v2() -> None:
    lat = sv.latent_kv(60, 512, 64, 128, 128, 2)
    assert lat.mla_elements_per_token == 576 * 60
    assert lat.mha_elements_per_token == 2 * 128 * 128 * 60
    assert lat.gqa_groups_equivalent == 2.25  # "equal to GQA with only 2.25 groups"
    assert lat.mla_bytes_per_token == 69_120
    assert math.isclose(lat.reduction, 1_966_080 / 34_560)


def test_serving_refusals() -> None:
    with pytest.raises(SystemsInputError, match="max_len"):
        sv.paged_kv(100, 16, 1, max_len=50)
    with pytest.raises(SystemsInputError, match="alpha"):
        sv.speculative(1.5, 2, 0)
    with pytest.raises(SystemsInputError, match="bandwidth"):
        sv.roofline(1, 1, 1, 0)
