"""The number-format and summation witnesses held to ml_dtypes' and numpy's own formats.

ml_dtypes (test-only) and numpy implement bfloat16, float16 and the FP8/FP4 formats in C++:
their decoded bit patterns, their casts (round to nearest, ties to even) and their arithmetic
are an outside record the witnesses must agree with, pattern by pattern.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from quizcoll.witnesses import num_attention as na
from quizcoll.witnesses import num_floats as nf
from quizcoll.witnesses import num_summation as ns

ml_dtypes = pytest.importorskip("ml_dtypes")

# (exponent bits, mantissa bits, specials, the library's dtype, its unsigned view)
FORMATS = [
    (5, 10, "ieee", np.float16, np.uint16),
    (8, 7, "ieee", ml_dtypes.bfloat16, np.uint16),
    (4, 3, "nan-only", ml_dtypes.float8_e4m3fn, np.uint8),
    (5, 2, "ieee", ml_dtypes.float8_e5m2, np.uint8),
]


@pytest.mark.parametrize(("e", "m", "specials", "dtype", "view"), FORMATS)
def test_every_pattern_decodes_as_the_library_does(e, m, specials, dtype, view) -> None:
    patterns = np.arange(1 << (1 + e + m), dtype=np.uint64)
    ours = nf.decode(patterns, e, m, specials)
    with np.errstate(invalid="ignore"):  # the NaN patterns
        theirs = patterns.astype(view).view(dtype).astype(np.float64)
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    finite = ~np.isnan(ours)
    assert np.array_equal(ours[finite], theirs[finite])


@pytest.mark.parametrize(("e", "m", "specials", "dtype", "view"), FORMATS)
def test_layout_matches_finfo(e, m, specials, dtype, view) -> None:
    info = ml_dtypes.finfo(dtype)
    f = nf.layout(e, m, specials)
    assert f.max_finite == float(info.max)
    assert f.min_normal == float(info.smallest_normal)
    assert f.min_subnormal == float(info.smallest_subnormal)


def test_fp4_has_no_specials() -> None:
    f = nf.layout(2, 1, "none")
    info = ml_dtypes.finfo(ml_dtypes.float4_e2m1fn)
    assert (f.max_finite, f.finite, f.patterns) == (float(info.max), 16, 16)


def test_too_wide_to_enumerate_is_refused() -> None:
    with pytest.raises(ValueError, match="too many patterns"):
        nf.layout(8, 23)


@pytest.mark.parametrize(
    ("e", "m", "run"),
    [(8, 23, 2**24), (5, 10, 2**11), (8, 7, 2**8), (11, 51, 2**52)],
)
def test_exact_integer_run(e, m, run) -> None:
    assert nf.exact_integers(e, m) == run


def test_exact_integer_run_against_float32() -> None:
    # numpy's float32 holds 2^24 but not 2^24 + 1, and every smaller integer it is asked.
    assert float(np.float32(2**24 + 1)) != 2**24 + 1
    rng = np.random.default_rng(1)
    for n in rng.integers(1, 2**24, size=200):
        assert nf.holds(float(n), 8, 23) == (float(np.float32(n)) == n)
    assert nf.decimal_digits(8, 23) == pytest.approx(7.22, abs=0.01)


def test_cast_matches_numpy_float16() -> None:
    rng = np.random.default_rng(2)
    xs = np.concatenate(
        [
            rng.uniform(-70000, 70000, 300),
            rng.uniform(-1e-4, 1e-4, 300),
            [65504.0, 65519.99, 65520.0, 1 + 2**-11, 1 + 3 * 2**-11, 2**-25, 3 * 2**-26],
        ]
    )
    with np.errstate(over="ignore"):
        theirs = xs.astype(np.float16).astype(np.float64)
    ours = np.array([nf.round_to_format(float(x), 5, 10) for x in xs])
    assert np.array_equal(ours, theirs)


def test_cast_matches_e4m3_in_range() -> None:
    rng = np.random.default_rng(3)
    xs = np.concatenate([rng.uniform(-448, 448, 300), [464.0, 0.0009765625, 0.00146484375]])
    theirs = xs.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    ours = np.array([nf.round_to_format(float(x), 4, 3, "nan-only") for x in xs])
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("g", [0.01, 0.3, 1, 3, 64, 1000, 8000, 65519 / 1024])
def test_largest_safe_scale_fits_and_the_next_does_not(g) -> None:
    k = nf.largest_safe_scale(g, 5, 10).power
    with np.errstate(over="ignore"):
        assert math.isfinite(float(np.float16(g * 2.0**k)))
        assert math.isinf(float(np.float16(g * 2.0 ** (k + 1))))


@pytest.mark.parametrize("k", [0, 5, 24])
def test_smallest_kept_gradient_survives_and_half_of_it_does_not(k) -> None:
    s = 2.0**k
    g = nf.smallest_kept_gradient(s, 5, 10).scale
    assert float(np.float16(g * s)) == g * s != 0
    assert float(np.float16(g / 2 * s)) != g / 2 * s  # rounds (to zero or up): not kept


@pytest.mark.parametrize(("amax", "margin"), [(0.05, 0), (3.5, 1), (250, 2)])
def test_fp8_scale_is_the_largest_that_fits(amax, margin) -> None:
    s = nf.fp8_scale(amax, margin, 4, 3, "nan-only")
    top = float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max)
    assert amax * s * 2.0**margin <= top
    assert amax * float(np.nextafter(s, np.inf)) * 2.0**margin > top


def test_bit_rounding_matches_the_library_casts() -> None:
    rng = np.random.default_rng(4)
    xs = rng.standard_normal(2000) * rng.choice([1e-3, 1, 1e3], 2000)
    ours8 = ns.round_array(xs, 8)
    assert np.array_equal(ours8, xs.astype(ml_dtypes.bfloat16).astype(np.float64))
    normal16 = xs[np.abs(xs) >= 2.0**-14]  # p = 11 holds in fp16's normal range only
    assert np.array_equal(
        ns.round_array(normal16, 11), normal16.astype(np.float16).astype(np.float64)
    )
    assert all(ns.round_scalar(float(x), 8) == r for x, r in zip(xs, ours8, strict=True))


def test_sequential_bf16_sum_matches_library_arithmetic() -> None:
    acc = ml_dtypes.bfloat16(0)
    for _ in range(1000):
        acc = ml_dtypes.bfloat16(acc + ml_dtypes.bfloat16(0.5))
    assert ns.repeated(0.5, 1000, 8, 8, "sequential").result == float(acc) == 128.0


def test_hand_counted_sums() -> None:
    # 256 ones fill bf16's 8 bits exactly; the 257th is a tie and rounds back to 256.
    assert ns.repeated(1, 256, 8, 8, "sequential").result == 256
    assert ns.repeated(1, 257, 8, 8, "sequential").result == 256
    # A tree of 512 quarters: every level adds equal powers of two, exact.
    assert ns.repeated(0.25, 512, 8, 8, "pairwise").result == 128
    # Three leftovers: 3 ones, pairwise, the odd one waiting a level.
    assert ns.repeated(1, 3, 8, 8, "pairwise").result == 3
    o = ns.big_and_small(512, 1, 3, 8, 8)
    assert (o.big_first, o.big_last, o.difference) == (512, 516, 4)  # 515 rounds to 516


def test_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="normal range"):
        ns.repeated(40000, 2, 11, 5, "sequential")  # fp16 overflows at 80,000
    with pytest.raises(ValueError, match="order"):
        ns.repeated(1, 2, 8, 8, "backwards")


def test_attention_matmuls_hand_counted() -> None:
    # One layer, one head of size 2, three tokens: six matmuls of 3·2·3 terms, 2 FLOPs each.
    mats = na.training_matmuls(1, 1, 2, 3)
    assert sorted((x.m, x.k, x.n) for x in mats) == sorted(
        [(3, 2, 3), (3, 3, 2), (3, 3, 2), (2, 3, 3), (3, 2, 3), (3, 3, 2)]
    )
    assert sum(x.flops for x in mats) == 6 * 36


def test_attention_flops_against_llm_foundry_row() -> None:
    # llm-foundry's MPT-13B row (scripts/train/benchmarking/README.md, H100 BF16, T = 2048,
    # 8 GPUs): 3.937055E+14 model FLOP/s per GPU at 38,336 tokens/s for 12,853,954,560
    # parameters; less the weights' 6 FLOPs per parameter, what is left is attention.
    per_token = 3.937055e14 * 8 / 38336 - 6 * 12853954560
    s = na.attention_share(12853954560, 40, 40, 128, 2048)  # mpt-13b.yaml: d_model 5120
    assert s.attention_flops_per_token == pytest.approx(per_token, rel=2e-3)
    assert s.matmuls == 6 * 40 * 40


def test_attention_share_grows_with_the_sequence() -> None:
    shares = [na.attention_share(7e9, 32, 32, 128, t).attention_share for t in (512, 2048, 8192)]
    assert shares == sorted(shares) and 0 < shares[0] < shares[-1] < 1
