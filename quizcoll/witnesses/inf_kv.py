"""A KV cache's storage stepped and walked: blocks allocated token by token, a prefix cache's
block table walked request by request, the tensors MHA and MLA cache listed.

Second methods for ``serving.paged_kv``, ``serving.prefix_cache`` and ``serving.mla_kv``:

- :func:`paged` appends a sequence's tokens one at a time to a block table (a new block
  when the last one is full) and a fixed reservation, and counts the slots left empty;
- :func:`prefix_walk` builds each request's prompt (the shared prefix, then tokens of its
  own), cuts it into full blocks, keys every block by its parent's key and its tokens
  (vLLM's automatic prefix caching hashes full blocks this way) and looks each key up in
  a table: a hit is a block not stored and not prefilled again;
- :func:`cache_tensors` lists the tensors one token adds to the cache in every layer
  (K and V per KV head, or MLA's latent and decoupled RoPE key) and sums their elements.

Model shapes arrive as arguments; nothing here reads a catalog.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def _count(name: str, value: int, minimum: int = 1) -> None:
    if int(value) != value or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")


MAX_TOKENS = 1 << 21


def cache_tensors(
    layers: int,
    *,
    kv_heads: int = 0,
    head_dim: int = 0,
    latent_dim: int = 0,
    rope_dim: int = 0,
) -> list[tuple[str, tuple[int, ...]]]:
    """The tensors one token adds to the cache, by name and shape: ``k`` and ``v`` of
    (kv_heads, head_dim) per layer for multi-head (or grouped-query) attention, or, with a
    ``latent_dim``, MLA's compressed latent (latent_dim,) and RoPE key (rope_dim,)."""
    _count("layers", layers)
    out: list[tuple[str, tuple[int, ...]]] = []
    for i in range(layers):
        if latent_dim:
            out.append((f"l{i}.c_kv", (latent_dim,)))
            if rope_dim:
                out.append((f"l{i}.k_rope", (rope_dim,)))
        else:
            _count("kv_heads", kv_heads)
            _count("head_dim", head_dim)
            out += [(f"l{i}.k", (kv_heads, head_dim)), (f"l{i}.v", (kv_heads, head_dim))]
    return out


def elements_per_token(tensors: list[tuple[str, tuple[int, ...]]]) -> int:
    return sum(math.prod(shape) for _, shape in tensors)


@dataclass(frozen=True)
class Paged:
    blocks: int  # of one sequence
    empty_slots: int  # of one sequence, in its blocks
    reserved_empty: int  # of one sequence, in a max_len reservation


def paged(tokens: int, block_size: int, max_len: int = 0) -> Paged:
    """Append ``tokens`` tokens one by one to a block table of ``block_size``-token blocks
    and to a reservation of ``max_len`` slots (0: none), and count the empty slots."""
    _count("tokens", tokens)
    _count("block_size", block_size)
    if tokens > MAX_TOKENS:
        raise ValueError(f"tokens must be at most {MAX_TOKENS}, got {tokens}")
    if max_len and max_len < tokens:
        raise ValueError(f"max_len {max_len} is shorter than the sequence ({tokens} tokens)")
    table: list[int] = []  # tokens held by each block
    reserved_filled = 0
    for _ in range(tokens):
        if not table or table[-1] == block_size:
            table.append(0)
        table[-1] += 1
        reserved_filled += 1
    empty = sum(block_size - held for held in table)
    return Paged(len(table), empty, max_len - reserved_filled if max_len else 0)


@dataclass(frozen=True)
class Walk:
    hits: int  # blocks found in the table
    tokens_reused: int  # prompt tokens neither stored again nor prefilled again
    blocks_stored: int


def prefix_walk(prefix_tokens: int, sequences: int, block_size: int) -> Walk:
    """Serve ``sequences`` requests that share a prompt of ``prefix_tokens`` tokens and then
    differ (each a block of tokens of its own): only full blocks are keyed and cached."""
    _count("prefix_tokens", prefix_tokens)
    _count("sequences", sequences)
    _count("block_size", block_size)
    if prefix_tokens > MAX_TOKENS:
        raise ValueError(f"prefix_tokens must be at most {MAX_TOKENS}, got {prefix_tokens}")
    table: dict[tuple[int, tuple[int, ...]], int] = {}  # (parent block id, tokens) -> id
    hits = 0
    for r in range(sequences):
        prompt = list(range(prefix_tokens)) + [-(r + 1)] * block_size  # the request's own tokens
        parent = -1  # no parent: the first block
        for start in range(0, len(prompt) - block_size + 1, block_size):
            key = (parent, tuple(prompt[start : start + block_size]))
            if key in table:
                hits += 1
            else:
                table[key] = len(table)
            parent = table[key]
    return Walk(hits, hits * block_size, len(table))
