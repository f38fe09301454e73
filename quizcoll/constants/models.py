"""Each catalog model's shape, read from its shipped ``config.json`` — not from the parser.

Per model ``<key>_layers``, ``<key>_heads`` … (``llama-3.1-8b`` → ``llama_3_1_8b_layers``),
so a card's closed form can pick the figures of the model it drew: ``expect: "2 *
{model}_layers * {model}_kv_heads * {model}_head_dim * fp16_bytes"``. The config file is the
published record (the Hugging Face repo's ``config.json``); each figure is read here with
``transformers``' documented defaults, independently of :mod:`quizcoll.memory.architecture`
(the code the cards check), and quotes the file's own ``"key": value`` text.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

from deck.cards.registry import Constant
from deck.units import Dim

_PACKAGE, _FOLDER = "quizcoll.memory", "models"
MAX_CONFIG_BYTES = 256 * 1024

# Model types whose q, k, v projections carry biases whatever the config says: Qwen2
# (``Qwen2Attention``: q_proj/k_proj/v_proj with bias=True) and GPT-2 (``c_attn`` Conv1D).
_QKV_BIAS_TYPES = frozenset({"qwen2", "gpt2"})
# transformers' default of ``tie_word_embeddings`` per model type when the config omits it:
# PretrainedConfig's True, except where the model's config class sets False.
_UNTIED_BY_DEFAULT = frozenset({"llama", "mistral", "mixtral"})


@functools.cache
def model_keys() -> tuple[str, ...]:
    root = resources.files(_PACKAGE).joinpath(_FOLDER)
    return tuple(sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".json")))


def _config(key: str) -> tuple[dict[str, object], str]:
    raw = resources.files(_PACKAGE).joinpath(_FOLDER, f"{key}.json").read_bytes()
    if len(raw) > MAX_CONFIG_BYTES:
        raise ValueError(f"{_FOLDER}/{key}.json: larger than {MAX_CONFIG_BYTES:,} bytes")
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError(f"{_FOLDER}/{key}.json: not a JSON object")
    return data, raw.decode("utf-8")


def _quote(text: str, key: str) -> str:
    """The file's own line ``"key": value`` (empty when the key is absent)."""
    return _line(text, key)[1]


def _line(text: str, key: str) -> tuple[int, str]:
    """``(line number, text)`` of the file's line ``"key": value``; ``(0, "")`` if absent."""
    needle = f'"{key}"'
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith(needle):
            return number, line.strip().rstrip(",")
    return 0, ""


def _lines(text: str) -> list[tuple[int, str]]:
    return [(n, t.strip().rstrip(",")) for n, t in enumerate(text.splitlines(), start=1)]


def _first(cfg: dict[str, object], *keys: str) -> tuple[str, object]:
    for k in keys:
        if cfg.get(k) is not None:
            return k, cfg[k]
    return "", None


def _number(value: object) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    raise ValueError(f"expected a number, found {value!r}")


def _figures(key: str) -> list[tuple[str, float, str, str]]:
    """``(suffix, value, what, quote)`` for one model."""
    cfg, text = _config(key)
    mtype = str(cfg.get("model_type", ""))
    out: list[tuple[str, float, str, str]] = []

    def read(suffix: str, what: str, *keys: str) -> float:
        k, v = _first(cfg, *keys)
        if not k:
            raise ValueError(f"{key}: none of {', '.join(keys)}")
        out.append((suffix, _number(v), f"{what} ({k})", _quote(text, k)))
        return _number(v)

    def given(suffix: str, value: float, what: str, quote: str = "") -> None:
        out.append((suffix, value, what, quote))

    read("vocab", "vocabulary", "vocab_size")
    hidden = read("hidden", "hidden size", "hidden_size", "n_embd")
    read("layers", "layers", "num_hidden_layers", "n_layer")
    heads = read("heads", "attention heads", "num_attention_heads", "n_head")
    if cfg.get("num_key_value_heads") is not None:
        read("kv_heads", "key/value heads", "num_key_value_heads")
    else:  # the figure is the heads key's, so that line is its quote
        heads_key = _first(cfg, "num_attention_heads", "n_head")[0]
        what = f"key/value heads: absent, so one per attention head ({heads_key})"
        given("kv_heads", heads, what, _quote(text, heads_key))
    if cfg.get("head_dim") is not None:
        read("head_dim", "head dimension", "head_dim")
    else:
        given("head_dim", hidden / heads, "head dimension: absent, so hidden size / heads")
    if _first(cfg, "intermediate_size", "n_inner")[0]:
        read("intermediate", "MLP width", "intermediate_size", "n_inner")
    else:
        given("intermediate", 4 * hidden, "MLP width: n_inner absent, GPT-2's 4 × n_embd")
    context_keys = ("max_position_embeddings", "n_positions")
    context = read("trained_context", "trained context", *context_keys)
    if cfg.get("tie_word_embeddings") is not None:
        read("tied", "output head tied to the embeddings", "tie_word_embeddings")
    else:
        tied = 0.0 if mtype in _UNTIED_BY_DEFAULT else 1.0
        given("tied", tied, f"tie_word_embeddings absent: the {mtype} config default")
    bias = mtype in _QKV_BIAS_TYPES or bool(cfg.get("attention_bias"))
    given(
        "qkv_bias", float(bias), f"q, k, v biases ({mtype} attention)", _quote(text, "model_type")
    )
    if cfg.get("num_local_experts") is not None:
        read("experts", "MoE experts per layer", "num_local_experts")
        read("experts_per_token", "MoE experts per token", "num_experts_per_tok")
    else:
        given("experts", 0.0, "dense: no num_local_experts")
        given("experts_per_token", 0.0, "dense: no num_local_experts")
    window = cfg.get("sliding_window")
    if window is not None and cfg.get("use_sliding_window", True) is not False:
        read("attention_window", "tokens a layer's KV cache holds at most", "sliding_window")
    else:  # the trained context's key prints the figure
        context_key = _first(cfg, *context_keys)[0]
        what = f"no sliding window: the trained context ({context_key})"
        given("attention_window", context, what, _quote(text, context_key))
    return out


def model_constants() -> tuple[Constant, ...]:
    """The shape figures of every catalog model, each citing its config file."""
    out: list[Constant] = []
    for key in model_keys():
        cfg, text = _config(key)
        path = f"quizcoll/memory/models/{key}.json"
        repo = str(cfg.get("_name_or_path") or key)
        name = key.replace("-", "_").replace(".", "_")
        where = f"{repo} config.json (quizcoll/memory/models/{key}.json)"
        for suffix, value, what, quote in _figures(key):
            # A quote of model_type (qkv_bias) names no figure: only numeric quotes are checked.
            checked = quote if suffix != "qkv_bias" else ""
            line = next((n for n, t in _lines(text) if t == quote), 0) if quote else 0
            out.append(
                Constant(
                    f"{name}_{suffix}",
                    value,
                    Dim.COUNT,
                    f"{where}: {what}",
                    quote=checked,
                    where=f"{path}:{line}" if line else "",
                )
            )
    return tuple(out)
