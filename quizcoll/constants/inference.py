"""Constants of the inference cards: serving defaults and the figures the serving papers
published, each with its source. What the serving executables compute (decode steps,
PagedAttention blocks, speculative decoding, MLA's cache) is never typed here."""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

CONSTANTS: tuple[Constant, ...] = (
    Constant(
        "vllm_block_size",
        16,
        Dim.COUNT,
        "vLLM vllm/config/cache.py: CacheConfig.DEFAULT_BLOCK_SIZE = 16 tokens per KV block "
        "on CUDA",
    ),
    Constant(
        "paged_existing_usage_low",
        0.204,
        Dim.RATIO,
        "Kwon et al., SOSP 2023 (PagedAttention), Figure 2: existing systems (Orca, "
        "FasterTransformer) store token states in only 20.4%–38.2% of their KV cache memory",
    ),
    Constant(
        "paged_existing_usage_high",
        0.382,
        Dim.RATIO,
        "Kwon et al., SOSP 2023 (PagedAttention), Figure 2: 20.4%–38.2% of the KV cache "
        "memory holds token states in existing systems",
    ),
    Constant(
        "vllm_waste_bound",
        0.04,
        Dim.RATIO,
        "vLLM blog (2023-06-20, 'vLLM: Easy, Fast, and Cheap LLM Serving with "
        "PagedAttention'): waste only in a sequence's last block, 'a mere waste of under 4%'",
    ),
    Constant(
        "vllm_throughput_gain_low",
        2,
        Dim.RATIO,
        "Kwon et al., SOSP 2023, abstract: vLLM improves throughput 2-4× at the same latency "
        "over FasterTransformer and Orca",
    ),
    Constant(
        "vllm_throughput_gain_high",
        4,
        Dim.RATIO,
        "Kwon et al., SOSP 2023, abstract: 2-4× the throughput of FasterTransformer and Orca",
    ),
    Constant(
        "orca_throughput_gain",
        36.9,
        Dim.RATIO,
        "Yu et al., OSDI 2022 (Orca), abstract: iteration-level scheduling gives 36.9× the "
        "throughput of FasterTransformer at the same latency on GPT-3 175B",
    ),
    Constant(
        "tp_allreduces_per_layer",
        2,
        Dim.COUNT,
        "Shoeybi et al. 2019 (Megatron-LM), §3 and Figure 4: a tensor-parallel transformer "
        "layer all-reduces twice in the forward pass, after the attention output projection "
        "and after the MLP's second matmul",
    ),
    Constant(
        "deepseek_v2_kv_reduction",
        0.933,
        Dim.RATIO,
        "DeepSeek-AI 2024 (DeepSeek-V2), abstract: MLA reduces the KV cache by 93.3% against "
        "DeepSeek 67B",
    ),
)
