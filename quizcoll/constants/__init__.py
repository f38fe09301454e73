"""Declared constants: definitions and published figures that cards refer to by name.

A card never types "2 bytes per fp16 value" or "an H100 reports 81,559 MiB": it shows
``{=fp16_bytes}`` or checks ``{~81,559 MiB=h100_80gb_reported}``, and its ``expect``
formulas use the same names. Each figure lives once, with its source: definitions and
figures no table holds in the subject modules (``MODULES``, each with a ``CONSTANTS``
tuple), published tables in ``quizcoll/data/*.yaml`` (``DATA``, read by
:mod:`.data`) and each catalog model's shape in its ``config.json`` (:mod:`.models`).
``quizcoll check --list-constants`` prints them.

Nothing here imports the calculators, the simulator or the executables: these constants
are what proofs hold that code to. Figures that code derives are declared by the
executables (``quizcoll.executables.constants``) and marked derived, so that no proof's
``expect`` can use them.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

from deck.cards.registry import Constant
from quizcoll.constants.base import TERMS as BASE_TERMS
from quizcoll.constants.data import figures
from quizcoll.constants.models import model_constants

MODULES: tuple[str, ...] = (
    "base",
    "collectives",
    "parallelism",
    "parallelism_systems",
    "inference",
    "hardware",
    "training",
    "memory",
    "published",
    "topics",
)
DATA: tuple[str, ...] = (
    "links",
    "nccl",
    "gpus",
    "memory",
    "quant-formats",
    "training",
    "parameter-counts",
)


def worked_examples() -> tuple[str, ...]:
    """The data files of published worked examples (``quizcoll/data/examples-*.yaml``): a
    paper's, a datasheet's or a tool's own inputs and the result it prints, which a card
    runs its executable on and holds to the printed result."""
    from importlib import resources

    folder = resources.files("quizcoll").joinpath("data")
    names = (e.name for e in folder.iterdir() if e.name.endswith(".yaml"))
    return tuple(sorted(n[: -len(".yaml")] for n in names if n.startswith("examples-")))


# Words that start with a digit but name things (the catalog GPUs' names are added by the
# executables, which read the catalog).
TERMS: tuple[str, ...] = BASE_TERMS

# The subject modules' constants whose source text prints the figure itself ("PaLM, Table 3:
# 6,144 TPU v4 chips"): that text is their quote, a second record of the value typed apart
# from it, which ``check`` holds the value to (deck.proving.provenance).
QUOTED_IN_SOURCE: frozenset[str] = frozenset(
    {
        "adam_mixed_bytes_per_param",
        "adam_optimizer_bytes_per_param",
        "bf16_fp32_grads_bytes_per_param",
        "bits_per_byte",
        "cuda_context_high",
        "cuda_context_low",
        "ddp_bucket_cap",
        "ddp_bucket_cap_default",
        "ddp_first_bucket",
        "deepseek_v2_kv_reduction",
        "deepseek_v3_comm_sms",
        "deepseek_v3_ib_bandwidth",
        "deepseek_v3_max_nodes_per_token",
        "deepseek_v3_nvlink_bandwidth",
        "deepseek_v3_routed_experts_per_token",
        "gradscaler_backoff_factor",
        "gradscaler_growth_factor",
        "gradscaler_growth_interval",
        "h800_sms",
        "hgx_gpus_per_node",
        "korthikanti_full_sbh",
        "korthikanti_selective_sbh",
        "llama3_8b_q4_k_m_bytes",
        "nvl72_gpus",
        "orca_throughput_gain",
        "paged_existing_usage_high",
        "paged_existing_usage_low",
        "palm_chips",
        "palm_head_dim",
        "palm_heads",
        "palm_hfu",
        "palm_layers",
        "palm_mfu",
        "palm_seq_len",
        "qlora_gpu_bytes",
        "rocev2_udp_port",
        "seconds_per_hour",
        "sparsity_speedup",
        "te_amax_history_len",
        "te_margin",
        "torch_async_errors_abort",
        "torch_async_errors_abort_teardown",
        "torch_async_errors_off",
        "torch_async_errors_teardown",
        "torch_default_pg_timeout",
        "torch_nccl_default_timeout",
        "vllm_block_size",
        "vllm_gpu_memory_utilization",
        "vllm_throughput_gain_high",
        "vllm_throughput_gain_low",
        "vllm_waste_bound",
    }
)

__all__ = ["DATA", "MODULES", "QUOTED_IN_SOURCE", "TERMS", "all_constants"]


def all_constants() -> tuple[Constant, ...]:
    """Every cited constant: the subject modules', the data files', the model configs'."""
    out: list[Constant] = []
    for name in MODULES:
        for c in importlib.import_module(f"quizcoll.constants.{name}").CONSTANTS:
            quoted = c.name in QUOTED_IN_SOURCE and not c.quote
            out.append(replace(c, quote=c.source) if quoted else c)
    for name in (*DATA, *worked_examples()):
        out.extend(figures(name))
    return (*out, *model_constants())
