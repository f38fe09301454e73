"""Memory constants: published figures of quantization formats, optimizers and runtimes, the
serving assumptions of the calculators, and each catalog model's ``config.json`` figures.

Per model ``<key>_layers``, ``<key>_heads`` … (``llama-3.1-8b`` → ``llama_3_1_8b_layers``),
taken from the shipped configs as ``transformers`` reads them, so a card's closed form can
pick the figures of the model it drew: ``expect: "2 * {model}_layers * {model}_kv_heads *
{model}_head_dim * fp16_bytes"``. The calculators count parameters and bytes tensor by
tensor; these figures only feed the literature's formulas that check them.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

MIB, GIB = 2**20, 2**30


def _published() -> tuple[Constant, ...]:
    from quizcoll.memory.formats import DEFAULT_GROUP_SIZE
    from quizcoll.memory.inference import (
        DEFAULT_OVERHEAD_BYTES,
        GPUS_PER_NODE,
        RULE_OF_THUMB_HEADROOM,
    )

    low, high = RULE_OF_THUMB_HEADROOM
    return (
        # Real 4-bit formats: the scales cost bits too.
        Constant(
            "nf4_double_quant_bits_per_weight",
            4 + 8 / 64 + 32 / (64 * 256),
            Dim.RATIO,
            "Dettmers et al. 2023 (QLoRA), §3 Double Quantization: NF4 weights + 8-bit "
            "scales per block of 64 + fp32 scales per 256 blocks = 4 + 8/64 + 32/(64·256) bits",
        ),
        Constant(
            "mxfp4_bits_per_weight",
            4 + 8 / 32,
            Dim.RATIO,
            "OCP Microscaling Formats (MX) v1.0: MXFP4 = 32 FP4 (E2M1) values sharing one "
            "8-bit E8M0 scale = 4 + 8/32 bits",
        ),
        Constant(
            "llama3_8b_q4_k_m_bytes",
            4.58 * GIB,
            Dim.BYTES,
            "llama.cpp llama-bench: 'llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B' "
            "(Meta-Llama-3-8B, Q4_K_M: Q4_K with some tensors in Q6_K)",
            "GiB",
        ),
        Constant(
            "gptq_group_size",
            DEFAULT_GROUP_SIZE,
            Dim.COUNT,
            "AutoGPTQ and AutoAWQ default group size (quizcoll.memory.formats)",
        ),
        # Optimizer state per parameter other than Adam's K = 12.
        Constant(
            "adam_8bit_optimizer_bytes_per_param",
            6,
            Dim.BYTES,
            "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization: fp32 master "
            "weights (4) + 8-bit momentum (1) + 8-bit variance (1)",
            "B",
        ),
        Constant(
            "sgd_momentum_optimizer_bytes_per_param",
            8,
            Dim.BYTES,
            "mixed-precision SGD with momentum: fp32 master weights (4) + fp32 momentum (4)",
            "B",
        ),
        # Activations per layer, Korthikanti et al. 2022, Table 2, at t = 1: sbh times this.
        Constant(
            "korthikanti_selective_sbh",
            34,
            Dim.COUNT,
            "Korthikanti et al. 2022, Table 2: selective recomputation keeps sbh(10 + 24/t) "
            "= 34·sbh per layer at t = 1 (and with sequence parallelism 34·sbh/t)",
        ),
        Constant(
            "korthikanti_full_sbh",
            2,
            Dim.COUNT,
            "Korthikanti et al. 2022, Table 2: full recomputation keeps each layer's fp16 "
            "input, 2·sbh",
        ),
        # The runtime around the tensors.
        Constant(
            "cuda_context_low",
            300 * MIB,
            Dim.BYTES,
            "pytorch/pytorch#20532 and #107667: a process's CUDA context takes about 300 MB "
            "(CUDA ≥ 11.7 loads kernels lazily)",
            "MiB",
        ),
        Constant(
            "cuda_context_high",
            500 * MIB,
            Dim.BYTES,
            "pytorch/pytorch#28113: 200–700 MB by GPU and driver; about 500 MB with eagerly "
            "loaded kernels",
            "MiB",
        ),
        Constant(
            "runtime_overhead_assumed",
            DEFAULT_OVERHEAD_BYTES,
            Dim.BYTES,
            "quizcoll's calculators: CUDA context, library workspaces and allocator slack per "
            "GPU (quizcoll.memory.inference.DEFAULT_OVERHEAD_BYTES)",
            "GiB",
        ),
        Constant(
            "rule_of_thumb_headroom_low",
            low,
            Dim.RATIO,
            "a common interview rule of thumb: weights plus 20–30% headroom",
        ),
        Constant(
            "rule_of_thumb_headroom_high",
            high,
            Dim.RATIO,
            "a common interview rule of thumb: weights plus 20–30% headroom",
        ),
        Constant(
            "gpus_per_node",
            GPUS_PER_NODE,
            Dim.COUNT,
            "NVIDIA HGX/DGX A100 and H100: 8 GPUs per node on NVLink/NVSwitch, the usual "
            "limit of tensor parallelism",
        ),
    )


# (suffix, what it is, the ModelConfig attribute or a function of it)
_MODEL_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("vocab", "vocabulary (vocab_size)", "vocab_size"),
    ("hidden", "hidden size (hidden_size / n_embd)", "hidden_size"),
    ("layers", "layers (num_hidden_layers / n_layer)", "num_layers"),
    ("heads", "attention heads (num_attention_heads / n_head)", "num_heads"),
    ("kv_heads", "key/value heads (num_key_value_heads; = heads when absent)", "num_kv_heads"),
    ("head_dim", "head dimension (head_dim; hidden / heads when absent)", "head_dim"),
    ("intermediate", "MLP width (intermediate_size / n_inner)", "intermediate_size"),
    ("trained_context", "max_position_embeddings / n_positions", "max_position_embeddings"),
    ("tied", "1 when the output head is tied to the embeddings", "tie_embeddings"),
    ("qkv_bias", "1 when q, k, v projections have biases (Qwen2, GPT-2)", "qkv_bias"),
    ("experts", "MoE experts per layer (0: dense)", "num_experts"),
    ("experts_per_token", "MoE experts a token uses (0: dense)", "experts_per_token"),
)


def _models() -> tuple[Constant, ...]:
    from quizcoll.memory.catalog import load_model, model_names, raw_config

    out: list[Constant] = []
    for key in model_names():
        cfg = load_model(key)
        repo = str(raw_config(key).get("_name_or_path") or key)
        name = key.replace("-", "_").replace(".", "_")
        where = f"{repo} config.json (quizcoll/memory/models/{key}.json)"
        for suffix, what, attr in _MODEL_FIGURES:
            value = float(getattr(cfg, attr) or 0)
            out.append(Constant(f"{name}_{suffix}", value, Dim.COUNT, f"{where}: {what}"))
        windows = {w for w in cfg.sliding_windows if w}
        window = max(windows) if windows else (cfg.max_position_embeddings or 0)
        out.append(
            Constant(
                f"{name}_attention_window",
                float(window),
                Dim.COUNT,
                f"{where}: tokens a layer's KV cache holds at most — sliding_window, or the "
                "trained context without one",
            )
        )
    return tuple(out)


def _formats() -> tuple[Constant, ...]:
    """Per quantization format: its block (or group) layout and what it leaves unquantized."""
    from quizcoll.memory.formats import DEFAULT_GROUP_SIZE, GGUF_BLOCKS, GGUF_FORMATS

    g = DEFAULT_GROUP_SIZE
    # (format, weights per block, bytes per block, kept bytes, quantizes embeddings, g_idx)
    layouts = [
        ("gptq", g, g * 4 / 8 + 2 + 0.5, 2, 0, 4),
        ("awq", g, g * 4 / 8 + 2 + 0.5, 2, 0, 0),
    ]
    layouts += [
        (f, GGUF_BLOCKS[f].block_size, GGUF_BLOCKS[f].block_bytes, 4, 1, 0) for f in GGUF_FORMATS
    ]
    gptq_source = (
        "AutoGPTQ/AutoAWQ int4 layout: per group of 128 weights, 4-bit values + an fp16 scale "
        "+ a packed 4-bit zero; only the linear layers of the blocks are quantized, the rest "
        "stays fp16; GPTQ also stores g_idx, one int32 per input row"
    )
    out: list[Constant] = []
    for fmt, size, nbytes, kept, embeddings, g_idx in layouts:
        source = (
            gptq_source
            if fmt in ("gptq", "awq")
            else f"llama.cpp ggml-common.h block_{fmt}: {nbytes} B per {size} weights; every "
            "2-D tensor is quantized, 1-D tensors (norms, biases) stay F32"
        )
        out += [
            Constant(f"{fmt}_block_size", size, Dim.COUNT, source),
            Constant(f"{fmt}_block_bytes", nbytes, Dim.BYTES, source, "B"),
            Constant(f"{fmt}_kept_bytes", kept, Dim.BYTES, source, "B"),
            Constant(f"{fmt}_quantizes_embeddings", embeddings, Dim.COUNT, source),
            Constant(f"{fmt}_g_idx_bytes", g_idx, Dim.BYTES, source, "B"),
        ]
    return tuple(out)


CONSTANTS: tuple[Constant, ...] = (*_published(), *_models(), *_formats())


def _gpu_terms() -> tuple[str, ...]:
    """The words of the catalog GPUs' names that start with a digit ("4090" of "RTX 4090",
    the marketing "80GB" of "A100 80GB"): parts of a product's name, not quantities (the
    memory a GPU reports is ``<gpu>_reported``)."""
    from quizcoll.memory.gpus import GPUS

    words = (w for gpu in GPUS for w in gpu.name.split())
    return tuple(sorted({w for w in words if w[:1].isdigit()}))


TERMS: tuple[str, ...] = _gpu_terms()
