"""Cross-check counts against torch modules built from generated configs (skipped without torch).

The modules are written here from the Hugging Face layer definitions (Linear shapes and
biases, RMSNorm/LayerNorm weights, embeddings, tying), so the count is held against what
torch itself allocates: ``sum(p.numel() for p in model.parameters())``.
"""

from __future__ import annotations

import pytest

from quizcoll.memory.architecture import parse_config
from quizcoll.memory.params import count_parameters

torch = pytest.importorskip("torch")
nn = torch.nn


class _LlamaBlock(nn.Module):
    def __init__(self, c: dict, experts: int, bias_qkv: bool, bias_o: bool, bias_mlp: bool) -> None:
        super().__init__()
        h, heads = c["hidden_size"], c["num_attention_heads"]
        kv = c.get("num_key_value_heads", heads)
        hd = c.get("head_dim") or h // heads
        inter = c["intermediate_size"]
        self.q = nn.Linear(h, heads * hd, bias=bias_qkv)
        self.k = nn.Linear(h, kv * hd, bias=bias_qkv)
        self.v = nn.Linear(h, kv * hd, bias=bias_qkv)
        self.o = nn.Linear(heads * hd, h, bias=bias_o)
        self.norm1 = nn.Parameter(torch.ones(h))
        self.norm2 = nn.Parameter(torch.ones(h))

        def mlp() -> nn.Module:
            return nn.ModuleList(
                [
                    nn.Linear(h, inter, bias=bias_mlp),
                    nn.Linear(h, inter, bias=bias_mlp),
                    nn.Linear(inter, h, bias=bias_mlp),
                ]
            )

        if experts:
            self.router = nn.Linear(h, experts, bias=False)
            self.experts = nn.ModuleList([mlp() for _ in range(experts)])
        else:
            self.mlp = mlp()


class _LlamaLike(nn.Module):
    def __init__(self, c: dict) -> None:
        super().__init__()
        mt = c["model_type"]
        attn_bias = bool(c.get("attention_bias", False))
        self.embed = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(
            _LlamaBlock(
                c,
                c.get("num_local_experts", 8) if mt == "mixtral" else 0,
                attn_bias or mt == "qwen2",
                attn_bias,
                bool(c.get("mlp_bias", False)),
            )
            for _ in range(c["num_hidden_layers"])
        )
        self.norm = nn.Parameter(torch.ones(c["hidden_size"]))
        self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)
        tie = c.get("tie_word_embeddings", mt == "gemma")
        if tie:
            self.lm_head.weight = self.embed.weight


class _GPT2(nn.Module):
    def __init__(self, c: dict) -> None:
        super().__init__()
        h = c["n_embd"]
        inner = c.get("n_inner") or 4 * h
        self.wte = nn.Embedding(c["vocab_size"], h)
        self.wpe = nn.Embedding(c["n_positions"], h)
        self.blocks = nn.ModuleList(
            nn.ModuleList(
                [
                    nn.LayerNorm(h),
                    nn.Linear(h, 3 * h),
                    nn.Linear(h, h),
                    nn.LayerNorm(h),
                    nn.Linear(h, inner),
                    nn.Linear(inner, h),
                ]
            )
            for _ in range(c["n_layer"])
        )
        self.ln_f = nn.LayerNorm(h)
        self.lm_head = nn.Linear(h, c["vocab_size"], bias=False)
        self.lm_head.weight = self.wte.weight


def _numel(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())  # shared (tied) tensors count once


LLAMA_LIKE = [
    {"model_type": "llama", "num_key_value_heads": 2},
    {"model_type": "llama", "attention_bias": True, "mlp_bias": True},
    {"model_type": "llama", "head_dim": 24, "tie_word_embeddings": True},
    {"model_type": "mistral", "num_key_value_heads": 1},
    {"model_type": "qwen2", "num_key_value_heads": 2},
    {"model_type": "gemma", "head_dim": 16, "num_key_value_heads": 1},
    {
        "model_type": "mixtral",
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "num_key_value_heads": 2,
    },
]


@pytest.mark.parametrize("extra", LLAMA_LIKE)
def test_llama_family_count_matches_torch(extra: dict) -> None:
    c = {
        "vocab_size": 311,
        "hidden_size": 48,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "intermediate_size": 80,
        **extra,
    }
    assert count_parameters(parse_config(c)).total == _numel(_LlamaLike(c))


@pytest.mark.parametrize("n_inner", [None, 100])
def test_gpt2_count_matches_torch(n_inner: int | None) -> None:
    c = {
        "model_type": "gpt2",
        "vocab_size": 257,
        "n_embd": 32,
        "n_layer": 2,
        "n_head": 4,
        "n_positions": 64,
        "n_inner": n_inner,
    }
    assert count_parameters(parse_config(c)).total == _numel(_GPT2(c))
