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

The activation reserve here is :func:`quizcoll.memory.inference.activation_bytes` for one
sequence of ``max_num_batched_tokens`` tokens with FlashAttention (no score matrix), plus fp32
logits for ``max_num_seqs`` sequences; tensor parallelism splits weights, activations and the
KV heads. Non-torch memory and the CUDA-graph pool are measured by vLLM, not derivable from a
config: they are inputs, with defaults taken from published start-up logs
(:data:`NON_TORCH_BYTES`, :data:`CUDA_GRAPH_BYTES`, read from ``vllm_published.json`` with
their sources and quotes).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources

from quizcoll.memory.architecture import ModelConfig
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import WeightFormat, weight_bytes
from quizcoll.memory.gpus import Gpu
from quizcoll.memory.inference import LOGITS_BYTES, activation_bytes, kv_cache_bytes
from quizcoll.memory.params import tensors

VLLM_VERSION = "0.33.0"
DEFAULT_UTILIZATION = 0.92  # vllm/config/cache.py: gpu_memory_utilization ... default=0.92
BLOCK_SIZE = 16  # vllm/config/cache.py: DEFAULT_BLOCK_SIZE: ClassVar[int] = 16
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


@dataclass(frozen=True)
class VllmBudget:
    """One GPU's memory as vLLM splits it, and the KV cache that results."""

    requested_bytes: int
    weights_bytes: float
    activation_bytes: float
    sampler_bytes: int  # the part of activation_bytes that is fp32 logits (not split by TP)
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
) -> VllmBudget:
    """Per-GPU memory as vLLM accounts for it (see module docs)."""
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
    weights = weight_bytes(tensors(cfg), fmt).total_bytes / t
    forward = activation_bytes(cfg, max_num_batched_tokens, 1, fmt.compute_bytes, True)
    sampler = min(max_num_seqs, max_num_batched_tokens) * cfg.vocab_size * LOGITS_BYTES
    activations = (forward.total_bytes - forward.logits_bytes) / t + sampler
    # each GPU keeps ceil(kv_heads / t) KV heads: split, or replicated when t > kv_heads
    heads_per_gpu = math.ceil(cfg.num_kv_heads / t)
    per_token = kv_cache_bytes(cfg, 1, 1, kv) / cfg.num_kv_heads * heads_per_gpu
    return VllmBudget(
        requested_bytes=math.ceil(total_bytes * utilization),
        weights_bytes=weights,
        activation_bytes=activations,
        sampler_bytes=sampler,
        non_torch_bytes=non_torch_bytes,
        cuda_graph_bytes=cuda_graph_bytes,
        kv_bytes_per_token=per_token,
        max_num_batched_tokens=max_num_batched_tokens,
        max_num_seqs=max_num_seqs,
    )
