"""The oracle-backed memory executables refuse what their models do not cover, in one line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.cards.registry import ArgumentError
from quizcoll.executables import build_registry
from quizcoll.memory.activations import AttentionKernel, layer_activations
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.formats import parse_format
from quizcoll.memory.training import Recompute
from quizcoll.memory.vllm import BLOCK_SIZE, vllm_budget


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("memory.deepspeed_zero", {"zero_stage": 2, "gpus": 8}, "either model or params"),
        ("memory.deepspeed_zero", {"zero_stage": 1, "params": 10**9}, "zero_stage"),
        (
            "memory.deepspeed_zero",
            {"zero_stage": 3, "model": "gpt2", "largest_layer": 5},
            "largest_layer comes from the model",
        ),
        (
            "memory.deepspeed_zero",
            {"zero_stage": 3, "params": 100, "largest_layer": 101},
            "largest layer must have between 0 and 100",
        ),
        ("memory.layer_activations", {"model": "llama-3-8b", "precision": "int8"}, "precision"),
        (
            "memory.vllm_serving",
            {"model": "llama-3-8b", "gpu": "l4", "utilization": 0},
            "utilization",
        ),
    ],
)
def test_refusals_are_one_line_argument_errors(name, args, message):
    with pytest.raises(ArgumentError, match=message) as caught:
        build_registry().call(name, args)
    assert "\n" not in str(caught.value)


def test_vllm_fewest_gpus_is_zero_when_no_node_holds_the_model():
    r = build_registry().call(
        "memory.vllm_serving", {"model": "llama-3.1-405b", "gpu": "rtx-4090", "dtype": "fp16"}
    )
    assert r["gpus_needed"] == 0 and r["fits"] == "no" and r["kv_tokens"] == 0


def test_chunked_prefill_keeps_activations_independent_of_the_batch():
    r = build_registry()
    args = {"model": "llama-3-8b", "gpu": "h100-80gb", "context": 8192}
    one, many = (r.call("memory.vllm_serving", {**args, "batch": b}) for b in (1, 64))
    assert one["activation_bytes"] == many["activation_bytes"]
    assert one["kv_tokens"] == many["kv_tokens"] and many["max_context"] < one["max_context"]


@settings(max_examples=60, deadline=None)
@given(
    model=st.sampled_from(model_names()),
    s=st.integers(2, 32768),  # at s = 1 GPT-2's fp32 log-sum-exp outweighs eager's one score
    b=st.integers(1, 16),
    precision=st.sampled_from(["bf16", "fp32"]),
)
def test_recomputation_and_kernels_order_the_saved_bytes(model, s, b, precision):
    cfg = load_model(model)

    def saved(kernel: AttentionKernel, recompute: Recompute) -> float:
        return layer_activations(
            cfg, seq_len=s, micro_batch=b, kernel=kernel, recompute=recompute, precision=precision
        ).per_layer_bytes

    for kernel in AttentionKernel:
        assert saved(kernel, Recompute.FULL) <= saved(kernel, Recompute.SELECTIVE)
        assert saved(kernel, Recompute.SELECTIVE) <= saved(kernel, Recompute.NONE)
    assert saved(AttentionKernel.SDPA, Recompute.NONE) <= saved(
        AttentionKernel.EAGER, Recompute.NONE
    )


@settings(max_examples=60, deadline=None)
@given(
    model=st.sampled_from(["llama-3-8b", "qwen2.5-7b", "mixtral-8x7b", "gpt2"]),
    util=st.floats(0.5, 1.0),
    chunk=st.integers(16, 65536),
)
def test_vllm_blocks_are_the_whole_blocks_that_fit(model, util, chunk):
    b = vllm_budget(
        load_model(model),
        parse_format("bf16"),
        80 * 2**30,
        utilization=util,
        max_num_batched_tokens=chunk,
    )
    block = BLOCK_SIZE * b.kv_bytes_per_token
    if b.kv_cache_bytes >= 0:
        assert b.blocks * block <= b.kv_cache_bytes < (b.blocks + 1) * block
    else:
        assert b.blocks == 0
    bigger = vllm_budget(
        load_model(model),
        parse_format("bf16"),
        80 * 2**30,
        utilization=util,
        max_num_batched_tokens=2 * chunk,
    )
    assert bigger.kv_tokens <= b.kv_tokens  # a larger chunk reserves more activations
