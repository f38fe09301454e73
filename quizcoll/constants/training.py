"""Constants of the training cards: definitions and published figures, each with its source.

Training runs as their papers and model cards report them (PaLM, Chinchilla, Llama 2 and 3),
the defaults of PyTorch's GradScaler and Transformer Engine's DelayedScaling, and a measured
CUDA context. The caching allocator's sizes and Chinchilla's tokens per parameter are
``quizcoll/data/training.yaml``; each catalog model's published parameter count is
``quizcoll/data/parameter-counts.yaml`` (``llama_3_8b_params``), held against the count
the calculators make tensor by tensor, never taken from it.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

_PALM = "Chowdhery et al. 2022, PaLM, Table 3 and Appendix B"
_LLAMA2 = "Llama 2 model card (meta-llama/llama MODEL_CARD.md): pretraining GPU hours, A100-80GB"
_LLAMA3 = "Llama 3 model card (meta-llama/llama3 MODEL_CARD.md)"
_CHINCHILLA = "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models, Table 1"
_GRADSCALER = "PyTorch torch.amp.GradScaler defaults (torch/amp/grad_scaler.py)"
_TE = (
    "Transformer Engine transformer_engine.common.recipe.DelayedScaling defaults "
    "(TE 1.x and 2.x API docs)"
)
_LAZY = (
    "pytorch/pytorch PR #86509 (PyTorch 1.13): total − free memory after allocating one "
    "20×16×50×100 fp32 tensor, with CUDA_MODULE_LOADING=LAZY and with eager loading"
)


CONSTANTS: tuple[Constant, ...] = (
    Constant("seconds_per_hour", 3600.0, Dim.SECONDS, "an hour is 3,600 s", "s"),
    # Chinchilla and Gopher: same budget, different split.
    Constant("chinchilla_params", 70e9, Dim.COUNT, f"{_CHINCHILLA}: Chinchilla, 70B parameters"),
    Constant("chinchilla_tokens", 1.4e12, Dim.COUNT, f"{_CHINCHILLA}: Chinchilla, 1.4T tokens"),
    Constant("gopher_params", 280e9, Dim.COUNT, f"{_CHINCHILLA}: Gopher, 280B parameters"),
    Constant("gopher_tokens", 300e9, Dim.COUNT, f"{_CHINCHILLA}: Gopher, 300B tokens"),
    # PaLM 540B (App. B's MFU computation).
    Constant("palm_params", 540.35e9, Dim.COUNT, f"{_PALM}: 540.35B parameters"),
    Constant("palm_layers", 118, Dim.COUNT, f"{_PALM}: 118 layers"),
    Constant("palm_heads", 48, Dim.COUNT, f"{_PALM}: 48 heads"),
    Constant("palm_head_dim", 256, Dim.COUNT, f"{_PALM}: head size 256"),
    Constant("palm_seq_len", 2048, Dim.COUNT, f"{_PALM}: sequence length 2,048"),
    Constant("palm_chips", 6144, Dim.COUNT, f"{_PALM}: 6,144 TPU v4 chips"),
    Constant("palm_tokens_per_s", 238.3e3, Dim.COUNT, f"{_PALM}: 238.3K tokens/s"),
    Constant("palm_mfu", 0.462, Dim.RATIO, f"{_PALM}: 46.2% model FLOPs utilization"),
    Constant("palm_hfu", 0.578, Dim.RATIO, f"{_PALM}: 57.8% hardware FLOPs utilization"),
    Constant(
        "tpu_v4_peak",
        275e12,
        Dim.COUNT,
        f"{_PALM}: a TPU v4 chip's peak, 275 TFLOP/s in bf16 (Google Cloud TPU v4 docs)",
    ),
    # Llama 2 and 3 as their model cards report them.
    Constant("llama2_tokens", 2.0e12, Dim.COUNT, f"{_LLAMA2}: 2.0T pretraining tokens"),
    Constant("llama2_7b_gpu_hours", 184320, Dim.COUNT, f"{_LLAMA2}: Llama 2 7B"),
    Constant("llama2_13b_gpu_hours", 368640, Dim.COUNT, f"{_LLAMA2}: Llama 2 13B"),
    Constant("llama2_70b_gpu_hours", 1720320, Dim.COUNT, f"{_LLAMA2}: Llama 2 70B"),
    Constant("llama2_batch_tokens", 4e6, Dim.COUNT, f"{_LLAMA2}: a global batch of 4M tokens"),
    Constant("llama3_tokens", 15e12, Dim.COUNT, f"{_LLAMA3}: over 15T pretraining tokens"),
    Constant(
        "qlora_gpu_bytes",
        48e9,
        Dim.BYTES,
        "Dettmers et al. 2023 (QLoRA), abstract: a 65B model fine-tuned on a single 48GB GPU",
        "GB",
    ),
    # Dynamic loss scaling and FP8 delayed scaling defaults.
    Constant("gradscaler_init_scale", 65536.0, Dim.COUNT, f"{_GRADSCALER}: init_scale 2^16"),
    Constant("gradscaler_growth_factor", 2.0, Dim.COUNT, f"{_GRADSCALER}: growth_factor 2.0"),
    Constant("gradscaler_backoff_factor", 0.5, Dim.RATIO, f"{_GRADSCALER}: backoff_factor 0.5"),
    Constant("gradscaler_growth_interval", 2000, Dim.COUNT, f"{_GRADSCALER}: growth_interval 2000"),
    Constant("te_amax_history_len", 1024, Dim.COUNT, f"{_TE}: amax_history_len 1024"),
    Constant("te_margin", 0, Dim.COUNT, f"{_TE}: margin 0"),
    # What a CUDA context costs, measured.
    Constant("cuda_lazy_used_bytes", 287047680.0, Dim.BYTES, _LAZY, "MiB"),
    Constant("cuda_eager_used_bytes", 666632192.0, Dim.BYTES, _LAZY, "MiB"),
    Constant("pr86509_tensor_elements", 1600000, Dim.COUNT, f"{_LAZY}: 20·16·50·100 elements"),
    # Datasheets print tensor-core peaks with 2:4 structured sparsity.
    Constant(
        "sparsity_speedup",
        2,
        Dim.COUNT,
        'NVIDIA A100 and H100 datasheets: the "with sparsity" tensor-core figures are twice '
        "the dense ones (2:4 structured sparsity)",
    ),
)
