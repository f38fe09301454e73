"""Oracles: parameter counts and KV-cache bytes against real transformers models.

- Every bundled config (quizcoll/memory/models) is built by transformers on the meta device
  (no memory, no weights); ``sum(p.numel())`` must equal ``count_parameters``.
- Small Llama, Mistral (sliding window shorter than the run), Qwen2, Mixtral and GPT-2 models
  generate T tokens greedily; the bytes of every tensor that transformers' cache object holds
  afterwards must equal ``kv_cache_bytes`` for the T tokens it has seen (less one token per
  sliding-window layer: transformers drops the oldest between steps, and the next token
  brings the layer back to the window while it attends).
"""

from __future__ import annotations

import pytest
import torch
from transformers import AutoConfig, AutoModel, DynamicCache

from quizcoll.memory.architecture import parse_config
from quizcoll.memory.catalog import model_names, raw_config
from quizcoll.memory.inference import kv_cache_bytes
from quizcoll.memory.params import count_parameters
from tests.oracles.hf_meta import meta_model


@pytest.mark.parametrize("name", model_names())
def test_parameter_count_equals_transformers_on_meta(name):
    _, model = meta_model(name)
    real = sum(p.numel() for p in model.parameters())
    assert count_parameters(parse_config(raw_config(name), source=name)).total == real


KV_FAMILIES: dict[str, dict[str, object]] = {
    "llama": {"num_key_value_heads": 2},
    "mistral": {"num_key_value_heads": 2, "sliding_window": 8},
    "qwen2": {"num_key_value_heads": 2, "attention_bias": True},
    "mixtral": {"num_key_value_heads": 1, "num_local_experts": 4, "num_experts_per_tok": 2},
    "gpt2": {},
}


def _small(family: str):
    if family == "gpt2":
        shape = {"n_embd": 64, "n_head": 4, "n_layer": 2, "n_positions": 128}
    else:
        shape = {
            "hidden_size": 64,
            "intermediate_size": 96,
            "num_attention_heads": 4,
            "num_hidden_layers": 2,
            "max_position_embeddings": 128,
        }
    return AutoConfig.for_model(family, vocab_size=97, **shape, **KV_FAMILIES[family])


def _cache_bytes(cache) -> int:
    storages: dict[int, int] = {}
    for layer in cache.layers:
        for t in (layer.keys, layer.values):
            storages[t.untyped_storage().data_ptr()] = t.numel() * t.element_size()
    return sum(storages.values())


@pytest.mark.parametrize("family", KV_FAMILIES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_kv_cache_bytes_equal_transformers_cache(family, dtype):
    cfg = _small(family)
    torch.manual_seed(0)
    model = AutoModel.from_config(cfg, dtype=dtype).eval()
    prompt, generated, batch = 5, 6, 2
    cache = DynamicCache(config=cfg)
    ids = torch.randint(0, 97, (batch, prompt))
    with torch.no_grad():
        out = model(input_ids=ids, cache=cache, use_cache=True)
        for _ in range(generated):
            nxt = out.last_hidden_state[:, -1:].sum(-1).long().abs() % 97
            out = model(input_ids=nxt, cache=cache, use_cache=True)
    seen = prompt + generated
    assert cache.get_seq_length() == seen
    ours = parse_config(cfg.to_dict(), source=f"{family} test config")
    kv_bytes = torch.finfo(dtype).bits // 8
    expected = kv_cache_bytes(ours, seen, batch, kv_bytes)
    # Between steps transformers' DynamicSlidingWindowLayer keeps window - 1 tokens: the
    # next token joins them for attention, so a step attends over (and holds) the window.
    sliding = sum(1 for w in ours.sliding_windows if w is not None and w < seen)
    between_steps = 2 * ours.num_kv_heads * ours.head_dim * kv_bytes * batch * sliding
    assert _cache_bytes(cache) == expected - between_steps
