"""Serving memory as vLLM's V1 engine accounts for it (vLLM 0.33.0), per GPU.

vLLM does not size its KV cache from the batch you plan to serve. At start-up each worker
(``vllm/v1/worker/gpu_worker.py``, ``determine_available_memory``; ``vllm/utils/mem_utils.py``,
``memory_profiling``; ``docs/oracles.md`` quotes the lines):

1. requests ``ceil(total memory × gpu_memory_utilization)`` (default 0.92 in 0.33.0's
   ``CacheConfig``; 0.9 before);
2. loads the weights, then runs one profile forward pass of ``max_num_batched_tokens`` tokens
   (chunked prefill: a prompt longer than that is prefilled in chunks, so no forward pass ever
   holds more tokens) and a sampler pass over ``max_num_seqs`` sequences; the peak of that pass
   is the activation reserve;
3. counts the memory that appeared outside PyTorch since start-up (NCCL, cuBLAS workspaces:
   "non-torch") and, by default since v0.21, an estimate of the CUDA-graph pool;
4. gives the rest to the KV cache, in blocks of 16 tokens across all layers:
   ``num_blocks = available_memory // bytes_per_block``; the log's "GPU KV cache size" is
   blocks × 16 tokens.

The weights are the parameters plus the rotary ``cos_sin_cache`` buffer, ``[max_position,
head_dim]`` in the model's dtype (``rotary_embedding/base.py:63``), one per model (``get_rope``
caches it). The activation reserve is the allocator's highest point over the profile run
(``mem_utils.py``: ``torch_peak`` is ``allocated_bytes.all.peak``), i.e. the larger of two
stages, not their sum (:func:`forward_peak_bytes`, :func:`sampler_peak_bytes`). Tensor
parallelism splits the weights, the column-parallel activations and the KV heads; the residual
stream, the normed input and the row-parallel outputs stay ``[tokens, hidden]`` on every GPU.
Non-torch memory and the CUDA-graph pool are measured by vLLM, not derivable from a
config: they are inputs, with defaults taken from published start-up logs
(:data:`NON_TORCH_BYTES`, :data:`CUDA_GRAPH_BYTES`, read from ``vllm_published.json`` with
their sources and quotes).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources

from quizcoll.memory import figures
from quizcoll.memory.architecture import ModelConfig
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import WeightFormat, weight_bytes
from quizcoll.memory.gpus import Gpu
from quizcoll.memory.inference import LOGITS_BYTES, kv_cache_bytes
from quizcoll.memory.params import tensors

VLLM_VERSION = "0.33.0"
# vLLM's defaults live once, quoted, in quizcoll/data/serving.yaml (vllm/config/cache.py).
DEFAULT_UTILIZATION = figures.figure("serving", "vllm_gpu_memory_utilization_current")
BLOCK_SIZE = figures.whole("serving", "vllm_block_size")
GIB = 2**30


def _published(key: str) -> int:
    """A figure from a published start-up log (vllm_published.json: value, source, quote)."""
    text = resources.files("quizcoll.memory").joinpath("vllm_published.json").read_text("utf-8")
    return round(float(json.loads(text)[key]["gib"]) * GIB)


NON_TORCH_BYTES = _published("non_torch_bytes")
CUDA_GRAPH_BYTES = _published("cuda_graph_bytes")


def server_defaults(gpu: Gpu) -> tuple[int, int]:
    """``vllm serve``'s (max_num_batched_tokens, max_num_seqs) on ``gpu``
    (vllm/engine/arg_utils.py ``get_batch_defaults``, OPENAI_API_SERVER)."""
    memory, name = gpu.memory_bytes, gpu.name.lower()
    if memory >= 160 * GIB:
        return 16384, 1024
    if memory >= 70 * GIB and "a100" not in name:
        return 8192, 1024
    return 2048, 256


def forward_peak_bytes(
    cfg: ModelConfig, tokens: int, act_bytes: float, tensor_parallel: int, gate_up_held: bool
) -> float:
    """Most bytes live in one forward of ``tokens`` tokens, per GPU, as the larger of a
    layer's three moments (``vllm/model_executor/models/llama.py`` 0.33.0):

    - attention, ``o_proj`` writing (``LlamaAttention.forward``:229-233 keeps ``qkv`` and
      ``attn_output`` named): residual, normed input, qkv, attention output, o_proj output;
    - the activation (``LlamaMLP.forward``:119-120): residual, normed input, gate_up, act;
    - ``down_proj`` writing (:121): residual, normed input, act, its output, and gate_up
      only when the forward keeps it named (``gate_up_held``: V0-era llama.py,
      ``gate_up, _ = self.gate_up_proj(x)``; 0.33.0 rebinds ``x`` so it is freed).

    Under tensor parallelism a row-parallel output is all-reduced out of place
    (``pynccl.py:291`` ``out_tensor = torch.empty_like(in_tensor)``): one more
    ``[tokens, hidden]`` while it runs. A mixture-of-experts MLP keeps the older estimate
    (3 × intermediate × experts per token, plus router logits), split by the GPUs."""
    t, h, d = tensor_parallel, cfg.hidden_size, cfg.head_dim
    q = cfg.num_heads // t * d
    kv = math.ceil(cfg.num_kv_heads / t) * d
    reduce = h if t > 1 else 0
    attention = 3 * h + (q + 2 * kv) + q + reduce
    if cfg.is_moe:
        moe = cfg.intermediate_size * 3 * cfg.experts_per_token + cfg.num_experts
        stages = [attention, 2 * h + moe / t]
    else:
        f = cfg.intermediate_size / t
        act = 2 * h + 2 * f + f
        down = 3 * h + f + (2 * f if gate_up_held else 0) + reduce
        stages = [attention, act, down]
    return tokens * act_bytes * max(stages)


def sampler_peak_bytes(cfg: ModelConfig, tokens: int, seqs: int, act_bytes: float) -> float:
    """Most bytes live in the profile's sampler stage (``gpu_model_runner.py`` 0.33.0):
    ``profile_run`` holds the forward's ``hidden_states`` ``[tokens, hidden]`` and
    ``last_hidden_states`` (one row per request, ``min(max_num_seqs, tokens)`` requests);
    ``_dummy_sampler_run`` adds ``torch.rand_like`` of them and the logits in the model's
    dtype (gathered whole: ``use_all_gather`` is True); its second ``self.sampler`` call, with
    a generator, takes ``forward_native`` on every CUDA path (``forward_cuda`` falls back when
    ``generators``): ``Sampler.forward``'s float32 copy, ``softmax(dtype=float32)`` and
    ``random_sample``'s exponential noise ``q``, three ``[rows, vocab]`` float32 tensors
    (temperature and the Triton top-k/top-p work in place). Not counted: the Triton
    top-k/top-p row buffer, ``[min(SMs, rows), vocab]`` float32, cached per device."""
    rows, v = min(seqs, tokens), cfg.vocab_size
    return act_bytes * (tokens + 2 * rows) * cfg.hidden_size + rows * v * (
        act_bytes + 3 * LOGITS_BYTES
    )


def rotary_cache_bytes(cfg: ModelConfig, act_bytes: float) -> float:
    """The rotary ``cos_sin_cache``: ``[max_position_embeddings, head_dim]`` (cos and sin
    halves) in the model's dtype, one per model (``rotary_embedding/base.py:58-63``)."""
    return (cfg.max_position_embeddings or 0) * cfg.head_dim * act_bytes


