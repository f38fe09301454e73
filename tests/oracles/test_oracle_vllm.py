"""Oracle: the vLLM serving-memory model against published vLLM start-up logs.

vLLM itself needs a GPU, so the oracle is what vLLM printed on real GPUs (sources in
docs/oracles.md):

- vllm-project/vllm#10517, Llama-3.1-8B-Instruct on one RTX 3090 (V0 engine, util 0.90,
  prompts not chunked, so the profile pass holds ``max_model_len`` tokens; V0 subtracted no
  CUDA-graph estimate): "Loading model weights took 14.9888 GB", "Memory profiling results:
  total_gpu_memory=23.58GiB ... peak_torch_memory=17.06GiB ... non_torch_memory=0.35GiB
  kv_cache_size=3.81GiB", "# GPU blocks: 1952" at max_model_len 20,000, and peak 17.98 GiB,
  2.89 GiB, 1,478 blocks at 29,000. The model must predict the activation peak, the KV
  memory and the blocks within 1% from the config alone, with the forward of that era's
  llama.py (``gate_up_held``: vllm-project/vllm llama.py at 0035bdf2,
  ``gate_up, _ = self.gate_up_proj(x)`` keeps gate_up alive through down_proj; 0.33.0's
  ``x, _ = self.gate_up_proj(x)`` frees it). Measured: peak -0.54% / -0.14%, KV memory
  +0.35% / +0.22%, blocks +0.26% / +0.27%; the weights with the rotary cache (131,072 x 128
  bf16) print as 14.9888 GiB to the log's four decimals.
- A V1 log of Qwen/Qwen2.5-1.5B-Instruct: "Available KV cache memory: 0.56 GiB", "GPU KV
  cache size: 20,992 tokens": whole 16-token blocks of the model's KV bytes per token.
"""

from __future__ import annotations

import pytest

from quizcoll.memory.architecture import parse_config
from quizcoll.memory.catalog import load_model
from quizcoll.memory.formats import parse_format
from quizcoll.memory.inference import kv_cache_bytes
from quizcoll.memory.vllm import BLOCK_SIZE, vllm_budget

GIB = 2**30
RTX3090_TOTAL = 23.58 * GIB  # as the log prints it (two decimals)
WEIGHTS_LOGGED = 14.9888 * GIB  # "took 14.9888 GB": vLLM divides by 2**30

# (max_model_len, peak_torch GiB, kv_cache_size GiB, GPU blocks) from the log lines
LOGS_10517 = [(20_000, 17.06, 3.81, 1952), (29_000, 17.98, 2.89, 1478)]


@pytest.mark.parametrize(("tokens", "peak", "kv", "blocks"), LOGS_10517)
def test_llama31_8b_on_rtx3090_matches_the_published_profile(tokens, peak, kv, blocks):
    budget = vllm_budget(
        load_model("llama-3.1-8b"),
        parse_format("bf16"),
        round(RTX3090_TOTAL),
        utilization=0.90,
        max_num_batched_tokens=tokens,
        max_num_seqs=256,
        non_torch_bytes=round(0.35 * GIB),
        cuda_graph_bytes=0,
        gate_up_held=True,
    )
    # parameters plus the rotary cos_sin_cache, to the log's four decimals
    assert budget.weights_bytes == pytest.approx(WEIGHTS_LOGGED, abs=0.00005 * GIB)
    # the peak is the forward's: the allocator's highest point, not forward + sampler
    assert budget.activation_bytes == budget.forward_bytes > budget.sampler_bytes
    assert budget.activation_bytes == pytest.approx((peak * GIB) - WEIGHTS_LOGGED, rel=0.01)
    assert budget.kv_cache_bytes == pytest.approx(kv * GIB, rel=0.01)
    assert budget.blocks == pytest.approx(blocks, rel=0.01)


QWEN25_15B = {  # Qwen/Qwen2.5-1.5B-Instruct config.json, the fields the count needs
    "model_type": "qwen2",
    "hidden_size": 1536,
    "intermediate_size": 8960,
    "num_hidden_layers": 28,
    "num_attention_heads": 12,
    "num_key_value_heads": 2,
    "vocab_size": 151936,
    "max_position_embeddings": 32768,
    "tie_word_embeddings": True,
    "use_sliding_window": False,
}


def test_kv_tokens_are_whole_blocks_of_the_kv_bytes_per_token():
    cfg = parse_config(QWEN25_15B, source="Qwen2.5-1.5B-Instruct")
    per_token = kv_cache_bytes(cfg, 1, 1, 2)
    logged_tokens, logged_gib = 20_992, 0.56
    lo, hi = (logged_gib - 0.005) * GIB, (logged_gib + 0.005) * GIB
    blocks = {int(m // (BLOCK_SIZE * per_token)) for m in (lo, hi)}
    assert logged_tokens // BLOCK_SIZE in range(min(blocks), max(blocks) + 1)
