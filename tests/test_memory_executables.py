"""The ``memory.*`` executables: declared params and fields, results, worked solutions, bad args."""

from __future__ import annotations

import math

import pytest

from deck.cards.registry import ArgumentError, Dimension
from quizcoll.executables import build_registry

CALLS = {
    "memory.weights": {"params": 7e9, "dtype": "fp16"},
    "memory.model_weights": {"model": "llama-2-7b", "dtype": "gptq"},
    "memory.model_params": {"model": "mixtral-8x7b"},
    "memory.decoder_layer": {"hidden": 4096, "kv_width": 1024, "intermediate": 14336},
    "memory.kv_cache": {"model": "llama-2-7b", "context": 4096},
    "memory.inference": {"model": "llama-3-70b", "dtype": "bf16", "context": 32768, "gpus": 2},
    "memory.gpus_needed": {"params": 70e9},
    "memory.max_context": {"model": "llama-3-8b", "gpu": "rtx-4090"},
    "memory.rule_of_thumb": {"params": 1e9, "dtype": "fp32"},
    "memory.training": {"params": 7.5e9, "zero_stage": 1, "gpus": 64},
    "memory.activations": {"model": "gpt2", "seq_len": 1024},
    "memory.bits_per_weight": {"format": "q6_k"},
    "memory.gpu": {"gpu": "h100-80gb"},
    "memory.layer_activations": {"model": "llama-3-8b", "seq_len": 4096, "attention": "eager"},
    "memory.deepspeed_zero": {"model": "mixtral-8x7b", "zero_stage": 3, "gpus": 8},
    "memory.vllm_serving": {"model": "llama-3-8b", "gpu": "h100-80gb", "context": 8192, "batch": 8},
}


def test_every_memory_executable_is_exercised() -> None:
    names = {n for n in build_registry().names() if n.startswith("memory.")}
    assert names == set(CALLS)


@pytest.mark.parametrize(("name", "args"), sorted(CALLS.items()))
def test_contract_fields_typed_finite_and_explained(name: str, args: dict) -> None:
    """The registry contract (declared fields present, typed, finite, one-line explanation);
    the values themselves are held by the cards' proofs and tests/oracles, not here."""
    registry = build_registry()
    ex = registry.get(name)
    result = registry.call(name, args)
    for f in ex.fields:
        value = result[f.name]
        if f.dimension is Dimension.TEXT:
            assert isinstance(value, str)
        else:
            assert isinstance(value, int | float) and math.isfinite(value) and value >= 0
    assert ex.explain is not None
    text = ex.explain(ex.bind(args), result)
    assert text and "\n" not in text
    assert not any(f" {u} " in text for u in ("G", "M")), text


def test_field_dimensions() -> None:
    registry = build_registry()
    inference = registry.get("memory.inference")
    assert inference.field_("kv_cache_bytes").dimension is Dimension.BYTES
    assert inference.field_("gpus_needed").dimension is Dimension.COUNT
    assert registry.get("memory.weights").field_("bytes_per_parameter").dimension is Dimension.RATIO


def test_results() -> None:
    r = build_registry()
    assert r.call("memory.weights", {"params": "7B"})["weights_bytes"] == 14_000_000_000
    assert (
        r.call("memory.kv_cache", {"model": "llama-3-8b", "context": 1})["kv_bytes_per_token"]
        == 131_072
    )
    kv = r.call(
        "memory.kv_cache", {"layers": 32, "kv_heads": 8, "head_dim": 128, "context": 10, "batch": 2}
    )
    assert kv["kv_cache_bytes"] == 131_072 * 20
    zero = r.call("memory.training", {"params": 7.5e9, "zero_stage": 3, "gpus": 64})
    assert zero["total"] == 1_875_000_000 and zero["baseline_total"] == 120_000_000_000
    assert r.call("memory.bits_per_weight", {"format": "q5_k"})["bits_per_weight"] == 5.5
    assert r.call("memory.gpu", {"gpu": "l4"})["reported_bytes"] == 23_034 * 2**20
    thumb = r.call("memory.rule_of_thumb", {"params": 1e9, "dtype": "fp32"})
    assert thumb["gib"] == pytest.approx(3.725, abs=1e-3)
    assert (
        r.call(
            "memory.inference",
            {"model": "llama-3-70b", "dtype": "bf16", "context": 32768, "gpus": 2},
        )["fits"]
        == "no"
    )
    assert r.call("memory.model_params", {"model": "gpt2"})["parameters"] == 124_439_808


