"""Oracle: the float-format calculator against torch.finfo, ml_dtypes and numpy.

Limits (largest finite, smallest normal and subnormal, machine epsilon, width) come from
``torch.finfo`` for the formats torch has, ``ml_dtypes.finfo`` for the fp8/fp4 formats, and
``numpy.finfo`` for fp16/fp32. Every bit pattern of each 4-, 8- and 16-bit format is decoded
by ml_dtypes/numpy (a view of the integer pattern cast to float64) and compared with
``FloatFormat.decode``. tf32 has no storage dtype in any of these libraries: not covered.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
import torch

from quizcoll.systems.precision import find_format

TORCH = {
    "fp32": torch.float32,
    "fp16": torch.float16,
    "bf16": torch.bfloat16,
    "fp8-e4m3": torch.float8_e4m3fn,
    "fp8-e5m2": torch.float8_e5m2,
}
ML_DTYPES = {
    "bf16": ml_dtypes.bfloat16,
    "fp8-e4m3": ml_dtypes.float8_e4m3fn,
    "fp8-e5m2": ml_dtypes.float8_e5m2,
    "fp4-e2m1": ml_dtypes.float4_e2m1fn,
}
NUMPY = {"fp32": np.float32, "fp16": np.float16}


@pytest.mark.parametrize("name", TORCH)
def test_limits_equal_torch_finfo(name):
    fmt, info = find_format(name), torch.finfo(TORCH[name])
    assert (fmt.max_finite, fmt.min_normal, fmt.epsilon) == (info.max, info.tiny, info.eps)
    assert fmt.min_subnormal == info.smallest_normal * 2.0**-fmt.mantissa_bits
    assert fmt.bits == info.bits


@pytest.mark.parametrize("name", ML_DTYPES)
def test_limits_equal_ml_dtypes_finfo(name):
    fmt, info = find_format(name), ml_dtypes.finfo(ML_DTYPES[name])
    assert fmt.max_finite == float(info.max)
    assert fmt.min_normal == float(info.smallest_normal)
    assert fmt.min_subnormal == float(info.smallest_subnormal)
    assert fmt.epsilon == float(info.eps)
    assert (fmt.exponent_bits, fmt.mantissa_bits) == (info.nexp, info.nmant)


@pytest.mark.parametrize("name", NUMPY)
def test_limits_equal_numpy_finfo(name):
    fmt, info = find_format(name), np.finfo(NUMPY[name])
    assert fmt.max_finite == float(info.max)
    assert fmt.min_subnormal == float(info.smallest_subnormal)
    assert fmt.epsilon == float(info.eps)
    assert (fmt.bits, fmt.exponent_bits, fmt.mantissa_bits) == (info.bits, info.nexp, info.nmant)


DECODERS = {
    "fp16": (np.uint16, np.float16),
    "bf16": (np.uint16, ml_dtypes.bfloat16),
    "fp8-e4m3": (np.uint8, ml_dtypes.float8_e4m3fn),
    "fp8-e5m2": (np.uint8, ml_dtypes.float8_e5m2),
    "fp4-e2m1": (np.uint8, ml_dtypes.float4_e2m1fn),
}


@pytest.mark.parametrize("name", DECODERS)
def test_every_bit_pattern_decodes_as_the_library_does(name):
    fmt = find_format(name)
    container, dtype = DECODERS[name]
    patterns = np.arange(2**fmt.bits, dtype=container)
    library = patterns.view(dtype).astype(np.float64)
    for pattern, want in zip(patterns.tolist(), library.tolist(), strict=True):
        got = fmt.decode(pattern)
        if math.isnan(want):
            assert math.isnan(got), (pattern, got)
        else:
            assert got == want and math.copysign(1, got) == math.copysign(1, want), pattern
