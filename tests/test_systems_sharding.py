"""ZeRO/FSDP/HSDP traffic and memory, and the mixed-precision recipes' bytes per parameter."""

from __future__ import annotations

import pytest

from quizcoll.executables import build_registry
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.training import Recipe, recipe_states
from quizcoll.systems.errors import SystemsInputError
from quizcoll.systems.sharding import fsdp_plan, zero_plus_plus, zero_traffic


@pytest.mark.parametrize(
    ("recipe", "plain", "replicated", "shardable"),
    [
        # Megatron-Core Distributed Optimizer docs: 20 | 4 + 16/d, 18 | 6 + 12/d, 16 | 8 + 8/d
        (Recipe.MEGATRON_FP16, 20, 4, 16),
        (Recipe.MEGATRON_BF16, 18, 6, 12),
        (Recipe.MEGATRON_FP32, 16, 8, 8),
        # The ZeRO paper: 2 + 2 + K, K = 12
        (Recipe.ZERO_FP16, 16, 4, 12),
    ],
)
def test_recipes(recipe: Recipe, plain: int, replicated: int, shardable: int) -> None:
    assert recipe_states(recipe).bytes_per_parameter == plain
    for d in (1, 2, 8, 64):
        r = recipe_states(recipe, d, distributed_optimizer=True)
        assert r.bytes_per_parameter == pytest.approx(replicated + shardable / d)
        assert recipe_states(recipe, d).bytes_per_parameter == plain


def test_distributed_optimizer_is_zero_1() -> None:
    from quizcoll.memory.training import model_states

    for d in (1, 8, 64):
        zero1 = model_states(1000, 1, d).total / 1000
        assert recipe_states(Recipe.ZERO_FP16, d, True).bytes_per_parameter == pytest.approx(zero1)
    with pytest.raises(MemoryInputError):
        recipe_states(Recipe.MEGATRON_BF16, 0)


@pytest.mark.parametrize(
    ("stage", "passes", "collective"),
    [(0, 2, "all-reduce"), (1, 2, "all-gather"), (2, 2, "reduce-scatter"), (3, 3, "backward")],
)
def test_zero_traffic(stage: int, passes: int, collective: str) -> None:
    # ZeRO paper §7.2-7.3: 2Ψ for stages 0-2, 3Ψ for stage 3. The bytes are held to the
    # collectives simulator's ring schedules (chunks moved rank to rank), not to the closed
    # form re-typed.
    from quizcoll.collectives.volume import zero_volume

    t = zero_traffic(7_500_000_000, 64, stage, 2)
    assert t.paper_elements == passes * 7_500_000_000
    assert t.sent_bytes == zero_volume(7_500_000_000, stage, 64, dtype="bfloat16").bytes_per_gpu
    assert t.ratio_to_all_reduce == passes / 2
    assert collective in t.collectives


@pytest.mark.parametrize("ranks", [2, 4, 8, 16])
def test_zero_traffic_equals_the_collectives_simulator(ranks: int) -> None:
    """ZeRO-2 = one ring all-reduce, ZeRO-3 = all-gather twice + reduce-scatter, as simulated."""
    registry = build_registry()
    params = 2**20 * ranks  # elements divide evenly into the ring's chunks
    size = params * 2
    all_reduce = registry.call(
        "collectives.all_reduce", {"algorithm": "ring", "ranks": ranks, "size": size}
    )
    gather = registry.call(
        "collectives.all_gather", {"algorithm": "ring", "ranks": ranks, "size": size // ranks}
    )
    scatter = registry.call(
        "collectives.reduce_scatter", {"algorithm": "ring", "ranks": ranks, "size": size}
    )
    assert zero_traffic(params, ranks, 2).sent_bytes == all_reduce["max_bytes_sent"]
    zero3 = 2 * gather["max_bytes_sent"] + scatter["max_bytes_sent"]
    assert zero_traffic(params, ranks, 3).sent_bytes == zero3
    fsdp = fsdp_plan(params, ranks, 4, param_bytes=2, reduce_bytes=2)
    assert fsdp.shard_sent_bytes == zero3 and fsdp.replicate_sent_bytes == 0


def test_zero_plus_plus() -> None:
    z = zero_plus_plus(7_000_000_000)
    assert z.model_bytes == 14_000_000_000
    assert (z.zero3_bytes, z.forward_gather_bytes, z.gradient_bytes) == (
        42_000_000_000,
        7_000_000_000,
        3_500_000_000,
    )
    assert z.backward_gather_bytes == 0
    assert z.zeropp_bytes == 10_500_000_000
    assert z.reduction == 4  # "reduces communication volume by 4x"


def test_fsdp_memory_table() -> None:
    psi, n, units = 8_000_000_000, 8, 32
    unit = psi / units
    base = fsdp_plan(psi, n, units, prefetch=0)
    assert base.sharded_state_bytes == 16 * psi / n  # fp32 params + grads + Adam m, v
    assert base.forward_peak_bytes == 16 * psi / n + 2 * unit  # one bf16 unit gathered
    assert base.backward_peak_bytes == 16 * psi / n + 2 * unit + 4 * unit  # + fp32 grads
    prefetch = fsdp_plan(psi, n, units, prefetch=1)
    assert prefetch.forward_peak_bytes - base.forward_peak_bytes == 2 * unit  # one more unit
    keep = fsdp_plan(psi, n, units, reshard_after_forward=False)
    assert keep.forward_peak_bytes == 16 * psi / n + 2 * psi  # every unit stays gathered
    assert keep.all_gathers_per_unit == 1
    assert keep.shard_sent_bytes == pytest.approx((n - 1) / n * psi * (2 + 4))
    coarse = fsdp_plan(psi, n, 4, prefetch=0)
    assert coarse.peak_bytes > base.peak_bytes  # bigger units, higher peak (FSDP §3.2.1)


def test_hsdp_splits_traffic_by_dimension() -> None:
    psi = 7_000_000_000
    flat = fsdp_plan(psi, 64, 32)
    hybrid = fsdp_plan(psi, 64, 32, shard_size=8)
    assert (hybrid.shard_size, hybrid.replicas) == (8, 8)
    assert hybrid.sharded_state_bytes == 8 * flat.sharded_state_bytes  # sharded 8 ways, not 64
    assert hybrid.shard_sent_bytes == pytest.approx(7 / 8 * psi * (2 * 2 + 4))
    assert hybrid.replicate_sent_bytes == pytest.approx(2 * 7 / 8 * psi / 8 * 4)
    assert flat.replicas == 1 and flat.replicate_sent_bytes == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shard_size": 3}, "does not divide"),
        ({"prefetch": 3}, "prefetch"),
        ({"param_bytes": 0}, "param_bytes"),
    ],
)
def test_fsdp_refusals(kwargs: dict, message: str) -> None:
    with pytest.raises(SystemsInputError, match=message):
        fsdp_plan(1_000_000, 8, 4, **kwargs)


def test_traffic_refusals() -> None:
    with pytest.raises(SystemsInputError, match="stage"):
        zero_traffic(1000, 8, 4)
    with pytest.raises(SystemsInputError, match="gpus"):
        zero_traffic(1000, 0, 1)