def blocks_per_sequence(tokens: int, window: int | None) -> int:
    """Most KV blocks one sequence of ``tokens`` holds. With a sliding ``window`` vLLM frees
    the blocks wholly before ``computed - window + 1`` (``single_type_kv_cache_manager.py``
    ``SlidingWindowManager.get_num_skipped_tokens``), so a window that starts mid-block spans
    up to ``floor((window + 14) / 16) + 1`` blocks once it slides."""
    whole = math.ceil(tokens / BLOCK_SIZE)
    if window is None or tokens <= window:
        return whole
    return min(whole, (window + BLOCK_SIZE - 2) // BLOCK_SIZE + 1)


@dataclass(frozen=True)
class VllmBudget:
    """One GPU's memory as vLLM splits it, and the KV cache that results."""

    requested_bytes: int
    weights_bytes: float
    activation_bytes: float
    forward_bytes: float  # peak of the profile forward
    sampler_bytes: float  # peak of the profile sampler (the forward's hidden states still held)
    non_torch_bytes: int
    cuda_graph_bytes: int
    kv_bytes_per_token: float  # one GPU's share of every layer's K and V for one token
    max_num_batched_tokens: int
    max_num_seqs: int

    @property
    def kv_cache_bytes(self) -> float:
        return (
            self.requested_bytes
            - self.weights_bytes
            - self.activation_bytes
            - self.non_torch_bytes
            - self.cuda_graph_bytes
        )

    @property
    def blocks(self) -> int:
        return max(0, math.floor(self.kv_cache_bytes // (BLOCK_SIZE * self.kv_bytes_per_token)))

    @property
    def kv_tokens(self) -> int:
        return self.blocks * BLOCK_SIZE

    def max_context(self, batch: int) -> int:
        """Longest context each of ``batch`` sequences can hold at once (whole blocks)."""
        return self.blocks // batch * BLOCK_SIZE


def vllm_budget(
    cfg: ModelConfig,
    fmt: WeightFormat,
    total_bytes: int,
    *,
    tensor_parallel: int = 1,
    utilization: float = DEFAULT_UTILIZATION,
    max_num_batched_tokens: int = 2048,
    max_num_seqs: int = 256,
    kv_bytes: int | None = None,
    non_torch_bytes: int = NON_TORCH_BYTES,
    cuda_graph_bytes: int = CUDA_GRAPH_BYTES,
    gate_up_held: bool = False,
) -> VllmBudget:
    """Per-GPU memory as vLLM accounts for it (see module docs). ``gate_up_held``: the
    forward of V0-era vLLM, whose ``LlamaMLP`` kept ``gate_up`` alive through ``down_proj``
    (for its published logs)."""
    if not 0 < utilization <= 1:
        raise MemoryInputError(f"gpu_memory_utilization must be in (0, 1], got {utilization:g}")
    for label, value in (
        ("tensor_parallel", tensor_parallel),
        ("max_num_batched_tokens", max_num_batched_tokens),
        ("max_num_seqs", max_num_seqs),
        ("total memory", total_bytes),
    ):
        if value < 1:
            raise MemoryInputError(f"{label} must be at least 1, got {value}")
    if non_torch_bytes < 0 or cuda_graph_bytes < 0:
        raise MemoryInputError("non-torch and CUDA-graph memory cannot be negative")
    t = tensor_parallel
    kv = fmt.compute_bytes if kv_bytes is None else kv_bytes
    e, n = fmt.compute_bytes, max_num_batched_tokens
    weights = weight_bytes(tensors(cfg), fmt).total_bytes / t + rotary_cache_bytes(cfg, e)
    forward = forward_peak_bytes(cfg, n, e, t, gate_up_held)
    sampler = sampler_peak_bytes(cfg, n, max_num_seqs, e)
    # each GPU keeps ceil(kv_heads / t) KV heads: split, or replicated when t > kv_heads
    heads_per_gpu = math.ceil(cfg.num_kv_heads / t)
    per_token = kv_cache_bytes(cfg, 1, 1, kv) / cfg.num_kv_heads * heads_per_gpu
    return VllmBudget(
        requested_bytes=math.ceil(total_bytes * utilization),
        weights_bytes=weights,
        activation_bytes=max(forward, sampler),  # the allocator's peak: one stage at a time
        forward_bytes=forward,
        sampler_bytes=sampler,
        non_torch_bytes=non_torch_bytes,
        cuda_graph_bytes=cuda_graph_bytes,
        kv_bytes_per_token=per_token,
        max_num_batched_tokens=max_num_batched_tokens,
        max_num_seqs=max_num_seqs,
    )
