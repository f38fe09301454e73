"""GPU-memory calculators as executables (``memory.*``): weights, parameter counts, KV cache,
inference totals and GPU fit, ZeRO training memory, activations, the weights-plus-headroom rule of
thumb. Each returns plain numbers and has a short worked solution (``explain``).
"""

from __future__ import annotations

from deck.cards.registry import Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables.common import overhead_param, utilization_param
from quizcoll.executables.memory_calc import (
    COMPONENT_FIELDS,
    FORMATS,
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_PARAMS,
    decoder_layer,
    explain_decoder_layer,
    explain_gpus_needed,
    explain_inference,
    explain_kv,
    explain_max_context,
    explain_model_params,
    explain_model_weights,
    explain_rule_of_thumb,
    explain_weights,
    gpus_needed,
    guard,
    inference_memory,
    kv_cache,
    max_context,
    model_params,
    model_weights,
    rule_of_thumb,
    weights,
)
from quizcoll.executables.memory_train import (
    activations,
    bits_per_weight,
    explain_activations,
    explain_bits,
    explain_gpu,
    explain_training,
    gpu_memory,
    training_memory,
)
from quizcoll.memory.catalog import model_names
from quizcoll.memory.formats import (
    KV_DTYPES,
)
from quizcoll.memory.gpus import gpu_names

# ----------------------------------------------------------------------------- registration


