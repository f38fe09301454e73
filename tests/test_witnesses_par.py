"""The par_* witnesses held to hand-enumerated small cases and to properties (never to the
calculators' formulas): ring chunk counts, a 16-rank grid, Megatron's four all-reduces per
layer (Shoeybi et al. 2019, §3), a two-stage pipeline drawn by hand, "meets at m, not at
m − 1", every checkpoint tensor written exactly once."""

from __future__ import annotations

import pytest

from quizcoll.witnesses import (
    par_accum,
    par_batch,
    par_checkpoint,
    par_context,
    par_layout,
    par_pipeline,
    par_rings,
)


def test_ring_all_reduce_of_eight_values_on_four_ranks_by_hand() -> None:
    # chunks of 2; 3 reduce-scatter steps and 3 all-gather steps, one chunk each
    assert par_rings.all_reduce(8, 4).sent == (12, 12, 12, 12)
    assert par_rings.all_reduce(8, 4).steps == 6
    assert par_rings.all_gather(8, 1).sent == (0,)


def test_grid_of_sixteen_ranks_counted_by_hand() -> None:
    # tp 2 × cp 2 × pp 2 leaves 2 replicas: ranks 0 and 4 (stage 0 holds ranks 0-7)
    assert par_layout.data_parallel_group(16, 2, 2, 2) == 2
    assert par_layout.data_parallel_group(12, 8, 1) == 0  # does not split


def test_megatron_layer_issues_two_all_reduces_forward_and_two_backward() -> None:
    t = par_layout.tensor_parallel_traffic(1, 1, 4, 3, 5, 2, 1.0)
    assert t.all_reduces == 4 * 3 * 5
    assert par_layout.tensor_parallel_traffic(1, 1, 4, 3, 5, 1, 1.0).bytes_sent == 0


def test_only_middle_stages_send_both_ways() -> None:
    sends = [par_layout.pipeline_traffic(1, 1, 1, 6, 1, 4, s, 1.0).sends for s in range(4)]
    assert sends == [6, 12, 12, 6]
    assert par_layout.pipeline_traffic(1, 1, 1, 6, 1, 1, 0, 1.0).sends == 0


def test_one_f_one_b_order_runs_every_micro_batch_once_each_way() -> None:
    order = par_layout.one_f_one_b_order(4, 0, 6)
    assert sorted(order) == sorted([(k, i) for k in "FB" for i in range(6)])
    assert order[:3] == [("F", 0), ("F", 1), ("F", 2)]  # three warm-up forwards


def test_dp_traffic_grows_with_the_group_and_shrinks_with_the_shard() -> None:
    two = par_layout.data_parallel_traffic(1 << 20, 1, 1, 2, 1.0)
    assert two == 1 << 20  # a pair: each sends its half twice
    assert par_layout.data_parallel_traffic(1 << 20, 2, 2, 2, 1.0) == two / 4


def test_batch_consumed_by_hand_and_partial_micro_batches_refused() -> None:
    c = par_batch.consume(8, 2, 2, 10)
    assert (c.micro_batches_per_replica, c.tokens, c.sequences_per_replica) == (2, 80, 4)
    with pytest.raises(ValueError, match="partial"):
        par_batch.consume(6, 2, 2, 10)


def test_ring_attention_takes_p_minus_one_hops_and_ulysses_on_one_gpu_sends_nothing() -> None:
    _, hops = par_context.ring_forward_sent(64, 8, 1, 1, 1.0)
    assert hops == 7
    assert par_context.ulysses_forward_sent(64, 1, 4, 4, 8, 2.0) == 0
    with pytest.raises(ValueError, match="heads"):
        par_context.ulysses_forward_sent(64, 4, 6, 2, 8, 2.0)


def test_two_stage_pipeline_drawn_by_hand() -> None:
    # F0 on stage 0 [0,1], F0 stage 1 [1,2], B0 stage 1 [2,4], B0 stage 0 [4,6]
    it = par_pipeline.simulate(2, 1, t_forward=1.0, t_backward=2.0)
    assert it.makespan == 6.0
    assert it.bubble_over_total == pytest.approx(0.5)


@pytest.mark.parametrize(("p", "target", "v"), [(4, 0.2, 1), (8, 0.1, 1), (4, 0.05, 2)])
def test_fewest_micro_batches_meets_the_target_and_one_step_less_does_not(
    p: int, target: float, v: int
) -> None:
    m = par_pipeline.fewest_micro_batches(p, target, v)
    step = p if v > 1 else 1
    assert par_pipeline.simulate(p, m, v).bubble_over_total <= target + 1e-12
    if m > step:
        assert par_pipeline.simulate(p, m - step, v).bubble_over_total > target


def test_no_sync_ddp_sends_as_much_for_many_micro_batches_as_for_one() -> None:
    one = par_accum.accumulate("ddp", 1 << 20, 8, 1, 2, 2)
    many = par_accum.accumulate("ddp", 1 << 20, 8, 16, 2, 2)
    assert many.bytes_sent == one.bytes_sent
    synced = par_accum.accumulate("ddp", 1 << 20, 8, 16, 2, 2, sync_every_micro_batch=True)
    assert synced.bytes_sent == 16 * one.bytes_sent


def test_fsdp_no_sync_holds_the_whole_gradient_until_the_last_micro_batch() -> None:
    held = par_accum.accumulate("fsdp", 1000, 4, 3, 2, 2).unsharded_grad_bytes
    assert held == 1000 * 2
    assert par_accum.accumulate("fsdp", 1000, 4, 1, 2, 2).unsharded_grad_bytes == 0


@pytest.mark.parametrize("distributed", [True, False])
def test_every_checkpoint_tensor_is_written_exactly_once(distributed: bool) -> None:
    s = par_checkpoint.layout_shards(10_000, 2, 3, 4, distributed, 2, (4, 4, 4))
    assert s.total_bytes == 10_000 * (2 + 12)
    if not distributed:  # only the first replica (d = 0: ranks 0, 1 of each stage) writes
        writers = [r for r, b in enumerate(s.per_rank) if b]
        assert writers == [r for r in range(24) if (r // 2) % 4 == 0]


def test_write_clock_by_hand() -> None:
    # two ranks of 10 B at 4 B/s each, storage 6 B/s: 3 B/s each until both finish
    assert par_checkpoint.write_time((10.0, 10.0), 4.0, 6.0) == pytest.approx(10 / 3)
    # uneven: 3 B/s each until the 6 B rank finishes at 2 s, then 4 B/s for the last 4 B
    assert par_checkpoint.write_time((6.0, 10.0), 4.0, 6.0) == pytest.approx(3.0)
