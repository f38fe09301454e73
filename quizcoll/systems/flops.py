"""Training and inference FLOPs, MFU and HFU, training time, Chinchilla's tokens per parameter.

- Per token, a training step costs 6N FLOPs for N parameters (2N forward, 4N backward; Kaplan
  et al., "Scaling Laws for Neural Language Models", 2020), plus the attention score and
  value products 12·L·H·Q·T for L layers, H heads of size Q and sequence length T (Chowdhery
  et al., "PaLM", 2022, Appendix B): the non-causal count of the full T × T matrices, which
  ``FlopCounterMode`` measures on eager attention (tests/oracles/test_oracle_flops.py); a
  causal kernel needs 12·L·H·Q·(T + 1)/2. Generating one token costs 2N + 4·L·H·Q·T at context T.
- MFU (model FLOPs utilisation, PaLM App. B) is the throughput in model FLOPs — the 6N + 12LHQT
  a step needs — over the peak. HFU counts the hardware's FLOPs, including recomputation:
  full activation recomputation runs the forward again (+2N + 4LHQT per token), selective
  recomputation (Korthikanti et al. 2022) only its attention core (+4LHQT).
- Training time = model FLOPs / (GPUs × peak × MFU). Narayanan et al. (SC 2021, eq. 4) give
  ≈ 8·T·P/(n·X) with full recomputation at X achieved FLOP/s per GPU: GPT-3 (175B, 300B
  tokens) on 1,024 A100s at 140 TFLOP/s takes 34 days.
- Chinchilla (Hoffmann et al., "Training Compute-Optimal Large Language Models", 2022):
  compute-optimal training uses about 20 tokens per parameter (Chinchilla itself: 70B
  parameters, 1.4T tokens), so a budget C = 6·N·D buys N = √(C / (6·20)), D = 20·N.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, fraction, positive

SECONDS_PER_DAY = 86_400
CHINCHILLA_TOKENS_PER_PARAMETER = 20


class Recompute(enum.Enum):
    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


@dataclass(frozen=True)
class Attention:
    """The attention shape the T-dependent FLOPs need; all zero leaves them out."""

    layers: int = 0
    heads: int = 0
    head_dim: int = 0

    @property
    def lhq(self) -> int:
        return self.layers * self.heads * self.head_dim


NO_ATTENTION = Attention()


@dataclass(frozen=True)
class TrainingFlops:
    """FLOPs of training on ``tokens`` tokens of sequence length ``seq_len``."""

    model_flops_per_token: float  # 6N + 12LHQT
    hardware_flops_per_token: float  # + recomputation
    attention_flops_per_token: float  # 12LHQT
    model_flops: float  # × tokens
    hardware_flops: float
    # A causal kernel computes only the T(T+1)/2 unmasked scores: 12LHQ(T + 1)/2 per token.
    # PaLM's 12LHQT (and FlopCounterMode on eager attention) counts the full T × T matrix.
    causal_attention_flops_per_token: float = 0.0


def training_flops(
    parameters: float,
    tokens: float,
    seq_len: int = 0,
    attention: Attention = NO_ATTENTION,
    recompute: Recompute = Recompute.NONE,
) -> TrainingFlops:
    """6N + 12LHQT per token (PaLM App. B) and the hardware FLOPs recomputation adds."""
    positive("parameters", parameters)
    positive("tokens", tokens)
    at_least("seq_len", seq_len, 0)
    lhqt = attention.lhq * seq_len
    model = 6 * parameters + 12 * lhqt
    extra = {
        Recompute.NONE: 0.0,
        Recompute.SELECTIVE: 4 * lhqt,
        Recompute.FULL: 2 * parameters + 4 * lhqt,
    }[recompute]
    causal = 12 * attention.lhq * (seq_len + 1) / 2 if seq_len else 0.0
    return TrainingFlops(
        model, model + extra, 12 * lhqt, model * tokens, (model + extra) * tokens, causal
    )


def inference_flops_per_token(
    parameters: float, context: int = 0, attention: Attention = NO_ATTENTION
) -> float:
    """2N + 4LHQT: one generated token attending to ``context`` tokens."""
    positive("parameters", parameters)
    at_least("context", context, 0)
    return 2 * parameters + 4 * attention.lhq * context


@dataclass(frozen=True)
class TrainingTime:
    seconds: float
    days: float
    gpu_hours: float
    cluster_flops: float  # achieved model FLOP/s of all GPUs together


def training_time(model_flops: float, gpus: int, peak_flops: float, mfu: float) -> TrainingTime:
    """Wall time of ``model_flops`` on ``gpus`` GPUs of ``peak_flops`` each at ``mfu``."""
    positive("model_flops", model_flops)
    at_least("gpus", gpus, 1)
    positive("peak_flops", peak_flops)
    fraction("mfu", mfu)
    achieved = gpus * peak_flops * mfu
    seconds = model_flops / achieved
    return TrainingTime(seconds, seconds / SECONDS_PER_DAY, seconds * gpus / 3600, achieved)


@dataclass(frozen=True)
class Utilization:
    mfu: float
    hfu: float
    achieved_model_flops: float  # per GPU, FLOP/s


def utilization(
    tokens_per_second: float, gpus: int, peak_flops: float, flops: TrainingFlops
) -> Utilization:
    """MFU and HFU of a run that trains ``tokens_per_second`` tokens on ``gpus`` GPUs."""
    positive("tokens_per_second", tokens_per_second)
    at_least("gpus", gpus, 1)
    positive("peak_flops", peak_flops)
    per_gpu = tokens_per_second / gpus
    return Utilization(
        mfu=per_gpu * flops.model_flops_per_token / peak_flops,
        hfu=per_gpu * flops.hardware_flops_per_token / peak_flops,
        achieved_model_flops=per_gpu * flops.model_flops_per_token,
    )


@dataclass(frozen=True)
class ChinchillaPlan:
    parameters: float
    tokens: float
    compute_flops: float  # 6·N·D
    tokens_per_parameter: float


def chinchilla_for_parameters(
    parameters: float, tokens_per_parameter: float = CHINCHILLA_TOKENS_PER_PARAMETER
) -> ChinchillaPlan:
    """The compute-optimal token count for ``parameters``: about 20 per parameter."""
    positive("parameters", parameters)
    positive("tokens_per_parameter", tokens_per_parameter)
    tokens = parameters * tokens_per_parameter
    return ChinchillaPlan(parameters, tokens, 6 * parameters * tokens, tokens_per_parameter)


def chinchilla_for_compute(
    compute_flops: float, tokens_per_parameter: float = CHINCHILLA_TOKENS_PER_PARAMETER
) -> ChinchillaPlan:
    """The model size and tokens a budget of ``compute_flops`` buys at the same ratio."""
    positive("compute_flops", compute_flops)
    positive("tokens_per_parameter", tokens_per_parameter)
    parameters = math.sqrt(compute_flops / (6 * tokens_per_parameter))
    return ChinchillaPlan(
        parameters, parameters * tokens_per_parameter, compute_flops, tokens_per_parameter
    )


def megatron_gpt_flops(batch: int, seq_len: int, layers: int, hidden: int, vocab: int) -> float:
    """Narayanan et al. (SC 2021) eq. 3: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) FLOPs per
    iteration of a GPT model with full activation recomputation."""
    for name, value in (
        ("batch", batch),
        ("seq_len", seq_len),
        ("layers", layers),
        ("hidden", hidden),
        ("vocab", vocab),
    ):
        at_least(name, value, 1)
    return (
        96
        * batch
        * seq_len
        * layers
        * hidden**2
        * (1 + seq_len / (6 * hidden) + vocab / (16 * layers * hidden))
    )


def check_recompute(name: str) -> Recompute:
    try:
        return Recompute(name)
    except ValueError:
        raise SystemsInputError(
            f"recompute must be one of {', '.join(r.value for r in Recompute)}, got {name!r}"
        ) from None
