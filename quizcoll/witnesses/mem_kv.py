"""The KV cache as the list of tensors a decoder keeps, enumerated and summed.

Provides :func:`kv_cache_tensors` (every cached tensor's name and shape: per layer a key and
a value tensor of shape ``[batch, tokens kept, kv_heads, head_dim]``, the layout of
transformers' ``DynamicCache``) and :func:`kv_cache_bytes` (their elements summed and
multiplied by the bytes of one stored value). A sliding-window layer keeps a rolling buffer:
the tokens are appended one by one and the oldest dropped once the window is full.

The model's shape comes in as arguments (from the published ``config.json`` figures a card
cites), never from the catalogs the calculators parse: a parser that ignores
``num_key_value_heads`` gives a cache ``heads / kv_heads`` times larger than this one.
"""

from __future__ import annotations

import math
from collections import deque

MAX_STEPPED_TOKENS = 1 << 20  # a rolling buffer is stepped token by token up to here


def _check(name: str, value: int, least: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: expected a whole number of at least {least}, got {value!r}")


def tokens_kept(tokens: int, window: int = 0) -> int:
    """Tokens one sequence's cache holds after ``tokens`` were appended; ``window`` 0 = no
    window. Stepped: each token enters the buffer, and the oldest leaves once it is full."""
    _check("tokens", tokens, 0)
    _check("window", window, 0)
    if window == 0:
        return tokens
    if tokens > MAX_STEPPED_TOKENS:
        raise ValueError(f"tokens: at most {MAX_STEPPED_TOKENS:,} are stepped, got {tokens:,}")
    buffer: deque[int] = deque(maxlen=window)
    for position in range(tokens):
        buffer.append(position)
    return len(buffer)


def kv_cache_tensors(
    layers: int, kv_heads: int, head_dim: int, tokens: int, batch: int = 1, window: int = 0
) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Every cached tensor: ``(name, shape)``, a key and a value per layer."""
    for name, value in (("layers", layers), ("kv_heads", kv_heads), ("head_dim", head_dim)):
        _check(name, value)
    _check("batch", batch)
    kept = tokens_kept(tokens, window)
    return [
        (f"layers.{i}.{kind}", (batch, kept, kv_heads, head_dim))
        for i in range(layers)
        for kind in ("key", "value")
    ]


def kv_cache_bytes(
    layers: int,
    kv_heads: int,
    head_dim: int,
    tokens: int,
    bytes_per_value: float,
    batch: int = 1,
    window: int = 0,
) -> dict[str, float]:
    """The enumerated cache: ``tensors``, ``elements`` (shape products summed) and
    ``bytes`` (elements × ``bytes_per_value``)."""
    if not bytes_per_value > 0:
        raise ValueError(f"bytes_per_value: expected a positive number, got {bytes_per_value!r}")
    tensors = kv_cache_tensors(layers, kv_heads, head_dim, tokens, batch, window)
    elements = sum(math.prod(shape) for _, shape in tensors)
    return {
        "tensors": len(tensors),
        "elements": elements,
        "bytes": elements * bytes_per_value,
        "tokens_kept": tokens_kept(tokens, window),
    }
