"""The memory constants: published figures with sources, and each catalog model's config
figures as closed forms read them."""

from __future__ import annotations

import pytest

from quizcoll.constants import all_constants
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.params import count_parameters

CONSTANTS = {c.name: c for c in all_constants()}


def test_names_are_unique_and_sourced() -> None:
    names = [c.name for c in all_constants()]
    assert len(names) == len(set(names))
    assert all(c.source.strip() for c in all_constants())


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("nf4_double_quant_bits_per_weight", 4.127),  # QLoRA: "0.127 bits per parameter"
        ("mxfp4_bits_per_weight", 4.25),
        ("adam_8bit_optimizer_bytes_per_param", 6),
        ("runtime_overhead_assumed", 2**30),
        ("llama_3_1_8b_trained_context", 131_072),
        ("gpt2_xl_trained_context", 1024),
        ("mistral_7b_attention_window", 4096),
        ("llama_3_8b_attention_window", 8192),
        ("q4_k_block_bytes", 144),
        ("gptq_block_bytes", 66.5),
        ("qwen2_5_7b_qkv_bias", 1),
        ("mixtral_8x7b_experts_per_token", 2),
    ],
)
def test_published_figures(name: str, value: float) -> None:
    assert CONSTANTS[name].value == pytest.approx(value, abs=5e-4)


@pytest.mark.parametrize("key", [k for k in model_names() if not k.startswith("gpt2")])
def test_config_figures_give_the_counted_parameters(key: str) -> None:
    """The literature's count of a Llama-style decoder over the config constants equals the
    calculator's tensor-by-tensor count, for every non-GPT-2 catalog model."""

    def c(suffix: str) -> float:
        return CONSTANTS[f"{key.replace('-', '_').replace('.', '_')}_{suffix}"].value

    h, d, heads, kv, f = c("hidden"), c("head_dim"), c("heads"), c("kv_heads"), c("intermediate")
    experts = c("experts")
    layer = (
        2 * h * heads * d
        + 2 * h * kv * d
        + 3 * h * f * max(experts, 1)
        + h * experts
        + 2 * h
        + c("qkv_bias") * (heads + 2 * kv) * d
    )
    total = (2 - c("tied")) * c("vocab") * h + c("layers") * layer + h
    assert total == count_parameters(load_model(key)).total


def test_gpu_marketing_sizes_are_terms_not_quantities() -> None:
    from deck.cards.prose import unproven
    from quizcoll.executables import build_registry

    TERMS = tuple(build_registry().terms)  # the catalog GPUs' names, added by the executables
    assert {"80GB", "16GB", "141GB"} <= set(TERMS)
    assert [u.text for u in unproven("an A100 80GB reports more than 80 GB", TERMS)] == ["80 GB"]
