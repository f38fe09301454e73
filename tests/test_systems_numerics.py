"""Float formats from their bit layout, loss scaling, FP8 scales, batches, LoRA/QLoRA, offload
and the CUDA caching allocator."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizcoll.memory.catalog import load_model
from quizcoll.systems import allocator as al
from quizcoll.systems import finetune as ft
from quizcoll.systems import precision as pr
from quizcoll.systems.errors import SystemsInputError

# Published figures: IEEE 754; Micikevicius et al. 2022 (FP8) Table 1; OCP MX spec (E2M1).
PUBLISHED = [
    ("fp16", 65504.0, 2.0**-14, 2.0**-24, 2.0**-10),
    ("bf16", 3.3895313892515355e38, 2.0**-126, 2.0**-133, 2.0**-7),
    ("fp32", float(np.finfo(np.float32).max), 2.0**-126, 2.0**-149, 2.0**-23),
    ("fp8-e4m3", 448.0, 2.0**-6, 2.0**-9, 2.0**-3),
    ("fp8-e5m2", 57344.0, 2.0**-14, 2.0**-16, 2.0**-2),
    ("fp4-e2m1", 6.0, 1.0, 0.5, 0.5),
]


@pytest.mark.parametrize(("name", "largest", "normal", "subnormal", "eps"), PUBLISHED)
def test_format_figures(name, largest, normal, subnormal, eps) -> None:
    f = pr.FORMATS[name]
    assert f.max_finite == largest
    assert (f.min_normal, f.min_subnormal, f.epsilon) == (normal, subnormal, eps)


@pytest.mark.parametrize("name", ["fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "fp4-e2m1"])
def test_closed_forms_match_every_bit_pattern(name: str) -> None:
    """Decode all 2^bits patterns: the largest finite and smallest positive are the formulas."""
    f = pr.FORMATS[name]
    values = [f.decode(i) for i in range(2**f.bits)]
    finite = [v for v in values if math.isfinite(v)]
    assert max(finite) == f.max_finite
    assert min(v for v in finite if v > 0) == f.min_subnormal
    assert min(v for v in finite if v >= f.min_normal) == f.min_normal
    nans = sum(math.isnan(v) for v in values)
    expected_nans = {"fp8-e4m3": 2, "fp4-e2m1": 0}.get(name, 2 * (2**f.mantissa_bits - 1))
    assert nans == expected_nans


def test_fp16_decoder_agrees_with_struct_half_precision() -> None:
    f = pr.FORMATS["fp16"]
    for pattern in range(0, 2**16, 37):
        mine = f.decode(pattern)
        theirs = struct.unpack("<e", pattern.to_bytes(2, "little"))[0]
        assert (math.isnan(mine) and math.isnan(theirs)) or mine == theirs


def test_fp16_against_numpy() -> None:
    info = np.finfo(np.float16)
    f = pr.FORMATS["fp16"]
    assert (f.max_finite, f.min_normal, f.epsilon) == (
        float(info.max),
        float(info.smallest_normal),
        float(info.eps),
    )


def test_loss_scaling() -> None:
    fp16 = pr.FORMATS["fp16"]
    s = pr.loss_scaling(fp16, 1024, grad_max=10, grad_min=1e-8)
    assert not s.overflows and not s.underflows  # 1e-8 × 1024 ≈ 1e-5 > 2^−24
    assert s.largest_safe_power == 12  # 10 × 4096 = 40,960 ≤ 65,504 < 81,920
    assert s.smallest_kept_gradient == 2.0**-24 / 1024
    unscaled = pr.loss_scaling(fp16, 1, grad_max=10, grad_min=1e-8)
    assert unscaled.underflows  # 1e-8 < 5.96e-8: lost without scaling
    assert pr.loss_scaling(fp16, 8192, 10, 1e-8).overflows
    bf16 = pr.loss_scaling(pr.FORMATS["bf16"], 1, grad_max=10, grad_min=1e-30)
    assert not bf16.underflows  # bf16 keeps fp32's range: no loss scaling needed


def test_fp8_delayed_scaling() -> None:
    e4m3 = pr.FORMATS["fp8-e4m3"]
    s = pr.fp8_scale(e4m3, 3.5)
    assert s.scale == 128 and s.scaled_amax == 448
    assert pr.fp8_scale(e4m3, 3.5, margin=1).scaled_amax == 224
    assert pr.fp8_scale(pr.FORMATS["fp8-e5m2"], 57344).scale == 1


def test_batch_plan() -> None:
    plan = pr.batch_plan(1024, 4, 32, 4096)
    assert plan.accumulation_steps == 8 and plan.tokens_per_step == 4_194_304
    with pytest.raises(SystemsInputError, match="not a multiple"):
        pr.batch_plan(1000, 4, 32, 4096)


# LoRA (Hu et al. 2022) Table 5: the same 18M-parameter budget three ways on GPT-3 175B.
@pytest.mark.parametrize(("rank", "per_layer"), [(8, 1), (4, 2), (2, 4)])
def test_lora_gpt3_budget(rank: int, per_layer: int) -> None:
    count = ft.lora_parameters([(12288, 12288, 96 * per_layer)], rank)
    assert count == 18_874_368


def test_lora_on_catalog_models() -> None:
    plan = ft.model_lora(load_model("llama-2-7b"), 8, ("q", "v"))
    assert plan.lora_parameters == 32 * 2 * 8 * (4096 + 4096)
    assert plan.adapted_matrices == 64
    gqa = ft.model_lora(load_model("llama-3-8b"), 16, ("k",))
    assert gqa.lora_parameters == 32 * 16 * (4096 + 1024)  # k_proj: 4096 → 8 KV heads × 128
    moe = ft.model_lora(load_model("mixtral-8x7b"), 4, ("up",))
    assert moe.adapted_matrices == 32 * 8  # every expert's up_proj
    assert ft.parse_targets("all") == ft.TARGET_NAMES
    with pytest.raises(SystemsInputError, match="unknown"):
        ft.parse_targets("q,x")
    with pytest.raises(SystemsInputError, match="none of the targets"):
        ft.model_lora(load_model("gpt2"), 4, ("gate",))


def test_qlora_bits() -> None:
    dq = ft.nf4_storage(65_000_000_000)
    assert dq.bits_per_parameter == 4 + 8 / 64 + 32 / (64 * 256)
    assert round(dq.bits_per_parameter, 3) == 4.127  # Dettmers et al.: 0.127 bits of constants
    assert ft.nf4_storage(65_000_000_000, double_quant=False).bits_per_parameter == 4.5
    assert dq.weight_bytes == math.ceil(65e9 * dq.bits_per_parameter / 8)


def test_offload() -> None:
    o = ft.offload_transfer(7_000_000_000, 25e9)
    assert o.to_cpu_bytes == o.to_gpu_bytes == 14_000_000_000  # 2Ψ each way (4Ψ in all)
    assert o.duplex_time_s == 14e9 / 25e9 and o.serial_time_s == 28e9 / 25e9


# c10/cuda/CUDACachingAllocator.cpp: round_size, get_allocation_size, should_split.
@pytest.mark.parametrize(
    ("request_", "block", "pool", "segment", "split", "per_segment"),
    [
        (1, 512, "small", 2 << 20, True, 4096),
        (513, 1024, "small", 2 << 20, True, 2048),
        (1 << 20, 1 << 20, "small", 2 << 20, True, 2),
        ((1 << 20) + 1, (1 << 20) + 512, "large", 20 << 20, True, 19),
        (3 << 20, 3 << 20, "large", 20 << 20, True, 6),
        (10 << 20, 10 << 20, "large", 10 << 20, False, 1),
        ((19 << 20) + 1000, (19 << 20) + 1024, "large", 20 << 20, False, 1),
    ],
)
def test_allocator_table(request_, block, pool, segment, split, per_segment) -> None:
    b = al.allocate(request_)
    assert (b.block_bytes, b.pool, b.segment_bytes, b.split) == (block, pool, segment, split)
    assert b.blocks_per_segment == per_segment
    assert b.handed_out_bytes == (block if split else segment)


@given(st.integers(1, 2**36))
def test_allocator_properties(size: int) -> None:
    b = al.allocate(size)
    assert b.block_bytes % 512 == 0 and 0 <= b.block_bytes - size < 512
    assert b.segment_bytes >= b.block_bytes and b.segment_bytes % (2 << 20) == 0
    assert (b.pool == "small") == (b.block_bytes <= 1 << 20)