def register(registry: Registry) -> None:
    models = model_names()
    gpus = gpu_names()
    model = Param("model", ParamKind.STR, "a built-in model", choices=models)
    optional_model = Param("model", ParamKind.STR, "a built-in model", choices=models, default=None)
    params = Param("params", ParamKind.INT, "parameter count", minimum=1, maximum=MAX_PARAMS)
    dtype = Param(
        "dtype",
        ParamKind.STR,
        "weight dtype or quantization format",
        choices=FORMATS,
        default="fp16",
    )
    group = Param(
        "group_size", ParamKind.INT, "GPTQ/AWQ group size", minimum=8, maximum=4096, default=128
    )
    kv_dtype = Param(
        "kv_dtype", ParamKind.STR, "KV-cache dtype", choices=("auto", *KV_DTYPES), default="auto"
    )
    context = Param(
        "context",
        ParamKind.INT,
        "tokens per sequence",
        minimum=1,
        maximum=MAX_CONTEXT,
        default=4096,
    )
    batch = Param("batch", ParamKind.INT, "sequences", minimum=1, maximum=MAX_BATCH, default=1)
    utilization = utilization_param()
    overhead = overhead_param()
    gpu_count = Param("gpus", ParamKind.INT, "number of GPUs", minimum=1, maximum=4096, default=1)
    flash = Param("flash_attention", ParamKind.BOOL, "FlashAttention (no T×T scores)", default=True)

    def gpu(default: str) -> Param:
        return Param("gpu", ParamKind.STR, "GPU", choices=gpus, default=default)

    B, C, R, T = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.TEXT

    registry.add_function(
        "memory.weights",
        guard(weights),
        params=[params, dtype, group],
        fields=[
            Field("weights_bytes", B, "weight bytes"),
            Field("bytes_per_parameter", R, "bytes per parameter"),
            Field("bits_per_weight", R, "bits per weight, scales included"),
            Field("gb", R, "weights in GB (10^9 B)"),
            Field("gib", R, "weights in GiB (2^30 B)"),
        ],
        explain=explain_weights,
    )
    registry.add_function(
        "memory.model_weights",
        guard(model_weights),
        params=[model, dtype, group],
        fields=[
            Field("weights_bytes", B, "weight bytes from the tensor layout"),
            Field("bytes_per_parameter", R, "average bytes per parameter"),
            Field("quantized_parameters", C, "parameters stored quantized"),
            Field("kept_parameters", C, "parameters left in 16/32-bit"),
        ],
        explain=explain_model_weights,
    )
    registry.add_function(
        "memory.model_params",
        guard(model_params),
        params=[model],
        fields=[
            Field("parameters", C, "total parameters"),
            Field("active_parameters", C, "parameters a token uses (MoE: top-k experts)"),
            *(Field(key, C, f"{c.value} parameters") for c, key in COMPONENT_FIELDS.items()),
            Field("layers", C, "transformer layers"),
            Field("hidden_size", C, "hidden size"),
            Field("heads", C, "attention heads"),
            Field("kv_heads", C, "key/value heads"),
            Field("head_dim", C, "head size"),
            Field("intermediate_size", C, "MLP width"),
            Field("vocab_size", C, "vocabulary"),
            Field("max_position_embeddings", C, "the trained context (0 if the config has none)"),
            Field("attention", T, "MHA, GQA or MQA"),
        ],
        explain=explain_model_params,
    )
    width = {"minimum": 1, "maximum": 1_000_000}
    registry.add_function(
        "memory.decoder_layer",
        guard(decoder_layer),
        params=[
            Param("hidden", ParamKind.INT, "hidden size h", **width),
            Param("kv_width", ParamKind.INT, "key/value width: kv_heads × head_dim", **width),
            Param("intermediate", ParamKind.INT, "MLP width", **width),
        ],
        fields=[
            Field("parameters", C, "one layer"),
            Field("attention_parameters", C, "q, k, v, o"),
            Field("mlp_parameters", C, "gate, up, down"),
            Field("norm_parameters", C, "the two RMSNorm weights"),
        ],
        explain=explain_decoder_layer,
    )
    registry.add_function(
        "memory.kv_cache",
        guard(kv_cache),
        params=[
            optional_model,
            Param("layers", ParamKind.INT, "layers", minimum=1, maximum=1000, default=None),
            Param(
                "kv_heads", ParamKind.INT, "key/value heads", minimum=1, maximum=1024, default=None
            ),
            Param(
                "head_dim", ParamKind.INT, "head dimension", minimum=1, maximum=4096, default=None
            ),
            Param("dtype", ParamKind.STR, "KV-cache dtype", choices=KV_DTYPES, default="fp16"),
            context,
            batch,
            Param(
                "element_bytes",
                ParamKind.INT,
                "bytes per cached value (overrides dtype)",
                minimum=1,
                maximum=8,
                default=None,
            ),
        ],
        fields=[
            Field("kv_bytes_per_token", B, "KV bytes per token, all layers"),
            Field("kv_cache_bytes", B, "KV cache for context × batch"),
            Field("layers", C, "layers"),
            Field("kv_heads", C, "key/value heads"),
            Field("head_dim", C, "dimension of one head"),
            Field("kv_dtype_bytes", B, "bytes of one cached value"),
            Field("sliding_window", C, "tokens a layer keeps at most (0: no window)"),
        ],
        explain=explain_kv,
    )
    registry.add_function(
        "memory.inference",
        guard(inference_memory),
        params=[
            model,
            dtype,
            kv_dtype,
            context,
            batch,
            gpu("h100-80gb"),
            gpu_count,
            utilization,
            overhead,
            flash,
        ],
        fields=[
            Field("parameters", C, "total parameters"),
            Field("weights_bytes", B, "weights"),
            Field("kv_bytes_per_token", B, "KV bytes per token"),
            Field("kv_cache_bytes", B, "KV cache"),
            Field("activation_bytes", B, "forward-pass activations"),
            Field("score_matrix_bytes", B, "attention score matrices (0 with FlashAttention)"),
            Field("overhead_bytes", B, "runtime overhead"),
            Field("total_bytes", B, "total on one GPU"),
            Field("per_gpu_bytes", B, "per GPU when split over gpus"),
            Field("usable_bytes_per_gpu", B, "usable memory of one GPU"),
            Field("gpus_needed", C, "GPUs needed"),
            Field(
                "tp_gpus",
                C,
                "smallest valid tensor-parallel degree ≥ gpus_needed in one 8-GPU node (0: none)",
            ),
            Field("fits", T, "yes if it fits on gpus × gpu"),
        ],
        explain=explain_inference,
    )
    registry.add_function(
        "memory.gpus_needed",
        guard(gpus_needed),
        params=[
            optional_model,
            Param(
                "params",
                ParamKind.INT,
                "parameter count (weights only)",
                minimum=1,
                maximum=MAX_PARAMS,
                default=None,
            ),
            dtype,
            context,
            batch,
            gpu("a100-80gb"),
            utilization,
            overhead,
        ],
        fields=[
            Field("gpus_needed", C, "GPUs needed"),
            Field("total_bytes", B, "memory on one GPU"),
            Field("usable_bytes_per_gpu", B, "usable memory of one GPU"),
        ],
        explain=explain_gpus_needed,
    )
    registry.add_function(
        "memory.max_context",
        guard(max_context),
        params=[
            model,
            dtype,
            kv_dtype,
            batch,
            gpu("rtx-4090"),
            gpu_count,
            utilization,
            overhead,
            flash,
        ],
        fields=[
            Field("max_context", C, "longest context that fits, tokens"),
            Field("model_max_context", C, "the model's trained context"),
            Field("kv_bytes_per_token", B, "KV bytes per token"),
        ],
        explain=explain_max_context,
    )
    registry.add_function(
        "memory.rule_of_thumb",
        guard(rule_of_thumb),
        params=[
            params,
            dtype,
            Param(
                "headroom", ParamKind.FLOAT, "headroom fraction", minimum=0, maximum=1, default=0.2
            ),
        ],
        fields=[
            Field("weights_bytes", B, "parameters × bytes"),
            Field("with_headroom_bytes", B, "plus headroom"),
            Field("gb", R, "weights in GB"),
            Field("gib", R, "weights in GiB"),
            Field(
                "gib_shortfall", R, "how much smaller the GiB figure is than the GB one (6.9% at G)"
            ),
        ],
        explain=explain_rule_of_thumb,
    )
    registry.add_function(
        "memory.training",
        guard(training_memory),
        params=[
            params,
            Param("zero_stage", ParamKind.INT, "ZeRO stage", minimum=0, maximum=3, default=0),
            Param(
                "gpus", ParamKind.INT, "data-parallel GPUs", minimum=1, maximum=1_000_000, default=1
            ),
            Param(
                "k",
                ParamKind.FLOAT,
                "optimizer bytes per parameter",
                minimum=1,
                maximum=64,
                default=12.0,
            ),
            Param(
                "grad_bytes",
                ParamKind.FLOAT,
                "gradient bytes per parameter (2: fp16/bf16; 4: fp32 main grads)",
                minimum=1,
                maximum=8,
                default=2.0,
            ),
        ],
        fields=[
            Field("weights", B, "fp16 weights per GPU"),
            Field("gradients", B, "gradients per GPU (grad_bytes each)"),
            Field("optimizer_states", B, "optimizer states per GPU"),
            Field("total", B, "model states per GPU"),
            Field("baseline_total", B, "model states without ZeRO"),
        ],
        explain=explain_training,
    )
    registry.add_function(
        "memory.activations",
        guard(activations),
        params=[
            optional_model,
            Param(
                "hidden", ParamKind.INT, "hidden size", minimum=1, maximum=1_000_000, default=None
            ),
            Param("heads", ParamKind.INT, "attention heads", minimum=1, maximum=4096, default=None),
            Param("layers", ParamKind.INT, "layers", minimum=1, maximum=1000, default=None),
            Param(
                "seq_len",
                ParamKind.INT,
                "sequence length",
                minimum=1,
                maximum=MAX_CONTEXT,
                default=2048,
            ),
            Param(
                "micro_batch", ParamKind.INT, "micro-batch", minimum=1, maximum=MAX_BATCH, default=1
            ),
            Param(
                "tensor_parallel",
                ParamKind.INT,
                "tensor-parallel size",
                minimum=1,
                maximum=1024,
                default=1,
            ),
            Param("sequence_parallel", ParamKind.BOOL, "sequence parallelism", default=False),
            Param(
                "recompute",
                ParamKind.STR,
                "recomputation",
                choices=("none", "selective", "full"),
                default="none",
            ),
        ],
        fields=[
            Field("per_layer_bytes", B, "activations of one layer"),
            Field("total_bytes", B, "activations of all layers"),
            Field("scores_bytes", B, "of one layer's: attention scores, softmax, dropout mask"),
            Field("hidden", C, "hidden size h"),
            Field("heads", C, "attention heads a"),
            Field("layers", C, "layers"),
        ],
        explain=explain_activations,
    )
    registry.add_function(
        "memory.bits_per_weight",
        guard(bits_per_weight),
        params=[
            Param("format", ParamKind.STR, "dtype or quantization format", choices=FORMATS),
            group,
        ],
        fields=[
            Field("bits_per_weight", R, "bits per weight"),
            Field("block_size", C, "weights per block or group"),
            Field("block_bytes", B, "bytes per block or group"),
        ],
        explain=explain_bits,
    )
    registry.add_function(
        "memory.gpu",
        guard(gpu_memory),
        params=[Param("gpu", ParamKind.STR, "GPU", choices=gpus), utilization],
        fields=[
            Field("reported_bytes", B, "memory the GPU reports"),
            Field("usable_bytes", B, "usable at the utilization"),
            Field("gb", R, "reported memory in GB"),
            Field("gib", R, "reported memory in GiB"),
        ],
        explain=explain_gpu,
    )
