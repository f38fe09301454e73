"""Exact parameter counts: the catalog against published figures, and each architecture rule."""

from __future__ import annotations

import pytest

from quizcoll.memory.architecture import parse_config
from quizcoll.memory.catalog import load_model, model_names, raw_config
from quizcoll.memory.params import Component, count_parameters, tensors

# Published counts (model cards / safetensors metadata), held against the computed ones.
PUBLISHED = {
    "gpt2": 124_439_808,
    "gpt2-xl": 1_557_611_200,
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "llama-2-70b": 68_976_648_192,
    "llama-3-8b": 8_030_261_248,
    "llama-3-70b": 70_553_706_496,
    "llama-3.1-8b": 8_030_261_248,
    "llama-3.1-70b": 70_553_706_496,
    "llama-3.1-405b": 405_853_388_800,
    "llama-3.2-1b": 1_235_814_400,
    "mistral-7b": 7_241_732_096,
    "mistral-nemo-12b": 12_247_782_400,
    "mixtral-8x7b": 46_702_792_704,
    "gemma-2b": 2_506_172_416,
    "gemma-7b": 8_537_680_896,
    "qwen2.5-0.5b": 494_032_768,
    "qwen2.5-7b": 7_615_616_512,
    "qwen2.5-72b": 72_706_203_648,
}


def test_every_catalog_model_has_a_published_count() -> None:
    assert set(model_names()) == set(PUBLISHED)


@pytest.mark.parametrize(("name", "expected"), sorted(PUBLISHED.items()))
def test_published_count(name: str, expected: int) -> None:
    counts = count_parameters(load_model(name))
    assert counts.total == expected
    assert sum(n for _, n in counts.by_component) == expected


def test_mixtral_active_parameters() -> None:
    counts = count_parameters(load_model("mixtral-8x7b"))
    # 2 of 8 experts per token: attention, router, norms, embeddings and head all count.
    assert counts.active == 12_879_925_248
    assert counts.component(Component.ROUTER) == 32 * 8 * 4096
    assert counts.component(Component.MLP) == 32 * 8 * 3 * 4096 * 14336


def test_dense_model_active_equals_total() -> None:
    counts = count_parameters(load_model("llama-3-8b"))
    assert counts.active == counts.total


def test_llama3_breakdown() -> None:
    counts = count_parameters(load_model("llama-3-8b")).as_dict()
    assert counts == {
        "embeddings": 128256 * 4096,
        "attention": 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024),
        "mlp": 32 * 3 * 4096 * 14336,
        "norms": 65 * 4096,
        "head": 128256 * 4096,
    }


def test_tied_models_have_no_head() -> None:
    for name in ("gpt2", "gemma-2b", "qwen2.5-0.5b", "llama-3.2-1b"):
        assert count_parameters(load_model(name)).component(Component.HEAD) == 0


def test_lookup_by_repo_id_and_case() -> None:
    assert load_model("meta-llama/Meta-Llama-3-8B") == load_model("llama-3-8b")
    assert load_model("Mixtral-8x7B-v0.1").num_experts == 8
    assert load_model("LLAMA-2-7B").num_kv_heads == 32


def _llama(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "model_type": "llama",
        "vocab_size": 1000,
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
    }
    base.update(overrides)
    return base


def test_small_llama_by_hand() -> None:
    cfg = parse_config(_llama())
    layer = 4 * 64 * 64 + 3 * 64 * 128 + 2 * 64
    assert count_parameters(cfg).total == 2 * layer + 2 * 1000 * 64 + 64


def test_head_dim_overrides_hidden_over_heads() -> None:
    plain = count_parameters(parse_config(_llama())).total
    wide = count_parameters(parse_config(_llama(head_dim=32))).total  # 4 heads × 32 = 128 ≠ 64
    # q, k, v each gain 64 extra rows and o_proj 64 extra columns, in both layers
    assert wide - plain == 2 * 4 * 64 * 64


def test_gqa_and_mqa() -> None:
    mha = count_parameters(parse_config(_llama())).total
    mqa_cfg = parse_config(_llama(num_key_value_heads=1))
    assert mqa_cfg.attention_kind == "MQA"
    assert parse_config(_llama(num_key_value_heads=2)).attention_kind == "GQA"
    # k and v shrink from 64 rows to 16 in each of 2 layers
    assert mha - count_parameters(mqa_cfg).total == 2 * 2 * (64 - 16) * 64


def test_llama_attention_and_mlp_bias() -> None:
    base = count_parameters(parse_config(_llama())).total
    with_attn = count_parameters(parse_config(_llama(attention_bias=True))).total
    with_mlp = count_parameters(parse_config(_llama(mlp_bias=True))).total
    assert with_attn - base == 2 * (64 + 64 + 64 + 64)  # q, k, v and o biases
    assert with_mlp - base == 2 * (128 + 128 + 64)  # gate, up, down biases


def test_qwen2_has_qkv_bias_only() -> None:
    llama = count_parameters(parse_config(_llama())).total
    qwen = count_parameters(parse_config(_llama(model_type="qwen2"))).total
    assert qwen - llama == 2 * (64 + 64 + 64)


def test_gemma_ties_by_default_and_uses_head_dim_256() -> None:
    cfg = parse_config(_llama(model_type="gemma"))
    assert cfg.tie_embeddings and cfg.head_dim == 256
    untied = parse_config(_llama(model_type="gemma", tie_word_embeddings=False))
    assert count_parameters(untied).total - count_parameters(cfg).total == 1000 * 64


def test_gpt2_learned_positions_and_biases() -> None:
    cfg = parse_config(
        {
            "model_type": "gpt2",
            "vocab_size": 100,
            "n_embd": 8,
            "n_layer": 1,
            "n_head": 2,
            "n_positions": 16,
        }
    )
    h = 8
    layer = 12 * h * h + 13 * h  # qkv, proj, fc, proj with biases + two LayerNorms
    assert count_parameters(cfg).total == 100 * h + 16 * h + layer + 2 * h


def test_tensor_shapes_follow_out_in_convention() -> None:
    shapes = {t.name: t.shape for t in tensors(load_model("llama-3-8b"))}
    assert shapes["attn.k_proj.weight"] == (1024, 4096)
    assert shapes["mlp.down_proj.weight"] == (4096, 14336)


def test_raw_config_is_the_published_file() -> None:
    raw = raw_config("mistral-7b")
    assert raw["_name_or_path"] == "mistralai/Mistral-7B-v0.1"
    assert raw["sliding_window"] == 4096
