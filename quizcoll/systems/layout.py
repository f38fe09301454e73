"""Parallel layouts: world = TP × PP × DP × CP (EP carved out of DP × CP), their validity, the
traffic of each dimension, and the smallest tensor-parallel degree that serves a model.

Validity (Megatron-Core's rules):

- world must be a multiple of TP × PP × CP; DP is what is left.
- attention heads and KV heads (query groups) divisible by TP; layers by PP (× virtual stages).
- experts divisible by EP, and EP must divide DP × CP (expert parallelism reuses those ranks:
  ``expert_data_parallel = world / (expert TP × EP × PP)``).
- with CP, the sequence splits into 2·CP chunks (each rank takes one early and one late
  chunk to balance causal attention), so seq_len must be divisible by 2·CP.
- TP within a node is advice, not a rule ("tensor model parallelism should generally be used
  up to degree g when using g-GPU servers", Narayanan et al., SC 2021, Takeaway #1).

Traffic per GPU for one training step of m micro-batches of b sequences of s tokens, hidden
h, on a stage of L/PP layers (Narayanan et al. §3.2; Korthikanti et al. 2022 §4.2.2):

- TP: 2 all-reduces of s·b·h in the forward and 2 in the backward per layer:
  8·s·b·h·(t − 1)/t values per layer per micro-batch; sequence parallelism swaps each
  all-reduce for an all-gather plus a reduce-scatter, the same volume.
- PP: a middle stage sends each micro-batch's s·b·h activations forward and their gradients
  backward: 2·s·b·h per micro-batch.
- DP: one all-reduce of the stage's share of the gradients, Ψ/(TP·PP): 2(d − 1)/d of it.

Serving (vLLM): heads must divide by TP; KV heads divide by TP, or TP by the KV heads (each KV
head is then replicated on TP/KV GPUs, so a GPU's KV cache never drops below one head).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.memory.architecture import ModelConfig
from quizcoll.memory.formats import WeightFormat
from quizcoll.memory.gpus import Gpu
from quizcoll.memory.inference import estimate
from quizcoll.systems.errors import SystemsInputError, at_least, exact, positive


@dataclass(frozen=True)
class Layout:
    world: int
    tp: int
    pp: int
    cp: int
    ep: int
    dp: int  # 0 when world does not split
    valid: bool
    problem: str  # the first rule broken, or "none"
    tp_within_node: bool


def check_layout(
    *,
    world: int,
    tp: int,
    pp: int,
    cp: int = 1,
    ep: int = 1,
    heads: int,
    kv_heads: int,
    layers: int,
    experts: int = 0,
    seq_len: int = 0,
    virtual_stages: int = 1,
    gpus_per_node: int = 8,
) -> Layout:
    """Check a TP × PP × DP × CP (× EP) layout against Megatron-Core's divisibility rules."""
    for name, value in (
        ("world", world),
        ("tp", tp),
        ("pp", pp),
        ("cp", cp),
        ("ep", ep),
        ("heads", heads),
        ("kv_heads", kv_heads),
        ("layers", layers),
        ("virtual_stages", virtual_stages),
        ("gpus_per_node", gpus_per_node),
    ):
        at_least(name, value, 1)
    at_least("experts", experts, 0)
    at_least("seq_len", seq_len, 0)
    model_parallel = tp * pp * cp
    dp = world // model_parallel if world % model_parallel == 0 else 0
    rules = [
        (
            world % model_parallel == 0,
            f"world {world} is not a multiple of TP×PP×CP = {model_parallel}",
        ),
        (heads % tp == 0, f"heads {heads} are not divisible by TP {tp}"),
        (kv_heads % tp == 0, f"KV heads {kv_heads} are not divisible by TP {tp}"),
        (
            layers % (pp * virtual_stages) == 0,
            f"layers {layers} are not divisible by PP × virtual stages = {pp * virtual_stages}",
        ),
        (ep == 1 or experts % ep == 0, f"experts {experts} are not divisible by EP {ep}"),
        (ep == 1 or experts > 0, f"EP {ep} needs a mixture-of-experts model"),
        (dp == 0 or (dp * cp) % ep == 0, f"EP {ep} does not divide DP × CP = {dp * cp}"),
        (
            cp == 1 or seq_len == 0 or seq_len % (2 * cp) == 0,
            f"seq_len {seq_len} is not divisible by 2 × CP = {2 * cp}",
        ),
    ]
    problem = next((message for ok, message in rules if not ok), None)
    return Layout(
        world, tp, pp, cp, ep, dp, problem is None, problem or "none", tp <= gpus_per_node
    )


