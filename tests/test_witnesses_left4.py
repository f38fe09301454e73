"""The vLLM pool witness held to a published start-up log, hand-counted cases and properties.

The published log is vllm-project/vllm#10517 (Llama-3.1-8B-Instruct, one RTX 3090, eager V0
engine, the profile forward holding max_model_len tokens): "Loading model weights took
14.9888 GB" (vLLM divides by 2**30) and "peak_torch_memory=17.06GiB" at max_model_len
20,000, 17.98 GiB at 29,000 (docs/oracles.md quotes the lines). The shape is
meta-llama/Llama-3.1-8B-Instruct's config.json.
"""

from __future__ import annotations

import pytest

from quizcoll.witnesses import left4_vllm_pool as pool

GIB = 2**30
LLAMA31_8B = pool.Decoder(
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
    head_dim=128,
    intermediate=14336,
    vocab=128256,
    positions=131072,
)
WEIGHTS_LOGGED = 14.9888 * GIB


def test_the_listed_weights_are_what_vllm_logged_loading():
    weights = pool.total_bytes(pool.rank_weights(LLAMA31_8B, 1, 2, 2))
    assert weights == pytest.approx(WEIGHTS_LOGGED, rel=5e-5)  # the log's four decimals


@pytest.mark.parametrize(("tokens", "peak_gib"), [(20_000, 17.06), (29_000, 17.98)])
def test_the_stepped_profile_peak_is_the_logged_one(tokens, peak_gib):
    # the log is V0's: its LlamaMLP.forward kept `gate_up, _ = self.gate_up_proj(x)` named
    # through down_proj (vllm-project/vllm llama.py at 0035bdf2)
    peak = pool.profile_peak(LLAMA31_8B, 1, tokens, 256, 2, 4, gate_up_held=True)["peak"]
    assert peak == pytest.approx(peak_gib * GIB - WEIGHTS_LOGGED, rel=0.01)


def test_vllm_0_33_frees_gate_up_before_down_proj():
    # llama.py:119-121 (0.33.0): `x, _ = self.gate_up_proj(x)`; `x = ...act_fn(x)...`:
    # gate_up dies when x is rebound, so the 0.33.0 forward holds less than V0's
    old = pool.profile_peak(LLAMA31_8B, 1, 8192, 1, 2, 4, gate_up_held=True)["forward_peak"]
    new = pool.profile_peak(LLAMA31_8B, 1, 8192, 1, 2, 4)["forward_peak"]
    assert new < old
    # by hand, 8,192 tokens: residual, normed, gate_up (2 x 14,336), act (14,336), bf16
    assert new == 8192 * 2 * (4096 + 4096 + 2 * 14336 + 14336)


def test_the_sampler_stage_holds_the_forward_hidden_states():
    # a short chunk: the sampler is the peak, and it is not added to the forward's
    p = pool.profile_peak(LLAMA31_8B, 1, 256, 256, 2, 4)
    assert p["peak"] == p["sampler_peak"] > p["forward_peak"]
    # by hand: hidden [256, 4096] x 3 (forward's, last rows, rand_like) bf16, logits bf16,
    # three fp32 [256, vocab] (copy, probs, noise)
    assert p["sampler_peak"] == 3 * 256 * 4096 * 2 + 256 * 128256 * (2 + 3 * 4)


def test_the_logged_blocks_follow_from_the_logged_pool():
    # "kv_cache_size=3.81GiB", "# GPU blocks: 1952": 16-token blocks of the listed tensors
    size = pool.block_bytes(LLAMA31_8B, 1, 16, 2)
    assert size == 16 * 32 * 2 * 8 * 128 * 2  # hand count: tokens, layers, K and V, heads, dim
    lo, hi = pool.cut_blocks(3.805 * GIB, size), pool.cut_blocks(3.815 * GIB, size)
    assert lo <= 1952 <= hi


def test_replicated_kv_heads_make_a_block_no_smaller():
    small = pool.Decoder(2, 64, 8, 2, 8, 128, 100)
    assert pool.kv_heads_per_rank(small, 4) == 1
    assert pool.block_bytes(small, 4, 16, 2) == pool.block_bytes(small, 2, 16, 2)
    assert not pool.valid_tp(small, 3)


def test_tensor_parallel_keeps_the_residual_stream_whole():
    # the residual and norm outputs are [tokens, hidden] on every rank: the forward peak
    # does not halve when the ranks double
    one = pool.profile_peak(LLAMA31_8B, 1, 4096, 1, 2, 4)["forward_peak"]
    two = pool.profile_peak(LLAMA31_8B, 2, 4096, 1, 2, 4)["forward_peak"]
    assert one / 2 < two < one


def test_a_pool_shared_by_sequences_fits_at_its_context_not_one_block_more():
    assert pool.fill_pool(10, 3, 16) == 3 * 16  # 10 blocks: 4, 3, 3
    assert pool.fill_pool(9, 3, 16) == 3 * 16
    assert pool.fill_pool(8, 3, 16) == 2 * 16
    assert pool.fill_pool(0, 1, 16) == 0


def test_a_sliding_window_frees_the_blocks_behind_it():
    assert pool.blocks_held(100, 16) == 7  # ceil(100 / 16), by hand
    assert pool.blocks_held(4096, 16, 4096) == 256
    # once the window slides off a block boundary it spans one block more
    assert pool.blocks_held(4097, 16, 4096) == 257
    assert pool.blocks_held(1 << 14, 16, 4096) == 257


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="layers"):
        pool.Decoder(0, 64, 8, 2, 8, 128, 100)
    with pytest.raises(ValueError, match="does not divide"):
        pool.rank_weights(pool.Decoder(2, 64, 6, 2, 8, 128, 100), 4, 2, 2)
