"""vLLM's KV block pool built from enumerated pieces, then filled block by block.

Provides:

- :func:`rank_weights`: one tensor-parallel rank's parameter tensors of a Llama-family decoder
  as vLLM builds them (``vllm/model_executor/models/llama.py``: ``VocabParallelEmbedding``,
  per layer ``QKVParallelLinear`` — KV heads split, or replicated when the ranks outnumber
  them —, ``RowParallelLinear`` o_proj, ``MergedColumnParallelLinear`` gate_up, down_proj,
  two RMSNorms; Mixtral's router and stacked experts; the final norm, ``ParallelLMHead``
  unless tied) plus the rotary ``cos_sin_cache`` buffer ``[max_position, head_dim]``;
- :func:`profile_peak`: the profile pass stepped as a live set of tensors: one forward of
  ``tokens`` tokens layer by layer in eager order (``LlamaMLP.forward`` keeps ``gate_up``
  referenced while ``down_proj`` writes its output; the residual and the normalized input
  are full ``[tokens, hidden]`` on every rank; fused MoE's three intermediate caches), then
  the sampler pass over ``seqs`` rows with the forward's hidden states still held (the
  random hidden rows, the logits in the model's dtype, their fp32 copy, softmax
  probabilities and the exponential noise of ``random_sample``: the path of the profile's
  second sampler call, which passes a generator and so runs ``forward_native`` on every
  CUDA path); the peak is the largest live total at any step;
- :func:`block_bytes`: one KV block's tensors on one rank, a key and a value block
  ``[block_size, kv_heads_per_rank, head_dim]`` per layer, summed;
- :func:`fill_pool`: the free bytes cut into blocks one at a time, then handed to ``batch``
  sequences that grow token by token (a new block at each block boundary; with a sliding
  window, blocks wholly before the window go back to the pool), until a request fails.

Every figure comes in as an argument (the card's cited ``config.json`` lines, GPU memory as
reported, vLLM's cited defaults); nothing here reads the calculators.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

MAX_BLOCKS = 1 << 24  # a pool is cut block by block up to here


@dataclass(frozen=True)
class Decoder:
    """A decoder's shape as its ``config.json`` prints it."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    tied: bool = False
    qkv_bias: bool = False
    experts: int = 0  # 0: a dense MLP
    experts_per_token: int = 0
    positions: int = 4096  # max_position_embeddings: rows of the rotary cache

    def __post_init__(self) -> None:
        for name in ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate"):
            _whole(name, getattr(self, name))
        _whole("vocab", self.vocab)
        _whole("positions", self.positions)
        if self.experts and not 0 < self.experts_per_token <= self.experts:
            raise ValueError("experts_per_token: between 1 and experts for an MoE model")


Tensor = tuple[str, tuple[int, ...], float]  # name, shape, bytes per element


