"""vLLM 0.33.0's profile accounting in the calculator, held to the source lines it follows and
to the enumerated witness (quizcoll.witnesses.left4_vllm_pool): two methods, one reading.

Source lines are from the vllm-0.33.0 wheel (docs/oracles.md lists them).
"""

from __future__ import annotations

import pytest

from quizcoll.memory.catalog import load_model
from quizcoll.memory.formats import parse_format
from quizcoll.memory.vllm import (
    blocks_per_sequence,
    forward_peak_bytes,
    sampler_peak_bytes,
    vllm_budget,
)
from quizcoll.witnesses import left4_vllm_pool as pool

GIB = 2**30


def _decoder(name: str) -> pool.Decoder:
    c = load_model(name)
    return pool.Decoder(
        c.num_layers, c.hidden_size, c.num_heads, c.num_kv_heads, c.head_dim,
        c.intermediate_size, c.vocab_size,
    )  # fmt: skip


def test_the_reserve_is_the_higher_stage_not_the_sum():
    # vllm/utils/mem_utils.py: torch_peak is allocated_bytes.all.peak over the whole
    # profile_run (forward, then _dummy_sampler_run): one highest point
    for chunk in (256, 2048, 16384):
        b = vllm_budget(load_model("llama-3.1-8b"), parse_format("bf16"), 80 * GIB,
                        max_num_batched_tokens=chunk)  # fmt: skip
        assert b.activation_bytes == max(b.forward_bytes, b.sampler_bytes)


def _valid_layouts() -> list[tuple[str, int]]:
    """Every (model, TP) pair vLLM accepts (a TP degree must divide the heads)."""
    models = ["llama-2-7b", "llama-3-8b", "llama-3-70b", "qwen2.5-7b"]
    return [(m, tp) for m in models for tp in (1, 2, 4, 8) if pool.valid_tp(_decoder(m), tp)]


@pytest.mark.parametrize(("model", "tp"), _valid_layouts())
@pytest.mark.parametrize("held", [False, True])
def test_the_forward_closed_form_is_the_stepped_live_set(model, tp, held):
    # LlamaAttention.forward:229-233, LlamaMLP.forward:119-121, pynccl.py:291 (out-of-place
    # all-reduce under TP), stepped tensor by tensor in the witness
    m = _decoder(model)
    stepped = pool.profile_peak(m, tp, 2048, 1, 2, 4, gate_up_held=held)["forward_peak"]
    assert forward_peak_bytes(load_model(model), 2048, 2, tp, held) == stepped


def test_tensor_parallel_keeps_the_residual_stream_whole():
    # RowParallelLinear outputs and the residual are [tokens, hidden] on every GPU
    cfg = load_model("llama-3-70b")
    one, eight = (forward_peak_bytes(cfg, 8192, 2, t, False) for t in (1, 8))
    assert one / 8 < eight < one
    assert eight >= 8192 * 2 * 3 * cfg.hidden_size  # residual, normed, a row-parallel output


def test_the_sampler_stage_is_the_stepped_one():
    # gpu_model_runner.py profile_run / _dummy_sampler_run; sampler.py logits.to(float32);
    # topk_topp_sampler.py forward_native softmax(dtype=float32) and random_sample's q
    m = _decoder("llama-3.1-8b")
    for tokens, seqs in ((2048, 256), (128, 256), (8192, 1024)):
        stepped = pool.profile_peak(m, 1, tokens, seqs, 2, 4)["sampler_peak"]
        assert sampler_peak_bytes(load_model("llama-3.1-8b"), tokens, seqs, 2) == stepped


def test_a_sliding_window_holds_what_the_enumeration_holds():
    # SlidingWindowManager.get_num_skipped_tokens: computed - window + 1 tokens skipped
    for window in (16, 17, 31, 64, 100):
        for tokens in range(1, 5 * window):
            assert blocks_per_sequence(tokens, window) == pool.blocks_held(tokens, 16, window)
    assert blocks_per_sequence(8192, 4096) == 257  # one block more than 4,096 / 16
    assert blocks_per_sequence(4096, 4096) == 256
    assert blocks_per_sequence(100, None) == 7
