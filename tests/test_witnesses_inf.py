"""The inference witnesses held to hand-worked cases, published figures and properties —
never to the calculators' formulas."""

from __future__ import annotations

import numpy as np
import pytest

from quizcoll.witnesses import inf_kv, inf_moe, inf_stream


def test_stream_two_equal_slices_by_hand() -> None:
    # read 0: 0-1, read 1: 1-2 while compute 0 runs 1-2, compute 1: 2-3.
    s = [inf_stream.Slice(1.0, 1.0, 0.0)] * 2
    assert inf_stream.stream(s, peak_flops=1.0, bandwidth=1.0).time_s == pytest.approx(3.0)


def test_stream_overlaps_within_one_slice_of_the_slower_engine() -> None:
    for flops, nbytes in ((1e12, 1e9), (1e9, 1e12), (5e11, 5e11)):
        one = inf_stream.stream(inf_stream.even(flops, nbytes, 1), 1e12, 1e12).time_s
        many = inf_stream.stream(inf_stream.even(flops, nbytes, 1000), 1e12, 1e12).time_s
        slower = max(flops, nbytes) / 1e12
        assert one == pytest.approx(flops / 1e12 + nbytes / 1e12)  # one slice: no overlap
        assert slower <= many <= slower * (1 + 1 / 1000) + 1e-15


def test_gemm_tiles_count_every_multiply_add_and_move_each_element_once() -> None:
    m, n, k = 3, 5, 7
    tiles = inf_stream.gemm(m, n, k, 1.0, row_blocks=2, col_blocks=3, depth_blocks=4)
    a, b = np.ones((m, k)), np.ones((k, n))
    multiply_adds = (a @ b).sum()  # each output element sums k products of ones
    assert sum(t.flops for t in tiles) == 2 * multiply_adds
    assert sum(t.read_bytes for t in tiles) == a.size + b.size
    assert sum(t.write_bytes for t in tiles) == m * n


@pytest.mark.parametrize(
    ("shape", "published"),
    [
        # meta-llama/Llama-3.1-8B and -70B: the parameter counts their model cards publish.
        (inf_stream.Shape(32, 4096, 32, 8, 128, 14336, 128256), 8_030_261_248),
        (inf_stream.Shape(80, 8192, 64, 8, 128, 28672, 128256), 70_553_706_496),
    ],
)
def test_llama_tensors_add_up_to_the_published_parameter_counts(
    shape: inf_stream.Shape, published: int
) -> None:
    assert inf_stream.parameters(shape) == published


def test_decode_step_grows_with_context_and_batching_shares_the_weights() -> None:
    s = inf_stream.Shape(2, 64, 4, 2, 16, 128, 100)
    kw = {"weight_bytes": 2.0, "kv_bytes": 2.0, "peak_flops": 1e15, "bandwidth": 1e12}
    short = inf_stream.decode_step(s, context=10, batch=1, **kw)
    long = inf_stream.decode_step(s, context=1000, batch=1, **kw)
    four = inf_stream.decode_step(s, context=10, batch=4, **kw)
    assert long.time_s > short.time_s
    assert short.time_s < four.time_s < 4 * short.time_s


def test_packed_int4_group_is_sixty_four_bytes_of_nibbles_and_a_half_scale() -> None:
    assert inf_stream.packed_bytes_per_weight("w4a16") == (128 // 2 + 2) / 128
    assert inf_stream.packed_bytes_per_weight("w8a8") == 1
    assert inf_stream.packed_bytes_per_weight("w16a16") == 2
    with pytest.raises(ValueError, match="format"):
        inf_stream.packed_bytes_per_weight("w3a3")


def test_paged_blocks_by_hand() -> None:
    p = inf_kv.paged(17, 16, max_len=20)
    assert (p.blocks, p.empty_slots, p.reserved_empty) == (2, 15, 3)
    assert inf_kv.paged(32, 16).empty_slots == 0
    assert all(inf_kv.paged(t, 8).empty_slots < 8 for t in range(1, 50))
    with pytest.raises(ValueError, match="shorter"):
        inf_kv.paged(10, 4, max_len=5)


def test_prefix_walk_reuses_only_full_blocks() -> None:
    assert inf_kv.prefix_walk(32, 2, 16).tokens_reused == 32
    assert inf_kv.prefix_walk(31, 2, 16).tokens_reused == 16  # the partial block is not shared
    assert inf_kv.prefix_walk(15, 5, 16).tokens_reused == 0
    assert inf_kv.prefix_walk(32, 1, 16).tokens_reused == 0  # nobody to share with


def test_mla_tensors_match_deepseek_v2s_stated_gqa_equivalent() -> None:
    # DeepSeek-V2 (after Table 1): d_c = 4·d_h and d_h^R = d_h/2, "equal to GQA with only 2.25 groups".
    d_h = 128
    mla = inf_kv.elements_per_token(inf_kv.cache_tensors(1, latent_dim=4 * d_h, rope_dim=d_h // 2))
    one_group = inf_kv.elements_per_token(inf_kv.cache_tensors(1, kv_heads=1, head_dim=d_h))
    assert mla / one_group == 2.25


def test_buffer_fits_at_capacity_and_not_one_below() -> None:
    for tokens, experts, k, cf in ((1000, 64, 2, 1.25), (4096, 8, 1, 1.0), (7, 3, 1, 2.0)):
        c = inf_moe.buffer_size(tokens, experts, k, cf)
        assert c * experts >= cf * tokens * k > (c - 1) * experts


def test_dispatch_by_hand() -> None:
    d = inf_moe.dispatch([5, 1], 1.0)  # 6 tokens, 2 experts: buffers of 3
    assert (d.capacity, d.accepted, d.dropped) == (3, 4, 2)
    assert inf_moe.dispatch([2, 2, 2, 2], 1.0).dropped == 0


def test_switch_loss_is_alpha_when_balanced_and_alpha_times_experts_when_collapsed() -> None:
    # Fedus et al. 2022 §2.2: uniform routing minimises the loss at α; all on one expert, α·E.
    assert inf_moe.switch_loss([4, 4, 4, 4], [0.25] * 4, 0.01) == pytest.approx(0.01)
    assert inf_moe.switch_loss([8, 0, 0, 0], [1, 0, 0, 0], 0.01) == pytest.approx(0.04)


def test_memory_bound_steps_are_all_at_batch_one_and_none_when_the_batch_saturates_flops() -> None:
    # Batch 1 does two FLOPs per weight byte pair: far below any GPU's ridge, so every step
    # waits on memory. At a batch of 4096 with a slow ALU, every step waits on FLOPs.
    s = inf_stream.Shape(2, 64, 4, 2, 16, 128, 100)
    slow = {"weight_bytes": 2.0, "kv_bytes": 2.0, "prompt": 8, "output": 5}
    one = inf_stream.request(s, batch=1, peak_flops=1e15, bandwidth=1e12, **slow)
    many = inf_stream.request(s, batch=4096, peak_flops=1e9, bandwidth=1e12, **slow)
    assert (one.memory_bound_steps, many.memory_bound_steps) == (5, 0)
