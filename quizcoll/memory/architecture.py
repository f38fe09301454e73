"""Read a Hugging Face ``config.json`` into an architecture-neutral :class:`ModelConfig`.

Supported ``model_type`` values: llama, mistral, mixtral, qwen2, gemma, gpt2. Keys that
decide the shapes (hidden size, layers, heads, vocabulary, MLP width) are required; keys
that Hugging Face ``transformers`` gives a default to (``num_key_value_heads``,
``head_dim``, ``tie_word_embeddings``, biases, sliding window, experts) take that
default when absent, so a real config reads exactly as ``transformers`` reads it.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizcoll.memory.errors import MemoryInputError


class MlpKind(enum.Enum):
    """Gated MLPs (gate, up, down: SwiGLU/GeGLU) or the two-matrix GPT-2 MLP."""

    GATED = "gated"
    PLAIN = "plain"


class NormKind(enum.Enum):
    RMSNORM = "rmsnorm"  # weight only
    LAYERNORM = "layernorm"  # weight and bias


@dataclass(frozen=True)
class ModelConfig:
    """The shape facts of a decoder-only transformer that memory depends on.

    ``sliding_windows`` has one entry per layer: the attention window in tokens, or
    None for full attention. ``num_experts`` is 0 for a dense model.
    """

    model_type: str
    name: str
    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    tie_embeddings: bool
    max_position_embeddings: int | None
    learned_positions: bool
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    mlp_kind: MlpKind
    norm_kind: NormKind
    num_experts: int
    experts_per_token: int
    sliding_windows: tuple[int | None, ...]

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def attention_kind(self) -> str:
        """``MHA``, ``GQA`` or ``MQA``: how many heads share one key/value head."""
        if self.num_kv_heads == self.num_heads:
            return "MHA"
        return "MQA" if self.num_kv_heads == 1 else "GQA"


SUPPORTED_MODEL_TYPES: tuple[str, ...] = ("gemma", "gpt2", "llama", "mistral", "mixtral", "qwen2")

_MISSING = object()
MAX_CONFIG_BYTES = 4 * 1024 * 1024  # real config.json files are a few KB

# Upper bounds on config values: several times the largest published model's, low enough
# that every count and byte total stays exact and fast (the per-layer tables have one
# entry per layer). Documented in docs/limits.md.
MAX_CONFIG_VALUES: dict[str, int] = {
    "vocab_size": 2**22,  # 4,194,304 (Gemma: 256,000)
    "hidden_size": 2**17,  # 131,072 (Llama-3.1-405B: 16,384)
    "n_embd": 2**17,
    "num_hidden_layers": 1024,  # (Llama-3.1-405B: 126)
    "n_layer": 1024,
    "num_attention_heads": 1024,
    "n_head": 1024,
    "num_key_value_heads": 1024,
    "head_dim": 4096,
    "intermediate_size": 2**20,  # 1,048,576 (Llama-3.1-405B: 53,248)
    "n_inner": 2**20,
    "max_position_embeddings": 2**24,  # 16,777,216 tokens
    "n_positions": 2**24,
    "sliding_window": 2**24,
    "max_window_layers": 1024,
    "num_local_experts": 1024,
    "num_experts_per_tok": 1024,
}


class _Reader:
    """Typed access to one config mapping, with errors that name the source and key."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data = data
        self.source = source

    def fail(self, message: str) -> MemoryInputError:
        return MemoryInputError(f"{self.source}: {message}")

    def positive_int(self, key: str, default: Any = _MISSING) -> Any:
        value = self.data.get(key, _MISSING)
        if value is _MISSING or (value is None and default is not _MISSING):
            if default is _MISSING:
                raise self.fail(f"missing key {key!r} (a positive integer)")
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:37]}..."
            raise self.fail(f"{key} must be a positive integer, got {shown}")
        limit = MAX_CONFIG_VALUES.get(key)
        if limit is not None and value > limit:
            raise self.fail(
                f"{key} {_count(value)} is above quizcoll's bound of {_count(limit)} "
                "(see docs/limits.md)"
            )
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(f"{key} must be true or false, got {value!r}")
        return value


def parse_config(data: object, source: str = "config.json") -> ModelConfig:
    """Validate a decoded ``config.json`` and return its :class:`ModelConfig`."""
    if not isinstance(data, Mapping):
        raise MemoryInputError(f"{source}: expected a JSON object, got {type(data).__name__}")
    model_type = data.get("model_type")
    if model_type is None:
        raise MemoryInputError(
            f"{source}: missing key 'model_type' (one of {', '.join(SUPPORTED_MODEL_TYPES)})"
        )
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise MemoryInputError(
            f"{source}: unknown model_type {model_type!r}; supported: "
            f"{', '.join(SUPPORTED_MODEL_TYPES)}; for another model give --params N"
        )
    name = str(data.get("_name_or_path") or data.get("name") or Path(source).stem)
    reader = _Reader(data, source)
    if model_type == "gpt2":
        return _gpt2(reader, name)
    return _llama_family(reader, str(model_type), name)


