"""Oracle: each catalog model's shape constants are what transformers builds from its config.

:mod:`quizcoll.constants.models` reads a figure from ``config.json`` where the key exists and
quotes that line; where it is absent the figure follows transformers' defaults (a head
dimension of hidden / heads, GPT-2's MLP of 4 × n_embd, a config class's
``tie_word_embeddings``, no experts). Those have no line to quote, so here each is held to
the model transformers instantiates on the meta device (:mod:`tests.oracles.hf_meta`): the
attention module's head dimension, the key projection's and the MLP's widths, whether the
output head is the embedding tensor, q/k/v biases, the stacked experts and the router's top-k.
"""

from __future__ import annotations

import functools

import pytest
import torch

from quizcoll.constants.models import model_constants
from quizcoll.memory.catalog import model_names
from tests.oracles.hf_meta import meta_model

SUFFIXES = ("head_dim", "kv_heads", "intermediate", "tied", "qkv_bias", "experts")
SUFFIXES += ("experts_per_token",)
BY_NAME = {c.name: c for c in model_constants()}


def _width(module: torch.nn.Module, out: bool = True) -> int:
    """Output (or input) features of a Linear, or of GPT-2's Conv1D (weight is in × out)."""
    if isinstance(module, torch.nn.Linear):
        return module.out_features if out else module.in_features
    return module.weight.shape[1] if out else module.weight.shape[0]


@functools.cache
def _shape(model: str) -> dict[str, float]:
    _, net = meta_model(model)
    mods = dict(net.named_modules())
    first = next(k for k in mods if k.endswith((".layers.0", ".h.0")))
    attn = mods.get(f"{first}.self_attn") or mods[f"{first}.attn"]
    head_dim = attn.head_dim
    if hasattr(attn, "k_proj"):
        kv_width, qkv_bias = _width(attn.k_proj), attn.q_proj.bias is not None
    else:  # GPT-2: one c_attn projects q, k and v side by side
        kv_width, qkv_bias = _width(attn.c_attn) // 3, attn.c_attn.bias is not None
    mlp = mods[f"{first}.mlp"]
    experts = mods.get(f"{first}.mlp.experts")
    if experts is not None:  # stacked: one slice per expert, down_proj is E × hidden × width
        intermediate, count, top_k = (
            experts.down_proj.shape[-1],
            experts.down_proj.shape[0],
            mlp.top_k,
        )
    elif hasattr(mlp, "up_proj"):
        intermediate, count, top_k = _width(mlp.up_proj), 0, 0
    else:
        intermediate, count, top_k = _width(mlp.c_fc), 0, 0
    tied = net.get_output_embeddings().weight is net.get_input_embeddings().weight
    return {
        "head_dim": head_dim,
        "kv_heads": kv_width / head_dim,
        "intermediate": intermediate,
        "tied": float(tied),
        "qkv_bias": float(qkv_bias),
        "experts": count,
        "experts_per_token": top_k,
    }


@pytest.mark.parametrize("model", model_names())
def test_the_shape_constants_are_what_transformers_builds(model: str) -> None:
    key = model.replace("-", "_").replace(".", "_")
    built = _shape(model)
    assert {s: BY_NAME[f"{key}_{s}"].value for s in SUFFIXES} == built


def test_the_oracle_tells_the_shapes_apart() -> None:
    # Against a constant that typed another model's figure, the comparison fails.
    assert _shape("gpt2")["tied"] != _shape("llama-3-8b")["tied"]
    assert _shape("mixtral-8x7b")["experts"] == BY_NAME["mixtral_8x7b_experts"].value != 0
    assert _shape("llama-3-8b")["kv_heads"] != BY_NAME["llama_2_7b_kv_heads"].value
