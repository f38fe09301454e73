"""One optimizer step of gradient accumulation, micro-batch by micro-batch and unit by unit.

The model is ``units`` equal wrapped modules (FSDP units, or DDP gradient buckets). For
every micro-batch:

- **FSDP** (``FULL_SHARD``, reshard after forward): the forward all-gathers each unit's
  parameters before running it, the backward all-gathers each unit again (it was freed);
  on a micro-batch that synchronises, each unit's gradient is reduce-scattered; on one that
  does not (``no_sync``), the unit keeps its full, unsharded gradient until a later
  micro-batch reduces it.
- **DDP**: parameters stay whole; on a synchronising micro-batch each bucket's gradient is
  all-reduced, otherwise it accumulates locally (DDP's full gradient exists anyway, so it
  keeps nothing extra).

Every collective is stepped on a ring (:mod:`quizcoll.witnesses.par_rings`); the bytes one
GPU sends are summed, and the largest unsharded gradient FSDP holds between micro-batches
is tracked.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.witnesses import par_rings


@dataclass(frozen=True)
class StepTraffic:
    gather_bytes: float
    gradient_bytes: float
    unsharded_grad_bytes: float  # the most FSDP holds between micro-batches
    collectives: int

    @property
    def bytes_sent(self) -> float:
        return self.gather_bytes + self.gradient_bytes


def accumulate(
    mode: str,
    params: int,
    ranks: int,
    micro_batches: int,
    grad_bytes: float,
    param_bytes: float,
    sync_every_micro_batch: bool = False,
    units: int = 4,
) -> StepTraffic:
    """Step one optimizer step and count what GPU 0 sends."""
    if mode not in ("ddp", "fsdp"):
        raise ValueError(f"mode must be ddp or fsdp, got {mode!r}")
    for name, v in (
        ("params", params),
        ("ranks", ranks),
        ("micro_batches", micro_batches),
        ("units", units),
    ):
        if v < 1:
            raise ValueError(f"{name} must be at least 1, got {v}")
    base, extra = divmod(params, units)
    unit_sizes = [base + (1 if i < extra else 0) for i in range(units)]
    me = 0
    gather = reduce = 0.0
    held: set[int] = set()  # units whose full gradient FSDP keeps (accumulated in place)
    most_held = 0.0
    count = 0
    for mb in range(micro_batches):
        syncs = sync_every_micro_batch or mb == micro_batches - 1
        if mode == "fsdp":
            for size in unit_sizes:  # forward
                gather += par_rings.all_gather(size, ranks).sent[me] * param_bytes
                count += 1
            for unit in reversed(range(units)):  # backward
                size = unit_sizes[unit]
                gather += par_rings.all_gather(size, ranks).sent[me] * param_bytes
                count += 1
                if syncs:
                    reduce += par_rings.reduce_scatter(size, ranks).sent[me] * grad_bytes
                    count += 1
                    held.discard(unit)
                else:
                    held.add(unit)
            most_held = max(most_held, sum(unit_sizes[u] for u in held) * grad_bytes)
        else:
            for size in reversed(unit_sizes):
                if syncs:
                    reduce += par_rings.all_reduce(size, ranks).sent[me] * grad_bytes
                    count += 1
    return StepTraffic(gather, reduce, most_held, count)
