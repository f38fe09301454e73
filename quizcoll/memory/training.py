"""Training memory: model states with ZeRO, mixed-precision recipes, and activations per
Korthikanti et al. (2022).

Model states for mixed-precision Adam (Rajbhandari et al., "ZeRO", 2020), Ψ parameters,
N data-parallel GPUs, K = 12 bytes of optimizer state per parameter (fp32 master weights,
momentum and variance):

=========  ===============  ================  ==================
stage      weights (fp16)   gradients (fp16)  optimizer states
=========  ===============  ================  ==================
0          2Ψ               2Ψ                KΨ
1 (Pos)    2Ψ               2Ψ                KΨ/N
2 (Pos+g)  2Ψ               2Ψ/N              KΨ/N
3 (Pos+g+p) 2Ψ/N            2Ψ/N              KΨ/N
=========  ===============  ================  ==================

Recipes (:func:`recipe_states`): bytes per parameter a data-parallel rank keeps, and how a
distributed optimizer (ZeRO-1) shards them over d ranks. The ZeRO paper's fp16 recipe is
2 + 2 + 12 = 16; Megatron-Core's Distributed Optimizer docs give 20 | 4 + 16/d (fp16 params
and grads), 18 | 6 + 12/d (bf16 params, fp32 main grads: today's common recipe) and
16 | 8 + 8/d (fp32).

Activations of one transformer layer ("Reducing Activation Recomputation in Large
Transformer Models", Korthikanti et al. 2022, Table 2), sequence s, micro-batch b, hidden h,
heads a, tensor-parallel size t, in bytes (fp16 activations, 1-byte dropout masks):

- no recomputation: sbh(10 + 24/t + 5as/(ht)); with sequence parallelism sbh/t · (34 + 5as/h)
- selective recomputation (attention core recomputed): sbh(10 + 24/t); with SP 34·sbh/t
- full recomputation (only each layer's input kept): 2sbh; with SP 2sbh/t

The formula is for the GPT architecture of the paper (4h MLP, multi-head attention): "the
paper's GPT figure". For other models it is the paper's estimate, not an exact figure; what
PyTorch really keeps for a catalogue model's layer (SwiGLU width, GQA, no dropout, SDPA or
eager attention) is :mod:`quizcoll.memory.activations`, held to real layers by
``tests/oracles/test_oracle_activations.py``. The embedding and output-layer terms, small next
to L layers, are left out.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from quizcoll.memory.errors import MemoryInputError

ADAM_K = 12  # bytes of optimizer state per parameter, mixed-precision Adam


@dataclass(frozen=True)
class ModelStates:
    """Per-GPU bytes of weights, gradients and optimizer states at one ZeRO stage."""

    parameters: int
    zero_stage: int
    gpus: int
    weights: float
    gradients: float
    optimizer_states: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer_states

    def as_dict(self) -> dict[str, float]:
        return {
            "weights": self.weights,
            "gradients": self.gradients,
            "optimizer_states": self.optimizer_states,
            "total": self.total,
        }


def model_states(
    parameters: int, zero_stage: int, gpus: int, k: float = ADAM_K, grad_bytes: float = 2
) -> ModelStates:
    """Per-GPU model-state bytes of ``parameters`` at ``zero_stage`` over ``gpus`` GPUs.

    ``grad_bytes`` is 2 for the ZeRO paper's fp16 gradients and 4 for the bf16 recipes that
    accumulate fp32 main gradients (Megatron-Core: 2 + 4 + 12 = 18 bytes per parameter)."""
    if parameters < 1:
        raise MemoryInputError(f"parameters must be positive, got {parameters}")
    if zero_stage not in (0, 1, 2, 3):
        raise MemoryInputError(f"ZeRO stage must be 0, 1, 2 or 3, got {zero_stage}")
    if gpus < 1:
        raise MemoryInputError(f"GPU count must be at least 1, got {gpus}")
    if k <= 0:
        raise MemoryInputError(f"optimizer bytes per parameter K must be positive, got {k:g}")
    if grad_bytes <= 0:
        raise MemoryInputError(f"gradient bytes per parameter must be positive, got {grad_bytes:g}")
    p, n, g = parameters, gpus, grad_bytes
    weights = 2 * p / n if zero_stage >= 3 else 2 * p
    gradients = g * p / n if zero_stage >= 2 else g * p
    optimizer = k * p / n if zero_stage >= 1 else k * p
    return ModelStates(p, zero_stage, gpus, _exact(weights), _exact(gradients), _exact(optimizer))


def _exact(x: float) -> float:
    """Whole byte counts as ints, so JSON shows 15000000000 rather than 15000000000.0."""
    return int(x) if float(x).is_integer() else x


class Recompute(enum.Enum):
    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


@dataclass(frozen=True)
class ActivationMemory:
    """Activation bytes per layer and for all layers, on one GPU."""

    per_layer_bytes: float
    layers: int
    formula: str

    @property
    def total_bytes(self) -> float:
        return self.per_layer_bytes * self.layers


def training_activations(
    *,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    layers: int,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    recompute: Recompute = Recompute.NONE,
) -> ActivationMemory:
    """Activation memory per Korthikanti et al. (2022), Table 2 (see module docs)."""
    for label, value in (
        ("seq_len", seq_len),
        ("micro_batch", micro_batch),
        ("hidden", hidden),
        ("heads", heads),
        ("layers", layers),
        ("tensor_parallel", tensor_parallel),
    ):
        if value < 1:
            raise MemoryInputError(f"{label} must be at least 1, got {value}")
    s, b, h, a, t = seq_len, micro_batch, hidden, heads, tensor_parallel
    sbh = s * b * h
    if recompute is Recompute.FULL:
        per_layer = 2 * sbh / t if sequence_parallel else 2 * sbh
        formula = "2sbh/t" if sequence_parallel else "2sbh"
    elif recompute is Recompute.SELECTIVE:
        per_layer = 34 * sbh / t if sequence_parallel else sbh * (10 + 24 / t)
        formula = "34·sbh/t" if sequence_parallel else "sbh(10 + 24/t)"
    elif sequence_parallel:
        per_layer = sbh / t * (34 + 5 * a * s / h)
        formula = "sbh/t·(34 + 5as/h)"
    else:
        per_layer = sbh * (10 + 24 / t + 5 * a * s / (h * t))
        formula = "sbh(10 + 24/t + 5as/(ht))"
    return ActivationMemory(_exact(round(per_layer, 6)), layers, formula)


def zero_table(parameters: int, gpus: int, k: float = ADAM_K) -> tuple[ModelStates, ...]:
    """Model states at every ZeRO stage, for the side-by-side view."""
    return tuple(model_states(parameters, stage, gpus, k) for stage in range(4))


class Recipe(enum.Enum):
    """Mixed-precision recipes and the bytes of model state they keep per parameter."""

    ZERO_FP16 = "zero-fp16"  # the ZeRO paper: fp16 params and grads, fp32 master + Adam m, v
    MEGATRON_FP16 = "megatron-fp16"  # fp16 params and grads, fp32 main params and main grads
    MEGATRON_BF16 = "megatron-bf16"  # bf16 params, fp32 main grads (today's default)
    MEGATRON_FP32 = "megatron-fp32"  # fp32 params and grads


# (bytes every data-parallel rank keeps, bytes the distributed optimizer shards over d):
# ZeRO paper §3.1: 2 + 2 + 12 (K = 12: fp32 master weights, momentum, variance).
# Megatron-Core Distributed Optimizer docs: 20 | 4 + 16/d, 18 | 6 + 12/d, 16 | 8 + 8/d.
_RECIPE_BYTES: dict[Recipe, tuple[int, int]] = {
    Recipe.ZERO_FP16: (2 + 2, ADAM_K),
    Recipe.MEGATRON_FP16: (2 + 2, 4 + 4 + 8),  # + fp32 main params, main grads, Adam m, v
    Recipe.MEGATRON_BF16: (2 + 4, 4 + 8),  # fp32 grads are the main grads: + main params, m, v
    Recipe.MEGATRON_FP32: (4 + 4, 8),  # the params are the main params: + Adam m, v
}
RECIPES: tuple[str, ...] = tuple(r.value for r in Recipe)


@dataclass(frozen=True)
class RecipeStates:
    """Bytes per parameter of a recipe, replicated or with the optimizer sharded over d ranks."""

    recipe: Recipe
    data_parallel: int
    distributed_optimizer: bool
    replicated_bytes: int  # per parameter on every rank (model params and grads)
    shardable_bytes: int  # per parameter, divided by d with a distributed optimizer

    @property
    def bytes_per_parameter(self) -> float:
        if self.distributed_optimizer:
            return self.replicated_bytes + self.shardable_bytes / self.data_parallel
        return self.replicated_bytes + self.shardable_bytes


def recipe_states(
    recipe: Recipe, data_parallel: int = 1, distributed_optimizer: bool = False
) -> RecipeStates:
    """Model-state bytes per parameter of ``recipe`` (Megatron-Core: 18 B, or 6 + 12/d, for bf16)."""
    if data_parallel < 1:
        raise MemoryInputError(f"data_parallel must be at least 1, got {data_parallel}")
    replicated, shardable = _RECIPE_BYTES[recipe]
    return RecipeStates(recipe, data_parallel, distributed_optimizer, replicated, shardable)


# DeepSpeed's own estimators (deepspeed 0.19.8, deepspeed/runtime/zero/stage_1_and_2.py
# ``estimate_zero2_model_states_mem_needs`` and stage3.py ``estimate_zero3_model_states_mem_needs``,
# no offload) count more than the ZeRO paper's 2 + 2 + K: ZeRO-2 keeps an fp32 gradient
# partition next to the 16-bit one ("18 = 2_grads_16bit + 4_grads_32bit + 4_params_32bit +
# 8_optimizer_states_32bit"), ZeRO-3 counts 18 bytes per parameter over N plus 4 bytes for each
# parameter of the largest layer, which is gathered whole.
DEEPSPEED_VERSION = "0.19.8"


@dataclass(frozen=True)
class DeepSpeedStates:
    """Per-GPU bytes as DeepSpeed estimates them: the paper's states plus the extra terms."""

    paper: ModelStates
    fp32_gradient_partition: float  # ZeRO-2: 4Ψ/N; ZeRO-3: 2Ψ/N (18 against the paper's 16)
    largest_layer_gather: float  # ZeRO-3: 4 B × the largest layer's parameters

    @property
    def total(self) -> float:
        return self.paper.total + self.fp32_gradient_partition + self.largest_layer_gather


def deepspeed_states(
    parameters: int, zero_stage: int, gpus: int, largest_layer_params: int = 0
) -> DeepSpeedStates:
    """DeepSpeed's estimate of per-GPU model states at ZeRO stage 2 or 3, without offload."""
    if zero_stage not in (2, 3):
        raise MemoryInputError(
            f"DeepSpeed's estimators cover ZeRO stages 2 and 3, got {zero_stage}"
        )
    if largest_layer_params < 0 or largest_layer_params > parameters:
        raise MemoryInputError(
            f"largest layer must have between 0 and {parameters} parameters, "
            f"got {largest_layer_params}"
        )
    paper = model_states(parameters, zero_stage, gpus)
    extra_per_param = 4 if zero_stage == 2 else 2
    gather = 4 * largest_layer_params if zero_stage == 3 else 0
    return DeepSpeedStates(paper, _exact(extra_per_param * parameters / gpus), gather)
