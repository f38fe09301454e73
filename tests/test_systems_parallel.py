"""Context parallelism, mixture-of-experts systems, parallel layouts and the TP degree (M3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizcoll.memory.catalog import load_model
from quizcoll.memory.formats import parse_format
from quizcoll.memory.gpus import find_gpu
from quizcoll.systems import context as cx
from quizcoll.systems import layout as lo
from quizcoll.systems import moe
from quizcoll.systems.errors import SystemsInputError


def test_ulysses_approaches_4nh_over_p_and_ring_stays_constant() -> None:
    # Multi-head attention: Ulysses sends (P−1)/P · 4Nh/P per GPU (the paper's 4Nh/P);
    # ring attention sends (P−1)/P · 2Nh regardless of P.
    n, h = 262_144, 4096
    for p in (2, 8, 32):
        t = cx.context_traffic(n, p, 32, 32, 128, value_bytes=1)
        assert t.ulysses_forward_bytes == pytest.approx((p - 1) / p * 4 * n * h / p)
        assert t.ring_forward_bytes == pytest.approx((p - 1) / p * 2 * n * h)
        assert t.ulysses_step_bytes == 2 * t.ulysses_forward_bytes
        assert t.ring_step_bytes == 2 * t.ring_forward_bytes


def test_gqa_shrinks_ring_traffic_and_limits_ulysses() -> None:
    mha = cx.context_traffic(32_768, 8, 32, 32, 128)
    gqa = cx.context_traffic(32_768, 8, 32, 8, 128)
    assert gqa.ring_forward_bytes * 4 == mha.ring_forward_bytes
    assert gqa.ulysses_valid == "yes"
    assert cx.context_traffic(32_768, 16, 32, 8, 128).ulysses_valid == "no"  # 8 KV heads over 16
    with pytest.raises(SystemsInputError, match="does not split"):
        cx.context_traffic(1000, 3, 32, 8, 128)


@pytest.mark.parametrize(
    ("tokens", "experts", "k", "cf", "capacity"),
    [
        (1024, 8, 1, 1.0, 128),
        (1024, 8, 2, 1.25, 320),
        (1000, 64, 2, 1.0, 32),
        (4096, 128, 8, 1.5, 384),
    ],
)
def test_capacity(tokens: int, experts: int, k: int, cf: float, capacity: int) -> None:
    assert moe.expert_capacity(tokens, experts, k, cf).capacity == capacity


def test_dropped_tokens() -> None:
    c = moe.expert_capacity(1024, 8, 2, 1.25, (400, 300, 250, 250, 200, 200, 250, 198))
    assert c.capacity == 320 and c.dropped == 80  # only the 400 overflows
    assert c.drop_fraction == 80 / 2048
    with pytest.raises(SystemsInputError, match="sum to"):
        moe.expert_capacity(10, 2, 1, 1.0, (3, 3))


def test_all_to_all_volume() -> None:
    v = moe.all_to_all_volume(4096, 4096, 2, 8, 2)
    assert v.dispatch_bytes == 7 / 8 * 4096 * 2 * 4096 * 2
    assert v.forward_bytes == 2 * v.dispatch_bytes and v.step_bytes == 4 * v.dispatch_bytes
    assert moe.all_to_all_volume(4096, 4096, 2, 1).step_bytes == 0  # no expert parallelism


def test_switch_loss_bounds() -> None:
    uniform = moe.switch_balance_loss((5,) * 8, (0.125,) * 8)
    assert uniform.loss == pytest.approx(0.01)
    collapsed = moe.switch_balance_loss((40,) + (0,) * 7, (1.0,) + (0.0,) * 7)
    assert collapsed.loss == pytest.approx(0.08) == collapsed.collapsed_loss
    skewed = moe.switch_balance_loss((30, 10), (0.7, 0.3))
    assert skewed.loss == pytest.approx(0.01 * 2 * (0.75 * 0.7 + 0.25 * 0.3))


@given(st.text(max_size=60))
def test_number_lists_fed_junk_refuse_cleanly(text: str) -> None:
    try:
        values = moe.parse_numbers("loads", text, integers=True)
    except SystemsInputError:
        return
    assert all(v >= 0 for v in values)


@pytest.mark.parametrize(
    ("kwargs", "valid", "dp", "problem"),
    [
        ({"world": 1024, "tp": 8, "pp": 4}, True, 32, "none"),
        ({"world": 6, "tp": 3, "pp": 1}, False, 2, "heads 64 are not divisible by TP 3"),
        ({"world": 1000, "tp": 8, "pp": 4}, False, 0, "world 1000"),
        ({"world": 64, "tp": 16, "pp": 1}, False, 4, "KV heads 8"),
        ({"world": 64, "tp": 8, "pp": 3}, False, 0, "world 64"),
        ({"world": 96, "tp": 8, "pp": 3}, False, 4, "layers 80"),
        ({"world": 64, "tp": 8, "pp": 2, "cp": 2, "seq_len": 4097}, False, 2, "2 × CP"),
    ],
)
def test_layout_rules(kwargs: dict, valid: bool, dp: int, problem: str) -> None:
    lay = lo.check_layout(heads=64, kv_heads=8, layers=80, **kwargs)  # Llama-2-70B's shape
    assert (lay.valid, lay.dp) == (valid, dp)
    assert problem in lay.problem


def test_expert_parallel_rules() -> None:
    ok = lo.check_layout(world=64, tp=2, pp=1, ep=8, heads=32, kv_heads=8, layers=32, experts=8)
    assert ok.valid and ok.dp == 32
    bad = lo.check_layout(world=16, tp=8, pp=1, ep=4, heads=32, kv_heads=8, layers=32, experts=8)
    assert not bad.valid and "DP × CP = 2" in bad.problem
    dense = lo.check_layout(world=16, tp=2, pp=1, ep=2, heads=32, kv_heads=8, layers=32)
    assert not dense.valid and "mixture-of-experts" in dense.problem
    wide = lo.check_layout(world=32, tp=16, pp=1, heads=32, kv_heads=16, layers=32)
    assert wide.valid and not wide.tp_within_node


def test_layout_traffic_per_dimension() -> None:
    t = lo.layout_traffic(
        parameters=70_000_000_000,
        hidden=8192,
        layers=80,
        seq_len=4096,
        micro_batch=1,
        micro_batches=8,
        tp=8,
        pp=4,
        dp=16,
    )
    sbh = 4096 * 8192 * 2
    assert t.tp_bytes == pytest.approx(8 * sbh * 7 / 8 * 20 * 8)  # 8bsh(t−1)/t × l_stage × m
    # Narayanan et al. 2021 §4.1: with scatter/gather each of the t GPUs sends 1/t of 2sbh.
    assert t.pp_group_bytes == 2 * sbh * 8
    assert t.pp_bytes == 2 * sbh * 8 / 8
    assert t.dp_bytes == pytest.approx(2 * 15 / 16 * 70e9 / 32 * 4)
    assert t.total_bytes == t.tp_bytes + t.pp_bytes + t.dp_bytes


@pytest.mark.parametrize("pp", [2, 3, 4, 8])
@pytest.mark.parametrize("tp", [1, 4])
def test_pipeline_sends_are_the_busiest_stepped_stage(pp: int, tp: int) -> None:
    """The calculator's PP bytes are the busiest stage's, held to every stage's 1F1B order
    stepped micro-batch by micro-batch (two stages have no middle one: each sends one of the
    two tensors a boundary carries)."""
    from quizcoll.witnesses.par_layout import pipeline_traffic

    t = lo.layout_traffic(
        parameters=7_000_000_000,
        hidden=4096,
        layers=8 * pp,
        seq_len=2048,
        micro_batch=1,
        micro_batches=8,
        tp=tp,
        pp=pp,
        dp=1,
    )
    stepped = [pipeline_traffic(2048, 1, 4096, 8, tp, pp, st, 2) for st in range(pp)]
    assert t.pp_bytes == max(s.per_gpu_bytes for s in stepped)
    assert t.pp_group_bytes == max(s.group_bytes for s in stepped)


@pytest.mark.parametrize(
    ("tp", "heads", "kv", "valid"),
    [
        (8, 32, 8, True),
        (16, 64, 8, True),
        (3, 32, 8, False),
        (4, 28, 4, True),
        (8, 28, 4, False),
        (16, 32, 8, True),
        (6, 48, 8, False),
    ],
)
def test_vllm_tp_rule(tp: int, heads: int, kv: int, valid: bool) -> None:
    assert lo.serving_tp_valid(tp, heads, kv) is valid


def _tp(model: str, gpu: str, dtype: str) -> lo.TpChoice:
    return lo.tp_degree(
        load_model(model),
        parse_format(dtype),
        find_gpu(gpu),
        context=4096,
        batch=1,
        utilization=0.9,
        overhead_bytes=2**30,
    )


@pytest.mark.parametrize(
    ("model", "gpu", "dtype", "tp", "degrees"),
    [
        ("llama-2-7b", "a100-80gb", "fp16", 1, (1, 2, 4, 8)),
        ("llama-2-70b", "a100-80gb", "fp16", 2, (1, 2, 4, 8)),
        ("llama-2-70b", "t4", "fp16", 0, (1, 2, 4, 8)),  # 140 GB does not fit 8 × 16 GB
        ("qwen2.5-7b", "t4", "fp16", 2, (1, 2, 4)),  # 28 heads, 4 KV heads: no TP 8
        ("llama-3.1-405b", "h100-80gb", "fp8", 8, (1, 2, 4, 8)),
    ],
)
def test_smallest_valid_tp_degree(model, gpu, dtype, tp, degrees) -> None:
    choice = _tp(model, gpu, dtype)
    assert choice.tp == tp
    assert choice.valid_degrees == degrees
    assert (choice.per_gpu_bytes <= choice.usable_bytes) == (tp > 0)


@pytest.mark.parametrize(
    ("model", "gpu", "dtype", "memory", "tp"),
    [
        ("llama-2-13b", "t4", "fp16", 3, 4),  # review row M3: "3 GPUs" is no TP degree
        ("llama-2-70b", "l4", "fp16", 7, 8),
        ("llama-2-70b", "v100-32gb", "fp16", 5, 8),
    ],
)
def test_tp_degree_skips_counts_the_heads_forbid(model, gpu, dtype, memory, tp) -> None:
    choice = _tp(model, gpu, dtype)
    assert (choice.memory_gpus, choice.tp) == (memory, tp)
    assert memory not in choice.valid_degrees
