"""A TP × CP × DP × PP training layout walked rank by rank and operator by operator.

- :func:`data_parallel_group` enumerates every rank's coordinates the way Megatron-Core
  builds its groups (tensor-parallel ranks adjacent, then context, then data; pipeline
  stages in blocks of world/PP ranks) and counts the ranks that share rank 0's tensor,
  context and pipeline position: its data-parallel group.
- :func:`tensor_parallel_traffic` walks one pipeline stage's layers for every micro-batch,
  forward then backward, through Megatron's conjugate operators (Shoeybi et al. 2019, §3:
  *f* is the identity forward and an all-reduce backward, *g* the reverse; one pair around
  the attention block and one around the MLP) and steps every all-reduce on a ring.
- :func:`pipeline_traffic` steps one stage's 1F1B order (warm-up forwards, one forward one
  backward, cool-down backwards), sending each activation to the next stage and each
  gradient to the previous one, split over the stage's tensor-parallel ranks (Megatron's
  scatter/gather, Narayanan et al. 2021, §4.1).
- :func:`data_parallel_traffic` gives each (pipeline, tensor) position its slice of the
  parameters and steps one ring all-reduce of those gradients in every data-parallel group.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.witnesses import par_rings

MAX_WORLD = 1 << 17


def _positive(**values: int) -> None:
    for name, v in values.items():
        if v < 1:
            raise ValueError(f"{name} must be at least 1, got {v}")


def _split(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def data_parallel_group(world: int, tp: int, pp: int, cp: int = 1) -> int:
    """The size of rank 0's data-parallel group, counted over the enumerated ranks; 0 when
    the world does not split into whole tensor, context and pipeline groups."""
    _positive(world=world, tp=tp, pp=pp, cp=cp)
    if world > MAX_WORLD:
        raise ValueError(f"world must be at most {MAX_WORLD}, got {world}")
    if world % pp or (world // pp) % (tp * cp):
        return 0
    per_stage = world // pp
    members = 0
    for rank in range(world):
        stage = rank // per_stage
        tp_index = rank % tp
        cp_index = (rank // tp) % cp
        if stage == 0 and tp_index == 0 and cp_index == 0:
            members += 1
    return members


# One transformer layer under Megatron tensor parallelism: (block, operator) in forward order.
# "f" is the identity forward, all-reduce backward; "g" all-reduce forward, identity backward.
_LAYER = (("attention", "f"), ("attention", "g"), ("mlp", "f"), ("mlp", "g"))


@dataclass(frozen=True)
class TensorParallelTraffic:
    bytes_sent: float  # by the busiest GPU of the stage
    all_reduces: int


def _stage_layers(layers: int, pp: int, stage: int) -> int:
    if layers % pp:
        raise ValueError(f"{layers} layers do not split over {pp} pipeline stages")
    if not 0 <= stage < pp:
        raise ValueError(f"stage must be 0 to {pp - 1}, got {stage}")
    per = layers // pp
    return sum(1 for layer in range(layers) if layer // per == stage)


def tensor_parallel_traffic(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    layers: int,
    micro_batches: int,
    tp: int,
    value_bytes: float,
    pp: int = 1,
    stage: int = 0,
) -> TensorParallelTraffic:
    """Bytes one GPU of ``stage`` sends in tensor-parallel all-reduces over one step."""
    _positive(
        seq_len=seq_len,
        micro_batch=micro_batch,
        hidden=hidden,
        layers=layers,
        micro_batches=micro_batches,
        tp=tp,
        pp=pp,
    )
    own = _stage_layers(layers, pp, stage)
    activation = seq_len * micro_batch * hidden  # one [s, b, h] tensor
    sent = [0] * tp
    count = 0
    for _ in range(micro_batches):
        passes = (("forward", _LAYER), ("backward", tuple(reversed(_LAYER))))
        for direction, ops in passes:
            for _layer in range(own):
                for _block, op in ops:
                    reduces = (op == "g") if direction == "forward" else (op == "f")
                    if reduces and tp > 1:
                        ring = par_rings.all_reduce(activation, tp)
                        sent = [a + b for a, b in zip(sent, ring.sent, strict=True)]
                        count += 1
    return TensorParallelTraffic(max(sent) * value_bytes, count)


@dataclass(frozen=True)
class PipelineTraffic:
    per_gpu_bytes: float  # the busiest tensor-parallel rank of the stage
    group_bytes: float  # all the stage's ranks together
    sends: int  # tensors the stage passed on


def one_f_one_b_order(stages: int, stage: int, micro_batches: int) -> list[tuple[str, int]]:
    """The 1F1B order of one stage: ("F" or "B", micro-batch) pairs."""
    warmup = min(stages - stage - 1, micro_batches)
    order: list[tuple[str, int]] = [("F", i) for i in range(warmup)]
    f, b = warmup, 0
    while f < micro_batches:
        order += [("F", f), ("B", b)]
        f, b = f + 1, b + 1
    order += [("B", i) for i in range(b, micro_batches)]
    return order


def pipeline_traffic(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    micro_batches: int,
    tp: int,
    pp: int,
    stage: int,
    value_bytes: float,
) -> PipelineTraffic:
    """Step ``stage``'s 1F1B order and count what its GPUs send to the neighbouring stages."""
    _positive(
        seq_len=seq_len,
        micro_batch=micro_batch,
        hidden=hidden,
        micro_batches=micro_batches,
        tp=tp,
        pp=pp,
    )
    if not 0 <= stage < pp:
        raise ValueError(f"stage must be 0 to {pp - 1}, got {stage}")
    slices = _split(seq_len * micro_batch * hidden, tp)  # scatter: each rank its slice
    sent = [0] * tp
    sends = 0
    seen = {"F": set(), "B": set()}
    for kind, mb in one_f_one_b_order(pp, stage, micro_batches):
        if mb in seen[kind] or (kind == "B" and mb not in seen["F"]):
            raise AssertionError("a micro-batch ran twice or backward before forward")
        seen[kind].add(mb)
        passes_on = stage < pp - 1 if kind == "F" else stage > 0
        if passes_on:
            sent = [a + b for a, b in zip(sent, slices, strict=True)]
            sends += 1
    return PipelineTraffic(max(sent) * value_bytes, sum(sent) * value_bytes, sends)


def data_parallel_traffic(params: int, tp: int, pp: int, dp: int, value_bytes: float) -> float:
    """Bytes the busiest GPU sends all-reducing its gradients over its data-parallel group."""
    _positive(params=params, tp=tp, pp=pp, dp=dp)
    world = tp * pp * dp
    if world > MAX_WORLD:
        raise ValueError(f"world must be at most {MAX_WORLD}, got {world}")
    stage_params = _split(params, pp)
    shard = {(s, t): n for s in range(pp) for t, n in enumerate(_split(stage_params[s], tp))}
    groups: dict[tuple[int, int], list[int]] = {}
    for rank in range(world):  # tensor ranks adjacent, then data, then pipeline
        groups.setdefault((rank // (tp * dp), rank % tp), []).append(rank)
    sent = [0] * world
    for position, ranks in groups.items():
        ring = par_rings.all_reduce(shard[position], len(ranks))
        for rank, values in zip(ranks, ring.sent, strict=True):
            sent[rank] += values
    return max(sent) * value_bytes
