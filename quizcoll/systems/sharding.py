"""ZeRO, FSDP and HSDP in practice: per-GPU traffic and parameter/gradient memory.

Traffic is what one GPU sends per training step with ring collectives over n ranks
(each moves (n − 1)/n of the buffer per all-gather or reduce-scatter, twice that per
all-reduce), for Ψ parameters:

- DDP / ZeRO-1 / ZeRO-2: one gradient all-reduce (or a reduce-scatter plus a parameter
  all-gather): 2Ψ elements in the ZeRO paper's count, 2(n − 1)/n · Ψ exactly.
- ZeRO-3 / FSDP FULL_SHARD: parameters all-gathered in the forward and again in the
  backward, gradients reduce-scattered: 3Ψ, i.e. 1.5× the all-reduce (Rajbhandari et al.,
  "ZeRO", SC 2020, §7.2-7.3). FSDP with ``reshard_after_forward=False`` (SHARD_GRAD_OP)
  skips the backward all-gather: 2Ψ.
- ZeRO++ (Wang et al., "ZeRO++", 2023; DeepSpeed tutorial): cross-node volume of ZeRO-3
  is 3M (M the fp16 model size); int8 weights (qwZ) halve the forward all-gather, the
  intra-node secondary copy (hpZ) removes the cross-node backward all-gather, int4
  all-to-all gradients (qgZ) make the reduction 0.25M: 0.75M in all, 4× less.

Memory (parameters and gradients only; activations are apart): FSDP keeps its shard of
the original-precision parameters, gradients and optimizer states, plus the units it has
all-gathered. Peak parameter memory is O(Σψᵢ/F + max ψᵢ) (Zhao et al., "PyTorch FSDP",
VLDB 2023, §3.2.1); prefetching (``backward_prefetch``, FSDP2's implicit prefetch) holds
one more unit at once; ``reshard_after_forward=False`` keeps every unit unsharded from the
forward to the backward. The mixed-precision policy all-gathers in ``param_dtype`` and
reduce-scatters in ``reduce_dtype``.

HSDP (FSDP ``HYBRID_SHARD``, FSDP2 2-D mesh): shard over s GPUs (a node), replicate over
r = n/s groups. Shard-dimension traffic is FSDP's over s; the replicate dimension
all-reduces each GPU's gradient shard of Ψ/s over r ranks: 2(r − 1)/r · Ψ/s.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, exact, positive

ADAM_STATE_BYTES = 8  # fp32 momentum and variance per parameter


def ring_fraction(ranks: int) -> float:
    """(n − 1)/n: the share of a buffer one rank sends in a ring all-gather or reduce-scatter."""
    return (ranks - 1) / ranks


@dataclass(frozen=True)
class ZeroTraffic:
    """Bytes one GPU sends per step at a ZeRO stage, and the paper's element count."""

    stage: int
    sent_bytes: float  # per GPU per step, ring collectives
    paper_elements: float  # 2Ψ or 3Ψ
    ratio_to_all_reduce: float  # 1 or 1.5
    collectives: str


def zero_traffic(parameters: int, gpus: int, stage: int, value_bytes: float = 2) -> ZeroTraffic:
    """Per-GPU traffic of one training step at ZeRO ``stage`` over ``gpus`` ranks."""
    at_least("parameters", parameters, 1)
    at_least("gpus", gpus, 1)
    positive("value_bytes", value_bytes)
    if stage not in (0, 1, 2, 3):
        raise SystemsInputError(f"ZeRO stage must be 0, 1, 2 or 3, got {stage}")
    passes = 3 if stage == 3 else 2
    collectives = {
        0: "gradient all-reduce",
        1: "gradient reduce-scatter + parameter all-gather",
        2: "gradient reduce-scatter + parameter all-gather",
        3: "parameter all-gather (forward) + all-gather (backward) + gradient reduce-scatter",
    }[stage]
    sent = passes * ring_fraction(gpus) * parameters * value_bytes
    return ZeroTraffic(stage, exact(sent), passes * parameters, passes / 2, collectives)


@dataclass(frozen=True)
class ZeroPlusPlus:
    """Cross-node volumes of ZeRO-3 and ZeRO++ in bytes (M = fp16 model size)."""

    model_bytes: int  # M = 2Ψ
    zero3_bytes: int  # 3M
    forward_gather_bytes: float  # qwZ: int8 weights, 0.5M
    backward_gather_bytes: float  # hpZ: intra-node only, 0
    gradient_bytes: float  # qgZ: int4 all-to-all, 0.25M
    zeropp_bytes: float  # 0.75M
    reduction: float  # 4


