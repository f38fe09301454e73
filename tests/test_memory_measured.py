"""The oracle-backed memory executables refuse what their models do not cover, in one line."""

from __future__ import annotations

import pytest

from deck.cards.registry import ArgumentError
from quizcoll.executables import build_registry


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
