"""Communication volume of data parallelism and ZeRO, counted on ring schedules.

Per the ZeRO paper (Rajbhandari et al. 2020, §7): plain data parallelism all-reduces the
gradients (reduce-scatter + all-gather: 2Ψ per GPU); ZeRO-1 and ZeRO-2 reduce-scatter
the gradients and all-gather the updated parameters (2Ψ); ZeRO-3 all-gathers the
parameters in the forward and again in the backward pass and reduce-scatters the
gradients (3Ψ). "Ψ" is the paper's large-N approximation; the exact bytes a GPU sends
on a ring are (N − 1)/N of it, and that is what is counted here, from the schedules.
The flat buffer is padded to a multiple of N elements, as ZeRO does.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.collectives.api import plan
from quizcoll.collectives.dtypes import get_dtype
from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.semantics import Collective

# The ring collectives each stage runs per training step, in order.
STAGE_COLLECTIVES: dict[int, tuple[Collective, ...]] = {
    0: (Collective.ALL_REDUCE,),
    1: (Collective.REDUCE_SCATTER, Collective.ALL_GATHER),
    2: (Collective.REDUCE_SCATTER, Collective.ALL_GATHER),
    3: (Collective.ALL_GATHER, Collective.ALL_GATHER, Collective.REDUCE_SCATTER),
}


@dataclass(frozen=True)
class ZeroVolume:
    """Bytes one GPU sends per training step and that figure in units of Ψ·itemsize."""

    stage: int
    gpus: int
    parameters: int
    itemsize: int
    bytes_per_gpu: int
    psi_multiple: float  # bytes_per_gpu / (Ψ · itemsize): 2(N−1)/N or 3(N−1)/N
    collectives: tuple[str, ...]


def zero_volume(parameters: int, stage: int, gpus: int, *, dtype: str = "bfloat16") -> ZeroVolume:
    """Per-GPU communication of one training step at ZeRO ``stage`` (0 = plain DP)."""
    if stage not in STAGE_COLLECTIVES:
        raise CollectiveError(f"ZeRO stage must be 0, 1, 2 or 3, got {stage!r}")
    if parameters < 1:
        raise CollectiveError("parameters must be at least 1")
    kind = get_dtype(dtype)
    padded = -(-parameters // gpus) * gpus
    total = 0
    for c in STAGE_COLLECTIVES[stage]:
        count = padded // gpus if c is Collective.ALL_GATHER else padded
        total += int(plan(c, gpus, count, algorithm="ring", dtype=kind).bytes_sent.max())
    return ZeroVolume(
        stage=stage,
        gpus=gpus,
        parameters=parameters,
        itemsize=kind.itemsize,
        bytes_per_gpu=total,
        psi_multiple=total / (parameters * kind.itemsize),
        collectives=tuple(c.value for c in STAGE_COLLECTIVES[stage]),
    )
