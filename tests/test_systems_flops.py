"""FLOPs, MFU/HFU, training time, Chinchilla, and the GPU compute catalog."""

from __future__ import annotations

import pytest

from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.gpus import COMPUTE, GPUS, compute_specs, find_gpu, peak_flops
from quizcoll.systems import flops as fl
from quizcoll.systems.errors import SystemsInputError

GPT3 = fl.Attention(layers=96, heads=96, head_dim=128)


def test_six_n_d() -> None:
    f = fl.training_flops(7e9, 2e12)
    assert f.model_flops == 6 * 7e9 * 2e12 == f.hardware_flops
    assert f.attention_flops_per_token == 0


def test_palm_attention_and_recomputation() -> None:
    n, t = 175e9, 2048
    lhqt = 96 * 96 * 128 * t
    none = fl.training_flops(n, 1, t, GPT3)
    assert none.model_flops_per_token == 6 * n + 12 * lhqt
    full = fl.training_flops(n, 1, t, GPT3, fl.Recompute.FULL)
    assert full.hardware_flops_per_token == 8 * n + 16 * lhqt  # one more forward
    selective = fl.training_flops(n, 1, t, GPT3, fl.Recompute.SELECTIVE)
    assert selective.hardware_flops_per_token == 6 * n + 16 * lhqt  # only attention again
    assert full.model_flops_per_token == none.model_flops_per_token  # MFU ignores recompute


def test_megatron_eq_3_is_close_to_8_n_per_token_with_recompute() -> None:
    # Narayanan et al. eq. (3) with the 1T model of Table 1 (l=128, h=25600, s=2048, V=51200),
    # one sequence: ≈ 8·P·s FLOPs with P from eq. (2).
    layers, h, s, v = 128, 25600, 2048, 51200
    p = 12 * layers * h**2 * (1 + 13 / (12 * h) + (v + s) / (12 * layers * h))
    assert p / 1e9 == pytest.approx(1008.0, abs=0.1)  # Table 1: 1008.0 billion
    f = fl.megatron_gpt_flops(1, s, layers, h, v)
    assert f == pytest.approx(8 * p * s, rel=0.02)


@pytest.mark.parametrize(
    ("params", "tokens", "gpus", "tflops", "days"),
    [
        (175e9, 300e9, 1024, 140, 34),  # Narayanan et al.: GPT-3 in 34 days
        (1.008e12, 450e9, 3072, 163, 84),  # the 1T model in 84 days
    ],
)
def test_megatron_training_time_estimates(params, tokens, gpus, tflops, days) -> None:
    # Eq. (4): ≈ 8·T·P/(n·X) with recomputation: hardware FLOPs at X FLOP/s per GPU.
    hardware = fl.training_flops(params, tokens, recompute=fl.Recompute.FULL).hardware_flops
    t = fl.training_time(hardware, gpus, tflops * 1e12, 1.0)
    assert round(t.days) == days


def test_seven_b_on_two_trillion_tokens() -> None:
    peak = peak_flops(find_gpu("h100"), "bf16")
    t = fl.training_time(fl.training_flops(7e9, 2e12).model_flops, 1024, peak, 0.4)
    assert t.seconds == pytest.approx(6 * 7e9 * 2e12 / (1024 * 989.4e12 * 0.4))
    assert t.days == pytest.approx(2.40, abs=0.01)
    assert t.gpu_hours == pytest.approx(t.seconds * 1024 / 3600)


def test_mfu_and_hfu() -> None:
    f = fl.training_flops(7e9, 1, 4096, fl.Attention(32, 32, 128), fl.Recompute.FULL)
    u = fl.utilization(4e6, 1024, 989.4e12, f)
    assert u.mfu == pytest.approx(4e6 / 1024 * f.model_flops_per_token / 989.4e12)
    assert u.hfu / u.mfu == pytest.approx(f.hardware_flops_per_token / f.model_flops_per_token)


def test_chinchilla() -> None:
    chinchilla = fl.chinchilla_for_parameters(70e9)
    assert chinchilla.tokens == 1.4e12  # Chinchilla: 70B parameters, 1.4T tokens
    back = fl.chinchilla_for_compute(chinchilla.compute_flops)
    assert back.parameters == pytest.approx(70e9)
    assert back.tokens == pytest.approx(1.4e12)


def test_flops_refusals() -> None:
    with pytest.raises(SystemsInputError):
        fl.training_flops(0, 1)
    with pytest.raises(SystemsInputError, match="mfu"):
        fl.training_time(1e20, 8, 1e15, 1.5)
    with pytest.raises(SystemsInputError, match="recompute"):
        fl.check_recompute("partial")


@pytest.mark.parametrize(
    ("gpu", "bandwidth_gb_s", "bf16_tflops"),
    [
        ("a100-80gb", 2039, 312),
        ("a100-40gb", 1555, 312),
        ("h100-80gb", 3350, 989.4),
        ("h100-pcie", 2000, 756.5),
        ("h200", 4800, 989.4),
        ("b200", 7700, 2250),
        ("l40s", 864, 362.05),
        ("mi300x", 5300, 1307.4),
    ],
)
def test_datasheet_figures(gpu: str, bandwidth_gb_s: float, bf16_tflops: float) -> None:
    device = find_gpu(gpu)
    assert compute_specs(device).hbm_bandwidth == bandwidth_gb_s * 1e9
    assert peak_flops(device, "bf16") == pytest.approx(bf16_tflops * 1e12)


def test_every_gpu_has_specs_and_fp16() -> None:
    assert {g.key for g in GPUS} == set(COMPUTE)
    for g in GPUS:
        assert peak_flops(g, "fp16") > 0
        assert compute_specs(g).source


def test_missing_dtype_names_what_the_gpu_runs() -> None:
    with pytest.raises(MemoryInputError, match=r"T4.*do not run bf16.*fp16"):
        peak_flops(find_gpu("t4"), "bf16")
    assert peak_flops(find_gpu("b200"), "fp4") == pytest.approx(
        2 * peak_flops(find_gpu("b200"), "fp8")
    )


def test_h100_pcie_is_its_own_entry_with_the_same_memory() -> None:
    assert find_gpu("h100-pcie").reported_mib == find_gpu("h100").reported_mib == 81_559
    assert find_gpu("b200").reported_mib == 183_359