def test_explain_weights_is_the_worked_sum() -> None:
    r = build_registry()
    ex = r.get("memory.weights")
    args = ex.bind({"params": 7e9, "dtype": "fp16"})
    assert ex.explain(args, r.call("memory.weights", args)).startswith(
        "7×10^9 weights × 2 B = 14.00 GB = 13.04 GiB"
    )


@pytest.mark.parametrize(
    ("name", "args", "fragment"),
    [
        ("memory.weights", {"params": 0}, "below the minimum"),
        ("memory.weights", {"params": 7e9, "dtype": "fp61"}, "did you mean 'fp16'"),
        ("memory.model_params", {"model": "llama-3-8"}, "did you mean"),
        ("memory.kv_cache", {"layers": 32, "context": 10}, "all of layers"),
        ("memory.kv_cache", {"model": "gpt2", "layers": 3}, "not both"),
        ("memory.kv_cache", {"model": "gpt2", "context": -1}, "below the minimum"),
        ("memory.gpus_needed", {}, "either model or params"),
        ("memory.inference", {"model": "gpt2", "context": 5000}, "learned position"),
        ("memory.training", {"params": 1e9, "zero_stage": 4}, "above the maximum"),
        ("memory.gpu", {"gpu": "h1000"}, "did you mean"),
    ],
)
def test_bad_arguments(name: str, args: dict, fragment: str) -> None:
    with pytest.raises(ArgumentError, match=fragment):
        build_registry().call(name, args)


def test_config_fields_and_tensor_parallel_degree() -> None:
    r = build_registry()
    config = r.call("memory.model_params", {"model": "llama-3-8b"})
    assert (config["heads"], config["kv_heads"], config["head_dim"]) == (32, 8, 128)
    assert (config["vocab_size"], config["max_position_embeddings"]) == (128_256, 8192)
    args = {"model": "llama-2-13b", "context": 4096, "batch": 8, "gpu": "rtx-4090"}
    needed = r.call("memory.inference", args)
    assert needed["gpus_needed"] == 3 and needed["tp_gpus"] == 4
    states = r.call("memory.training", {"params": 10**9, "grad_bytes": 4})
    assert states["total"] == 18 * 10**9


def test_the_score_term_of_the_activations() -> None:
    r = build_registry()
    args = {"hidden": 4096, "heads": 32, "layers": 1, "seq_len": 4096, "micro_batch": 2}
    none = r.call("memory.activations", args)
    selective = r.call("memory.activations", {**args, "recompute": "selective"})
    assert none["scores_bytes"] == 5 * 32 * 4096**2 * 2  # Korthikanti et al.: 5as²b
    assert none["per_layer_bytes"] - selective["per_layer_bytes"] == none["scores_bytes"]
    assert selective["scores_bytes"] == 0


def test_kv_cache_with_any_element_width() -> None:
    r = build_registry()
    shape = {"layers": 32, "kv_heads": 8, "head_dim": 128, "context": 1}
    assert r.call("memory.kv_cache", {**shape, "element_bytes": 3})["kv_bytes_per_token"] == (
        2 * 32 * 8 * 128 * 3
    )
    assert r.call("memory.kv_cache", shape)["kv_bytes_per_token"] == 2 * 32 * 8 * 128 * 2


def test_one_decoder_layer_is_a_model_layer() -> None:
    r = build_registry()
    layer = r.call(
        "memory.decoder_layer", {"hidden": 4096, "kv_width": 1024, "intermediate": 14336}
    )
    model = r.call("memory.model_params", {"model": "llama-3-8b"})  # 32 such layers
    assert layer["attention_parameters"] * 32 == model["attention_parameters"]
    assert layer["mlp_parameters"] * 32 == model["mlp_parameters"]
    assert layer["norm_parameters"] * 32 + 4096 == model["norm_parameters"]
    with pytest.raises(ArgumentError):
        r.call("memory.decoder_layer", {"hidden": 0, "kv_width": 1, "intermediate": 1})