def load_config(path: str | Path) -> ModelConfig:
    """Read ``path`` (a ``config.json``) from disk; every fault is a :class:`MemoryInputError`."""
    from quizcoll.memory.files import read_small_text

    p = Path(path).expanduser()
    if p.is_dir():
        raise MemoryInputError(f"{p}: is a directory, expected a config.json file")
    # a regular file with a byte cap: a FIFO or /dev/zero is refused at once
    text = read_small_text(p, limit=MAX_CONFIG_BYTES, what="config.json file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MemoryInputError(f"{p}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise MemoryInputError(f"{p}: not a usable config.json: {exc}") from None
    except RecursionError:
        raise MemoryInputError(f"{p}: JSON nested too deeply to be a config.json") from None
    return parse_config(data, str(p))


def _head_dim(r: _Reader, hidden: int, heads: int, default: int | None) -> int:
    head_dim = r.positive_int("head_dim", default)
    if head_dim is None:
        if hidden % heads:
            raise r.fail(
                f"hidden_size {hidden} is not divisible by num_attention_heads {heads}; "
                "give head_dim"
            )
        head_dim = hidden // heads
    return head_dim


# transformers' defaults per model type: (tie_word_embeddings, head_dim)
_FAMILY_DEFAULTS: dict[str, tuple[bool, int | None]] = {
    "llama": (False, None),
    "mistral": (False, None),
    "mixtral": (False, None),
    "qwen2": (False, None),
    "gemma": (True, 256),
}


def _llama_family(r: _Reader, model_type: str, name: str) -> ModelConfig:
    vocab = r.positive_int("vocab_size")
    hidden = r.positive_int("hidden_size")
    layers = r.positive_int("num_hidden_layers")
    heads = r.positive_int("num_attention_heads")
    intermediate = r.positive_int("intermediate_size")
    kv_heads = r.positive_int("num_key_value_heads", heads)
    if heads % kv_heads:
        raise r.fail(
            f"num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads}"
        )
    tie_default, head_dim_default = _FAMILY_DEFAULTS[model_type]
    head_dim = _head_dim(r, hidden, heads, head_dim_default)
    max_pos = r.positive_int("max_position_embeddings", None)

    attention_bias = model_type in ("llama", "gemma") and r.flag("attention_bias", False)
    qkv_bias = attention_bias or model_type == "qwen2"
    mlp_bias = model_type == "llama" and r.flag("mlp_bias", False)

    experts, per_token = 0, 0
    if model_type == "mixtral":
        experts = r.positive_int("num_local_experts", 8)
        per_token = r.positive_int("num_experts_per_tok", 2)
        if per_token > experts:
            raise r.fail(f"num_experts_per_tok {per_token} exceeds num_local_experts {experts}")

    return ModelConfig(
        model_type=model_type,
        name=name,
        vocab_size=vocab,
        hidden_size=hidden,
        num_layers=layers,
        num_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate,
        tie_embeddings=r.flag("tie_word_embeddings", tie_default),
        max_position_embeddings=max_pos,
        learned_positions=False,
        qkv_bias=qkv_bias,
        o_bias=attention_bias,
        mlp_bias=mlp_bias,
        mlp_kind=MlpKind.GATED,
        norm_kind=NormKind.RMSNORM,
        num_experts=experts,
        experts_per_token=per_token,
        sliding_windows=_sliding_windows(r, model_type, layers),
    )


def _sliding_windows(r: _Reader, model_type: str, layers: int) -> tuple[int | None, ...]:
    """Per-layer attention windows, as transformers decides them for each model type."""
    if model_type not in ("mistral", "mixtral", "qwen2"):
        return (None,) * layers
    default_window = 4096 if model_type in ("mistral", "qwen2") else None
    if "sliding_window" in r.data and r.data["sliding_window"] is None:
        window = None
    else:
        window = r.positive_int("sliding_window", default_window)
    layer_types = r.data.get("layer_types")
    if layer_types is not None:
        if not isinstance(layer_types, list) or len(layer_types) != layers:
            raise r.fail(f"layer_types must be a list of {layers} entries")
        bad = [t for t in layer_types if t not in ("full_attention", "sliding_attention")]
        if bad:
            raise r.fail(f"layer_types: unknown entry {bad[0]!r}")
        return tuple(window if t == "sliding_attention" else None for t in layer_types)
    if model_type == "qwen2":
        # Qwen2 slides only when use_sliding_window is set, and only from max_window_layers on.
        if not r.flag("use_sliding_window", False):
            return (None,) * layers
        first = r.positive_int("max_window_layers", 28)
        return tuple(window if i >= first else None for i in range(layers))
    return (window,) * layers


def _gpt2(r: _Reader, name: str) -> ModelConfig:
    vocab = r.positive_int("vocab_size")
    hidden = r.positive_int("n_embd")
    layers = r.positive_int("n_layer")
    heads = r.positive_int("n_head")
    positions = r.positive_int("n_positions")
    inner = r.positive_int("n_inner", None) or 4 * hidden
    if hidden % heads:
        raise r.fail(f"n_embd {hidden} is not divisible by n_head {heads}")
    return ModelConfig(
        model_type="gpt2",
        name=name,
        vocab_size=vocab,
        hidden_size=hidden,
        num_layers=layers,
        num_heads=heads,
        num_kv_heads=heads,
        head_dim=hidden // heads,
        intermediate_size=inner,
        tie_embeddings=r.flag("tie_word_embeddings", True),
        max_position_embeddings=positions,
        learned_positions=True,
        qkv_bias=True,
        o_bias=True,
        mlp_bias=True,
        mlp_kind=MlpKind.PLAIN,
        norm_kind=NormKind.LAYERNORM,
        num_experts=0,
        experts_per_token=0,
        sliding_windows=(None,) * layers,
    )


def _count(value: int) -> str:
    """A whole number as the bound it is compared with is shown: ``131,073`` beside
    ``131,072`` (never ``1.31e+05``, which reads as within the bound); a number too long
    to write out in full is shown by its digits' count."""
    digits = len(str(value)) if value.bit_length() < 14_000 else 4300
    return f"{value:,}" if digits <= 30 else f"a {digits:,}-digit number"
