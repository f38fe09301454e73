"""Training memory: model states with ZeRO, and activations per Korthikanti et al. (2022).

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

Activations of one transformer layer ("Reducing Activation Recomputation in Large
Transformer Models", Korthikanti et al. 2022, Table 2), sequence s, micro-batch b, hidden h,
heads a, tensor-parallel size t, in bytes (fp16 activations, 1-byte dropout masks):

- no recomputation: sbh(10 + 24/t + 5as/(ht)); with sequence parallelism sbh/t · (34 + 5as/h)
- selective recomputation (attention core recomputed): sbh(10 + 24/t); with SP 34·sbh/t
- full recomputation (only each layer's input kept): 2sbh; with SP 2sbh/t

The formula is for the GPT architecture of the paper (4h MLP, multi-head attention);
for other models it is the paper's estimate, not an exact figure. The embedding and
output-layer terms, small next to L layers, are left out.
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


def model_states(parameters: int, zero_stage: int, gpus: int, k: float = ADAM_K) -> ModelStates:
    """Per-GPU model-state bytes of ``parameters`` at ``zero_stage`` over ``gpus`` GPUs."""
    if parameters < 1:
        raise MemoryInputError(f"parameters must be positive, got {parameters}")
    if zero_stage not in (0, 1, 2, 3):
        raise MemoryInputError(f"ZeRO stage must be 0, 1, 2 or 3, got {zero_stage}")
    if gpus < 1:
        raise MemoryInputError(f"GPU count must be at least 1, got {gpus}")
    if k <= 0:
        raise MemoryInputError(f"optimizer bytes per parameter K must be positive, got {k:g}")
    p, n = parameters, gpus
    weights = 2 * p / n if zero_stage >= 3 else 2 * p
    gradients = 2 * p / n if zero_stage >= 2 else 2 * p
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
