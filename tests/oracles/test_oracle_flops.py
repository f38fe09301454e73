"""Oracle: FLOPs that ``torch.utils.flop_counter.FlopCounterMode`` counts on small real models.

Small Llama (GQA) and GPT-2 (tied head) ``*ForCausalLM`` models run eager attention (the CPU
SDPA kernel has no FLOP formula in the counter) on b sequences of T tokens. The counter
counts every matmul, including the full T × T score and value products: the non-causal
attention term, which is what PaLM's 12·L·H·Q·T (Appendix B) counts. N is the parameters that
enter a matmul (projections and the output head; not the embedding lookups, norms or biases).

- forward: 2N + 4LHQT per token (``inference_flops_per_token`` at context T, non-causal);
- forward + backward: 6N + 12LHQT per trained token (``training_flops``, non-causal);
- a causal kernel needs only the T(T+1)/2 lower-triangle scores: the causal term is shown
  against the count of the score entries eager attention keeps unmasked.
"""

from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode
from transformers import AutoConfig, AutoModelForCausalLM

from quizcoll.memory.architecture import parse_config
from quizcoll.memory.params import Role, tensors
from quizcoll.systems.flops import Attention, inference_flops_per_token, training_flops

BATCH, SEQ = 2, 32
CONFIGS = {
    "llama": {
        "hidden_size": 64,
        "intermediate_size": 160,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
    },
    "gpt2": {
        "n_embd": 64,
        "n_head": 4,
        "n_layer": 2,
        "attn_pdrop": 0.0,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
    },
}


def _setup(family: str):
    cfg = AutoConfig.for_model(family, vocab_size=101, use_cache=False, **CONFIGS[family])
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager")
    ours = parse_config(cfg.to_dict(), source=f"{family} test config")
    matmul_roles = {Role.LINEAR, Role.HEAD, Role.ROUTER}
    n_matmul = sum(t.parameters for t in tensors(ours) if t.role in matmul_roles)
    if ours.tie_embeddings:  # the tied embedding is also the output head's matrix
        n_matmul += ours.vocab_size * ours.hidden_size
    attention = Attention(ours.num_layers, ours.num_heads, ours.head_dim)
    ids = torch.randint(0, 101, (BATCH, SEQ))
    return model, ids, n_matmul, attention


@pytest.mark.parametrize("family", CONFIGS)
def test_forward_flops_are_2n_plus_noncausal_attention(family):
    model, ids, n, attention = _setup(family)
    model.eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(input_ids=ids)
    per_token = counter.get_total_flops() / (BATCH * SEQ)
    assert per_token == inference_flops_per_token(n, SEQ, attention)


@pytest.mark.parametrize("family", CONFIGS)
def test_training_flops_are_6n_plus_noncausal_attention(family):
    model, ids, n, attention = _setup(family)
    model.train()
    with FlopCounterMode(display=False) as counter:
        model(input_ids=ids, labels=ids).loss.backward()
    per_token = counter.get_total_flops() / (BATCH * SEQ)
    flops = training_flops(n, BATCH * SEQ, SEQ, attention)
    assert per_token == flops.model_flops_per_token
    assert per_token - 6 * n == flops.attention_flops_per_token


def test_causal_attention_term_counts_the_unmasked_scores():
    """Eager attention masks the upper triangle; the entries left are the causal work."""
    _, _, _, attention = _setup("llama")
    mask = torch.tril(torch.ones(SEQ, SEQ, dtype=torch.bool))
    kept = int(mask.sum())  # T(T+1)/2 per head and sequence
    # 12 FLOPs per head-dimension per score entry (2 forward products, 4 backward), per token
    causal_per_token = 12 * attention.lhq * kept / SEQ
    flops = training_flops(1, 1, SEQ, attention)
    assert causal_per_token == flops.causal_attention_flops_per_token
    assert flops.causal_attention_flops_per_token / flops.attention_flops_per_token == (SEQ + 1) / (
        2 * SEQ
    )