def zero_plus_plus(parameters: int) -> ZeroPlusPlus:
    """ZeRO++'s cross-node volume against ZeRO-3's (Wang et al. 2023)."""
    at_least("parameters", parameters, 1)
    m = 2 * parameters
    forward, backward, gradient = m / 2, 0.0, m / 4
    total = forward + backward + gradient
    return ZeroPlusPlus(
        m, 3 * m, exact(forward), backward, exact(gradient), exact(total), 3 * m / total
    )


@dataclass(frozen=True)
class FsdpPlan:
    """FSDP / HSDP memory and traffic for one GPU (parameters and gradients only)."""

    gpus: int
    shard_size: int
    replicas: int
    unit_parameters: float
    sharded_state_bytes: float  # params + grads (original dtype) + Adam states, / shard size
    unsharded_unit_bytes: float  # one all-gathered unit in param_dtype
    forward_peak_bytes: float
    backward_peak_bytes: float
    shard_sent_bytes: float  # per step, all-gathers + reduce-scatter over the shard group
    replicate_sent_bytes: float  # per step, gradient all-reduce over the replicas
    all_gathers_per_unit: int  # 2 with reshard_after_forward, else 1

    @property
    def peak_bytes(self) -> float:
        return max(self.forward_peak_bytes, self.backward_peak_bytes)

    @property
    def sent_bytes(self) -> float:
        return self.shard_sent_bytes + self.replicate_sent_bytes


def fsdp_plan(
    parameters: int,
    gpus: int,
    units: int,
    *,
    shard_size: int | None = None,
    param_bytes: float = 2,
    reduce_bytes: float = 4,
    state_bytes: float = 4,
    prefetch: int = 1,
    reshard_after_forward: bool = True,
) -> FsdpPlan:
    """Per-GPU memory and traffic of FSDP (``shard_size`` = gpus) or HSDP (a divisor of gpus).

    ``units`` equal wrapping units; ``param_bytes``/``reduce_bytes`` are the mixed-precision
    policy's ``param_dtype``/``reduce_dtype``; ``state_bytes`` the stored parameters' and
    gradients' dtype (fp32: 4); ``prefetch`` units gathered ahead (0, 1 or 2).
    """
    at_least("parameters", parameters, 1)
    at_least("gpus", gpus, 1)
    at_least("units", units, 1)
    for name, value in (
        ("param_bytes", param_bytes),
        ("reduce_bytes", reduce_bytes),
        ("state_bytes", state_bytes),
    ):
        positive(name, value)
    if prefetch not in (0, 1, 2):
        raise SystemsInputError(f"prefetch must be 0, 1 or 2 units, got {prefetch}")
    if units > parameters:
        raise SystemsInputError(f"{units} units for {parameters} parameters is too many")
    shard = gpus if shard_size is None else shard_size
    at_least("shard_size", shard, 1)
    if gpus % shard:
        raise SystemsInputError(f"shard_size {shard} does not divide gpus {gpus}")
    replicas = gpus // shard
    unit = parameters / units
    sharded = parameters * (2 * state_bytes + ADAM_STATE_BYTES) / shard
    unit_bytes = unit * param_bytes
    live_units = min(units, 1 + prefetch)
    gathered = live_units * unit_bytes
    if reshard_after_forward:
        forward_peak = sharded + gathered
        backward_peak = sharded + gathered + unit * reduce_bytes
    else:  # every unit stays unsharded until its backward
        forward_peak = sharded + parameters * param_bytes
        backward_peak = forward_peak + unit * reduce_bytes
    gathers = 2 if reshard_after_forward else 1
    shard_sent = ring_fraction(shard) * parameters * (gathers * param_bytes + reduce_bytes)
    replicate_sent = 2 * ring_fraction(replicas) * parameters / shard * reduce_bytes
    return FsdpPlan(
        gpus=gpus,
        shard_size=shard,
        replicas=replicas,
        unit_parameters=exact(unit),
        sharded_state_bytes=exact(sharded),
        unsharded_unit_bytes=exact(unit_bytes),
        forward_peak_bytes=exact(forward_peak),
        backward_peak_bytes=exact(backward_peak),
        shard_sent_bytes=exact(shard_sent),
        replicate_sent_bytes=exact(replicate_sent),
        all_gathers_per_unit=gathers,
    )
