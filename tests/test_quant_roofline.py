"""W4A16 against W8A8 on the roofline: the batch searches against figures worked out by hand
from the datasheets, and properties that hold on every GPU."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.systems import quant_roofline as qr
from quizcoll.systems.errors import SystemsInputError

# NVIDIA H100 SXM datasheet / Hopper whitepaper: 3.35 TB/s, dense BF16 989.4, FP8 1,978.9 TFLOPS.
H100_BW = 3.35e12
H100 = {"bf16": 989.4e12, "fp8": 1978.9e12}


def test_h100_crossovers_by_hand() -> None:
    # W8A8 reads P bytes; W4A16's bf16 matmul takes 2·P·b/989.4e12. It loses once
    # 2b/989.4e12 > 1/3.35e12, i.e. b > 147.67: batch 148.
    assert qr.first_batch_where("w8a8", "w4a16", 7e9, H100_BW, H100) == 148
    # W4A16 (4.125 bits) is compute-bound once 2b/989.4e12 > 0.515625/3.35e12: b > 76.1.
    assert qr.first_compute_bound("w4a16", 7e9, H100_BW, H100) == 77
    # bf16 weights: 2b/989.4e12 > 2/3.35e12: b > 295.3 — the H100's ridge of 295 FLOP/B.
    assert qr.first_compute_bound("w16a16", 7e9, H100_BW, H100) == 296


def test_batch_one_speedup_is_the_bit_ratio() -> None:
    b16 = qr.step("w16a16", 70e9, 1, H100_BW, H100)
    b4 = qr.step("w4a16", 70e9, 1, H100_BW, H100)
    assert b16.time_s / b4.time_s == pytest.approx(16 / 4.125)
    assert b4.weight_bytes == pytest.approx(70e9 * 4.125 / 8)


@settings(max_examples=40, deadline=None)
@given(
    bw=st.floats(1e11, 1e13),
    peak=st.floats(1e13, 5e15),
    params=st.floats(1e8, 1e12),
)
def test_crossover_is_where_the_order_flips(bw: float, peak: float, params: float) -> None:
    peaks = {"bf16": peak, "fp8": 2 * peak}
    b = qr.first_batch_where("w8a8", "w4a16", params, bw, peaks)
    if b == 0:
        return
    at = lambda f, n: qr.step(f, params, n, bw, peaks).time_s  # noqa: E731
    assert at("w8a8", b) < at("w4a16", b)
    if b > 1:
        assert at("w8a8", b - 1) >= at("w4a16", b - 1)


def test_refusals() -> None:
    with pytest.raises(SystemsInputError):
        qr.step("w3a16", 1e9, 1, H100_BW, H100)
    with pytest.raises(SystemsInputError):
        qr.step("w8a8", 1e9, 1, 2e12, {"bf16": 312e12})
    with pytest.raises(SystemsInputError):
        qr.step("w4a16", 1e9, 0, H100_BW, H100)