@dataclass(frozen=True)
class LayoutTraffic:
    """Bytes one GPU sends per training step, by dimension."""

    tp_bytes: float
    pp_bytes: float  # one GPU's share: the boundary tensor split over the TP group
    dp_bytes: float
    pp_group_bytes: float = 0.0  # the whole boundary tensor a stage's TP group passes on

    @property
    def total_bytes(self) -> float:
        return self.tp_bytes + self.pp_bytes + self.dp_bytes


def layout_traffic(
    *,
    parameters: int,
    hidden: int,
    layers: int,
    seq_len: int,
    micro_batch: int,
    micro_batches: int,
    tp: int,
    pp: int,
    dp: int,
    activation_bytes: float = 2,
    grad_bytes: float = 4,
) -> LayoutTraffic:
    """Per-GPU bytes of TP all-reduces, PP sends (the busiest stage) and the DP all-reduce.

    A stage boundary carries s·b·h values each way per micro-batch (activations forward,
    their gradients back) per TP group, so a middle stage sends 2·s·b·h (activations on,
    gradients back); with two stages there is no middle one, and each stage sends one of
    the two; Megatron's scatter/gather optimisation (Narayanan et al.
    2021, §4.1), and sequence parallelism, have each of the ``tp`` GPUs send 1/tp of it.
    """
    for name, value in (
        ("parameters", parameters),
        ("hidden", hidden),
        ("layers", layers),
        ("seq_len", seq_len),
        ("micro_batch", micro_batch),
        ("micro_batches", micro_batches),
        ("tp", tp),
        ("pp", pp),
        ("dp", dp),
    ):
        at_least(name, value, 1)
    positive("activation_bytes", activation_bytes)
    positive("grad_bytes", grad_bytes)
    if layers % pp:
        raise SystemsInputError(f"layers {layers} are not divisible by PP {pp}")
    sbh = seq_len * micro_batch * hidden * activation_bytes
    stage_layers = layers // pp
    tp_bytes = 8 * sbh * (tp - 1) / tp * stage_layers * micro_batches
    pp_group = (2 if pp > 2 else 1) * sbh * micro_batches if pp > 1 else 0
    dp_bytes = 2 * (dp - 1) / dp * parameters / (tp * pp) * grad_bytes
    return LayoutTraffic(exact(tp_bytes), exact(pp_group / tp), exact(dp_bytes), pp_group)


def serving_tp_valid(tp: int, heads: int, kv_heads: int) -> bool:
    """vLLM's rule: heads % tp == 0, and kv_heads % tp == 0 or tp % kv_heads == 0."""
    return heads % tp == 0 and (kv_heads % tp == 0 or tp % kv_heads == 0)


@dataclass(frozen=True)
class TpChoice:
    """The smallest valid TP degree within a node whose per-GPU share fits, if any."""

    tp: int  # 0: no valid degree up to gpus_per_node fits
    valid_degrees: tuple[int, ...]  # up to gpus_per_node
    per_gpu_bytes: int  # at tp (at the largest valid degree when none fits)
    usable_bytes: int
    memory_gpus: int  # fewest GPUs by memory alone, ignoring the head rule


def tp_degree(
    cfg: ModelConfig,
    fmt: WeightFormat,
    gpu: Gpu,
    *,
    kv_format: WeightFormat | None = None,
    context: int,
    batch: int,
    utilization: float,
    overhead_bytes: int,
    gpus_per_node: int = 8,
) -> TpChoice:
    """Smallest TP degree t ≤ ``gpus_per_node`` that vLLM accepts and whose share fits.

    Per GPU: weights and activations split t ways; the KV cache splits over the KV heads, a
    GPU keeping at least one (replicated) head; plus the runtime overhead.
    """
    at_least("gpus_per_node", gpus_per_node, 1)
    est = estimate(
        cfg, fmt, kv_format=kv_format, context=context, batch=batch, overhead_bytes=overhead_bytes
    )
    usable = gpu.usable_bytes(utilization)
    kv_total = est.kv_cache_bytes or 0
    split = est.weights_bytes + (est.activation_bytes or 0)

    def per_gpu(t: int) -> int:
        local_kv_heads = max(1, cfg.num_kv_heads // t)
        kv = math.ceil(kv_total * local_kv_heads / cfg.num_kv_heads)
        return math.ceil(split / t) + kv + est.overhead_bytes

    valid = tuple(
        t
        for t in range(1, gpus_per_node + 1)
        if serving_tp_valid(t, cfg.num_heads, cfg.num_kv_heads)
    )
    room = usable - est.overhead_bytes
    memory_gpus = max(1, math.ceil(est.shardable_bytes / room)) if room > 0 else 0
    chosen = next((t for t in valid if per_gpu(t) <= usable), 0)
    shown = chosen or valid[-1]
    return TpChoice(chosen, valid, per_gpu(shown), usable, memory_gpus)
