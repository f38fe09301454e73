"""How the text choices of card parameters read in a question.

Cards draw catalog keys (``h100-80gb``, ``llama-2-13b``, ``q4_k``) because executables are
given keys; a question should say ``H100 80GB``, ``Llama-2-13B``, ``Q4_K``. Each label is
registered once here (``Registry.add_label``); the engine attaches them to a card's
parameters when it loads the card. GPU labels come from the memory catalog's display
names; the rest are the names the model cards, llama.cpp and the papers use.
"""

from __future__ import annotations

from deck.cards.registry import Registry

# Where a key is only an alias (the NVLink generation of a GPU, not a memory size).
_GPU_GENERATIONS = {"v100": "V100", "a100": "A100", "h100": "H100"}
_VENDOR_PREFIXES = ("NVIDIA GeForce ", "NVIDIA ", "AMD Instinct ")

_MODELS = {
    "gemma-2b": "Gemma-2B",
    "gemma-7b": "Gemma-7B",
    "gpt2": "GPT-2",
    "gpt2-xl": "GPT-2 XL",
    "llama-2-7b": "Llama-2-7B",
    "llama-2-13b": "Llama-2-13B",
    "llama-2-70b": "Llama-2-70B",
    "llama-3-8b": "Llama-3-8B",
    "llama-3-70b": "Llama-3-70B",
    "llama-3.1-8b": "Llama-3.1-8B",
    "llama-3.1-70b": "Llama-3.1-70B",
    "llama-3.1-405b": "Llama-3.1-405B",
    "llama-3.2-1b": "Llama-3.2-1B",
    "mistral-7b": "Mistral-7B",
    "mistral-nemo-12b": "Mistral-NeMo-12B",
    "mixtral-8x7b": "Mixtral-8x7B",
    "qwen2.5-0.5b": "Qwen2.5-0.5B",
    "qwen2.5-7b": "Qwen2.5-7B",
    "qwen2.5-72b": "Qwen2.5-72B",
}

_OTHERS = {
    # InfiniBand generations and PCIe generations, as the specifications name them
    "hdr": "HDR",
    "ndr": "NDR",
    "xdr": "XDR",
    "gen3": "Gen3",
    "gen4": "Gen4",
    "gen5": "Gen5",
    "gen6": "Gen6",
    # llama.cpp's GGUF types and the weight-only quantization methods
    "q4_0": "Q4_0",
    "q4_k": "Q4_K",
    "q5_k": "Q5_K",
    "q6_k": "Q6_K",
    "q8_0": "Q8_0",
    "gptq": "GPTQ",
    "awq": "AWQ",
    # pipeline schedules and collectives, as the papers write them
    "1f1b": "1F1B",
    "gpipe": "GPipe",
    "all_reduce": "all-reduce",
    "all_gather": "all-gather",
    "reduce_scatter": "reduce-scatter",
    "all_to_all": "all-to-all",
}


def gpu_label(display_name: str) -> str:
    """``NVIDIA H100 80GB`` → ``H100 80GB`` (the vendor is the same in every question)."""
    for prefix in _VENDOR_PREFIXES:
        if display_name.startswith(prefix):
            return display_name[len(prefix) :]
    return display_name


def register(registry: Registry) -> None:
    from quizcoll.memory.gpus import GPUS

    for gpu in GPUS:
        registry.add_label(gpu.key, gpu_label(gpu.name))
    for table in (_GPU_GENERATIONS, _MODELS, _OTHERS):
        for value, label in table.items():
            registry.add_label(value, label)