def _whole(name: str, value: int, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: expected a whole number of at least {least}, got {value!r}")
    return value


def _split(total: int, tp: int, name: str) -> int:
    if total % tp:
        raise ValueError(f"tensor_parallel: {tp} does not divide {name} ({total})")
    return total // tp


def kv_heads_per_rank(m: Decoder, tp: int) -> int:
    """KV heads one rank holds: split when they divide, replicated when ``tp`` is a
    multiple of them (``LlamaAttention``: ``max(1, total_num_kv_heads // tp_size)``)."""
    _whole("tensor_parallel", tp)
    if m.kv_heads >= tp:
        return _split(m.kv_heads, tp, "the KV heads")
    if tp % m.kv_heads:
        raise ValueError(f"tensor_parallel: {tp} is not a multiple of {m.kv_heads} KV heads")
    return 1


def valid_tp(m: Decoder, tp: int) -> bool:
    """Whether vLLM can shard ``m`` over ``tp`` ranks (query heads, KV heads, MLP width)."""
    try:
        kv_heads_per_rank(m, tp)
        _split(m.heads, tp, "the attention heads")
        _split(m.intermediate, tp, "the MLP width")
    except ValueError:
        return False
    return True


def rank_weights(m: Decoder, tp: int, weight_bytes: float, buffer_bytes: float) -> list[Tensor]:
    """One rank's parameters and the rotary buffer (``buffer_bytes`` per element)."""
    h, d = m.hidden, m.head_dim
    q = _split(m.heads, tp, "the attention heads") * d
    kv = kv_heads_per_rank(m, tp) * d
    f = _split(m.intermediate, tp, "the MLP width")
    vocab = math.ceil(m.vocab / tp)  # each rank's rows of the embedding and the head
    out: list[Tensor] = [("embed_tokens", (vocab, h), weight_bytes)]
    for i in range(m.layers):
        p = f"layers.{i}."
        out.append((p + "qkv_proj.weight", (q + 2 * kv, h), weight_bytes))
        if m.qkv_bias:
            out.append((p + "qkv_proj.bias", (q + 2 * kv,), weight_bytes))
        out.append((p + "o_proj.weight", (h, q), weight_bytes))
        if m.experts:
            out.append((p + "gate.weight", (m.experts, h), weight_bytes))
            out.append((p + "experts.w13", (m.experts, 2 * f, h), weight_bytes))
            out.append((p + "experts.w2", (m.experts, h, f), weight_bytes))
        else:
            out.append((p + "gate_up_proj.weight", (2 * f, h), weight_bytes))
            out.append((p + "down_proj.weight", (h, f), weight_bytes))
        out.append((p + "input_layernorm.weight", (h,), weight_bytes))
        out.append((p + "post_attention_layernorm.weight", (h,), weight_bytes))
    out.append(("norm.weight", (h,), weight_bytes))
    if not m.tied:
        out.append(("lm_head.weight", (vocab, h), weight_bytes))
    out.append(("rotary_emb.cos_sin_cache", (m.positions, d), buffer_bytes))
    return out


def total_bytes(tensors: list[Tensor]) -> float:
    return sum(math.prod(shape) * width for _, shape, width in tensors)


def _layer_events(
    m: Decoder, tp: int, n: int, e: float, gate_up_held: bool = False
) -> list[tuple[str, str, int]]:
    """One layer's allocations and frees in eager order: ``(op, name, bytes)``, op ``+``/``-``.

    A row-parallel output under ``tp > 1`` is all-reduced out of place (``pynccl.py:291``
    ``out_tensor = torch.empty_like(in_tensor)``): the reduced copy is allocated, then the
    local one freed. ``gate_up_held``: V0-era ``LlamaMLP.forward`` kept ``gate_up`` named
    until it returned; 0.33.0's (``llama.py:119-121``) rebinds ``x``, freeing it after the
    activation."""
    h, d = m.hidden, m.head_dim
    q = m.heads // tp * d
    kv = kv_heads_per_rank(m, tp) * d
    f = m.intermediate // tp
    b = lambda *shape: math.prod(shape) * e  # noqa: E731 - a shape's bytes
    ev = [
        ("+", "qkv", b(n, q + 2 * kv)),  # q, k, v are views of it; rotary is in place
        ("+", "attn_out", b(n, q)),
        ("+", "o_proj_out", b(n, h)),  # row-parallel: full width on every rank
        *_reduced("o_proj_out", b(n, h), tp),
        ("-", "qkv", 0),
        ("-", "attn_out", 0),
        ("-", "normed", 0),  # the fused add-RMSNorm turns o_proj_out into the new normed
        ("=", "o_proj_out->normed", 0),
    ]
    if m.experts:
        k = m.experts_per_token
        ev += [
            ("+", "router_logits", b(n, m.experts)),
            ("+", "topk_weights", n * k * 4),
            ("+", "topk_ids", n * k * 4),
            ("+", "cache1", b(n, k, 2 * f)),
            ("+", "cache2", b(n * k, f)),
            ("+", "cache3", b(n, k, h)),
            ("+", "moe_out", b(n, h)),
            *(("-", x, 0) for x in ("cache1", "cache2", "cache3", "topk_weights", "topk_ids")),
            ("-", "router_logits", 0),
        ]
        last = "moe_out"
    else:
        ev += [
            ("+", "gate_up", b(n, 2 * f)),
            ("+", "act", b(n, f)),
            *([] if gate_up_held else [("-", "gate_up", 0)]),  # x = act_fn(x) drops it
            ("+", "down_out", b(n, h)),
            *_reduced("down_out", b(n, h), tp),
            ("-", "gate_up", 0),
            ("-", "act", 0),
        ]
        last = "down_out"
    ev += [("-", "normed", 0), ("=", f"{last}->normed", 0)]  # next layer's fused norm
    return ev


def _reduced(name: str, size: int, tp: int) -> list[tuple[str, str, int]]:
    """An out-of-place all-reduce of ``name``: its reduced copy, then the local one freed."""
    if tp == 1:
        return []
    return [("+", name + ".reduced", size), ("-", name, 0), ("=", name + ".reduced->" + name, 0)]


def profile_peak(
    m: Decoder,
    tp: int,
    tokens: int,
    seqs: int,
    act_bytes: float,
    logits_bytes: float,
    gate_up_held: bool = False,
) -> dict[str, float]:
    """The profile pass stepped tensor by tensor: ``forward_peak`` (the forward of
    ``tokens`` tokens), ``sampler_peak`` (the sampler over ``min(seqs, tokens)`` rows, the
    hidden states kept) and ``peak``, the largest live total at any step."""
    _whole("tokens", tokens)
    _whole("seqs", seqs)
    n, h, e = tokens, m.hidden, act_bytes
    live: dict[str, float] = {"residual": n * h * e, "normed": n * h * e}  # embedding, norm
    forward_peak = sum(live.values())
    for _ in range(m.layers):
        for op, name, size in _layer_events(m, tp, n, e, gate_up_held):
            if op == "+":
                live[name] = size
            elif op == "-":
                live.pop(name, None)
            else:
                old, new = name.split("->")
                live[new] = live.pop(old)
            forward_peak = max(forward_peak, sum(live.values()))
    # the forward returns its final hidden states; its other tensors are gone
    s = min(seqs, tokens)
    stage = {
        "hidden_states": n * h * e,
        "last_hidden_states": s * h * e,  # profile_run's, one row per request
        "rand_hidden_states": s * h * e,  # _dummy_sampler_run's torch.rand_like of them
        "logits": s * m.vocab * e,  # lm_head's output, gathered whole on every rank
        "logits_fp32": s * m.vocab * logits_bytes,  # the sampler's float32 copy
        "probs": s * m.vocab * logits_bytes,  # softmax(dtype=float32)
        "exponential_noise": s * m.vocab * logits_bytes,  # random_sample's q
    }
    sampler_peak = sum(stage.values())
    return {
        "forward_peak": forward_peak,
        "sampler_peak": sampler_peak,
        "peak": max(forward_peak, sampler_peak),
    }


def block_bytes(m: Decoder, tp: int, block_size: int, kv_bytes: float) -> float:
    """One block of ``block_size`` tokens on one rank: a key and a value tensor per layer."""
    _whole("block_size", block_size)
    shape = (block_size, kv_heads_per_rank(m, tp), m.head_dim)
    tensors = [(f"{i}.{kind}", shape) for i in range(m.layers) for kind in ("key", "value")]
    return sum(math.prod(s) for _, s in tensors) * kv_bytes


def cut_blocks(free_bytes: float, size: float) -> int:
    """Blocks of ``size`` bytes cut from ``free_bytes`` one at a time."""
    if not size > 0:
        raise ValueError("a KV block must have a positive size")
    blocks, left = 0, free_bytes
    while left >= size:
        if blocks >= MAX_BLOCKS:
            raise ValueError(f"more than {MAX_BLOCKS:,} blocks")
        left -= size
        blocks += 1
    return blocks


def blocks_held(tokens: int, block_size: int, window: int = 0) -> int:
    """Most blocks one sequence holds while it grows token by token to ``tokens``; with a
    sliding ``window``, the blocks wholly before the window are freed as it slides."""
    _whole("tokens", tokens, 0)
    _whole("block_size", block_size)
    _whole("window", window, 0)
    held: deque[int] = deque()
    peak = 0
    for position in range(tokens):
        if not held or held[-1] != position // block_size:
            held.append(position // block_size)  # a new block at each block boundary
        if window:
            first_needed = max(0, position - window + 1) // block_size
            while held[0] < first_needed:
                held.popleft()
        peak = max(peak, len(held))
    return peak


def fill_pool(blocks: int, batch: int, block_size: int) -> int:
    """Tokens each of ``batch`` sequences reaches when they grow in turn, one block at a
    time, until the pool has no block for the next one (whole blocks only)."""
    _whole("batch", batch)
    free, held = blocks, [0] * batch
    while True:
        for i in range(batch):
            if free == 0:
                return min(held) * block_size
            free -= 1
            held[i] += 1
