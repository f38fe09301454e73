"""Inference kernels as executables: FlashAttention's HBM traffic (``attention.traffic``),
weight-only against W8A8 quantisation on the roofline (``quant.*``), the custom one-shot and
two-shot all-reduces of tensor parallelism (``tp.*``) and a GEMM's waves beside an NCCL
kernel (``gemm.waves``).

Each figure comes from a replay in :mod:`quizcoll.systems` (a tile walk, a batch search, a
slice-moving simulation, a list scheduler); the cards hold them to the papers' closed forms.
"""

from __future__ import annotations

from typing import Any

from deck.cards.registry import Field, Param, ParamKind, Registry
from quizcoll.executables.common import B, C, R, S, T, count_param, guard
from quizcoll.systems import attention_io as aio
from quizcoll.systems import quant_roofline as qr
from quizcoll.systems import sm_waves as sw
from quizcoll.systems import tp_allreduce as tpa

F = C  # FLOPs and FLOP/byte are plain numbers

VALUE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


def attention_traffic(
    kernel: str,
    seq: int,
    head_dim: int = 128,
    dtype: str = "bf16",
    block_q: int = 128,
    block_k: int = 128,
    causal: bool = False,
    heads: int = 1,
    batch: int = 1,
) -> dict[str, Any]:
    """One head's forward attention: HBM bytes read and written, by replaying the tiles;
    ``p_saved_bytes`` is the probabilities P that unfused attention writes, for every head
    of every sequence (what autograd keeps for the backward pass)."""
    t = aio.walk(
        aio.Kernel(kernel),
        seq,
        head_dim,
        VALUE_BYTES[dtype],
        block_q=block_q,
        block_k=block_k,
        causal=causal,
    )
    base = (
        t
        if t.kernel is aio.Kernel.STANDARD
        else aio.walk(aio.Kernel.STANDARD, seq, head_dim, VALUE_BYTES[dtype], block_k=block_k)
    )
    return {
        "standard_ratio": base.total_bytes / t.total_bytes,
        "p_saved_bytes": base.p_written_bytes * heads * batch,
        "total_bytes": t.total_bytes,
        "read_bytes": t.read_bytes,
        "write_bytes": t.write_bytes,
        "score_bytes": t.score_bytes,
        "kv_bytes": t.kv_bytes,
        "qkvo_bytes": t.qkvo_bytes,
        "tiles": t.tiles,
        "flops": t.flops,
        "intensity": t.intensity,
    }


def _gpu(gpu: str) -> tuple[float, dict[str, float]]:
    from quizcoll.memory.gpus import compute_specs, find_gpu

    specs = compute_specs(find_gpu(gpu))
    return specs.hbm_bandwidth, {d: specs.peak_flops(d) or 0.0 for d in specs.dtypes}


def quant_decode(gpu: str, params: float, batch: int, format: str) -> dict[str, Any]:
    """One decode step's weight traffic and matmul time in a weight format (roofline)."""
    bw, peaks = _gpu(gpu)
    s = qr.step(format, params, batch, bw, peaks)
    base = qr.step("w16a16", params, batch, bw, peaks)
    return {
        "time_s": s.time_s,
        "memory_s": s.memory_s,
        "compute_s": s.compute_s,
        "weight_bytes": s.weight_bytes,
        "bound": s.bound,
        "speedup_vs_bf16": base.time_s / s.time_s,
        "speedup_vs_w4a16": qr.step("w4a16", params, batch, bw, peaks).time_s / s.time_s,
    }


def quant_crossover(gpu: str, params: float) -> dict[str, Any]:
    """Batches where the formats change places, each found by trying every batch."""
    bw, peaks = _gpu(gpu)
    return {
        "w8a8_beats_w4a16": (
            qr.first_batch_where("w8a8", "w4a16", params, bw, peaks) if peaks.get("fp8") else 0
        ),
        "w4a16_compute_bound": qr.first_compute_bound("w4a16", params, bw, peaks),
        "w16a16_compute_bound": qr.first_compute_bound("w16a16", params, bw, peaks),
        "w8a8_compute_bound": (
            qr.first_compute_bound("w8a8", params, bw, peaks) if peaks.get("fp8") else 0
        ),
    }


def tp_allreduce(
    shot: str, ranks: int, size: float, latency: float, bandwidth: float
) -> dict[str, Any]:
    """A custom all-reduce (one-shot or two-shot) simulated slice by slice."""
    run = tpa.simulate(tpa.Shot(shot), ranks, size, latency, bandwidth)
    other = tpa.Shot.TWO if run.shot is tpa.Shot.ONE else tpa.Shot.ONE
    alt = tpa.simulate(other, ranks, size, latency, bandwidth)
    return {
        "time_s": run.time_s,
        "steps": run.steps,
        "bytes_in": run.bytes_in,
        "speedup_over_other": alt.time_s / run.time_s,
    }


def tp_crossover(ranks: int, latency: float, bandwidth: float) -> dict[str, Any]:
    """The size above which two-shot beats one-shot, by bisecting the simulated times."""
    return {"crossover_bytes": tpa.crossover(ranks, latency, bandwidth)}


def tp_min_ranks(size: float, latency: float, bandwidth: float) -> dict[str, Any]:
    """Fewest GPUs (up to 72) on which two-shot beats one-shot for ``size``, trying each."""
    for n in range(2, tpa.MAX_RANKS + 1):
        one = tpa.simulate(tpa.Shot.ONE, n, size, latency, bandwidth).time_s
        two = tpa.simulate(tpa.Shot.TWO, n, size, latency, bandwidth).time_s
        if two < one:
            return {"ranks": n}
    return {"ranks": 0}


def gemm_waves(
    m: int, n: int, sms: int, channels: int, tile_m: int = 128, tile_n: int = 256
) -> dict[str, Any]:
    """A GEMM's tiles list-scheduled on all SMs, and on the SMs NCCL's channels leave."""
    count = sw.tiles(m, n, tile_m, tile_n)
    alone, shared = sw.with_channels(count, sms, channels)
    # Channels NCCL may take before the GEMM needs another wave: waves never fall as SMs are
    # taken away, so bisect on the scheduled wave count.
    lo, hi = 0, sms - 1  # lo keeps the waves; find the largest such count below hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sw.schedule(count, sms - mid).waves == alone.waves:
            lo = mid
        else:
            hi = mid - 1
    free = lo
    return {
        "utilisation": alone.utilisation,
        "free_channels": free,
        "tiles": count,
        "waves_alone": alone.waves,
        "waves_shared": shared.waves,
        "slowdown": shared.waves / alone.waves,
        "sm_ratio": sw.ideal_slowdown(sms, channels),
        "last_wave_tiles": shared.last_wave_tiles,
    }


def _rate(name: str, help: str) -> Param:
    return Param(name, ParamKind.RATE, help, minimum=1e6, maximum=1e15)


def register(registry: Registry) -> None:
    from quizcoll.memory.gpus import gpu_names

    registry.add_function(
        "attention.traffic",
        guard(attention_traffic),
        params=[
            Param("kernel", ParamKind.STR, "standard or flash2", choices=aio.KERNELS),
            count_param("seq", "sequence length N", aio.MAX_SEQ),
            count_param("head_dim", "head dimension d", 1024, default=128),
            Param(
                "dtype",
                ParamKind.STR,
                "Q, K, V, O dtype",
                choices=tuple(VALUE_BYTES),
                default="bf16",
            ),
            count_param("block_q", "query rows per tile", 1 << 20, default=128),
            count_param("block_k", "key rows per tile", 1 << 20, default=128),
            Param("causal", ParamKind.BOOL, "skip tiles the causal mask removes", default=False),
            count_param("heads", "attention heads (for p_saved_bytes)", 1024, default=1),
            count_param("batch", "sequences (for p_saved_bytes)", 4096, default=1),
        ],
        fields=[
            Field("standard_ratio", R, "standard attention's traffic over this kernel's"),
            Field("p_saved_bytes", B, "P written by unfused attention, all heads and sequences"),
            Field("total_bytes", B, "HBM bytes read + written"),
            Field("read_bytes", B, "HBM bytes read"),
            Field("write_bytes", B, "HBM bytes written"),
            Field("score_bytes", B, "traffic of S and P (standard only)"),
            Field("kv_bytes", B, "bytes of K and V read"),
            Field("qkvo_bytes", B, "traffic of Q, K, V and O, re-reads included"),
            Field("tiles", C, "query-block × key-block tiles computed"),
            Field("flops", F, "matmul FLOPs of the tiles computed"),
            Field("intensity", R, "FLOPs per HBM byte"),
        ],
    )
    gpu = Param("gpu", ParamKind.STR, "GPU", choices=gpu_names())
    params = Param("params", ParamKind.FLOAT, "weights of the model", minimum=1e6, maximum=1e13)
    registry.add_function(
        "quant.decode",
        guard(quant_decode),
        params=[
            gpu,
            params,
            count_param("batch", "tokens in the decode batch", qr.MAX_BATCH),
            Param("format", ParamKind.STR, "weight format", choices=qr.FORMAT_NAMES),
        ],
        fields=[
            Field("time_s", S, "roofline time: max(memory, compute)"),
            Field("memory_s", S, "weight bytes over HBM bandwidth"),
            Field("compute_s", S, "2·P·batch FLOPs over the format's tensor-core peak"),
            Field("weight_bytes", B, "weight bytes read"),
            Field("bound", T, "memory or compute"),
            Field("speedup_vs_bf16", R, "bf16-weight step time over this format's"),
            Field("speedup_vs_w4a16", R, "W4A16 step time over this format's"),
        ],
    )
    registry.add_function(
        "quant.crossover",
        guard(quant_crossover),
        params=[gpu, params],
        fields=[
            Field("w8a8_beats_w4a16", C, "smallest batch where W8A8 beats W4A16 (0: no FP8)"),
            Field("w4a16_compute_bound", C, "smallest batch where W4A16 is compute-bound"),
            Field("w16a16_compute_bound", C, "smallest batch where bf16 weights are compute-bound"),
            Field(
                "w8a8_compute_bound", C, "smallest batch where W8A8 is compute-bound (0: no FP8)"
            ),
        ],
    )
    ranks = count_param("ranks", "GPUs in the NVLink domain", tpa.MAX_RANKS, minimum=2)
    latency = Param("latency", ParamKind.SECONDS, "α: one synchronisation", minimum=0, maximum=1e-2)
    bandwidth = _rate("bandwidth", "per-GPU NVLink bandwidth, one direction")
    registry.add_function(
        "tp.allreduce",
        guard(tp_allreduce),
        params=[
            Param("shot", ParamKind.STR, "one-shot or two-shot", choices=tpa.SHOTS),
            ranks,
            Param("size", ParamKind.BYTES, "buffer S", minimum=1, maximum=2**40),
            latency,
            bandwidth,
        ],
        fields=[
            Field("time_s", S, "steps × α + bytes in / bandwidth"),
            Field("steps", C, "synchronisations"),
            Field("bytes_in", B, "bytes arriving at the busiest rank"),
            Field("speedup_over_other", R, "the other schedule's time over this one's"),
        ],
    )
    registry.add_function(
        "tp.crossover",
        guard(tp_crossover),
        params=[ranks, latency, bandwidth],
        fields=[Field("crossover_bytes", B, "size above which two-shot is faster")],
    )
    registry.add_function(
        "tp.min_ranks",
        guard(tp_min_ranks),
        params=[
            Param("size", ParamKind.BYTES, "buffer S", minimum=1, maximum=2**40),
            latency,
            bandwidth,
        ],
        fields=[Field("ranks", C, "fewest GPUs where two-shot is faster (0: none up to 72)")],
    )
    registry.add_function(
        "gemm.waves",
        guard(gemm_waves),
        params=[
            count_param("m", "rows of the output", 1 << 20),
            count_param("n", "columns of the output", 1 << 20),
            count_param("sms", "SMs of the GPU", sw.MAX_SMS),
            count_param("channels", "SMs NCCL's channels hold", sw.MAX_SMS, minimum=0),
            count_param("tile_m", "tile rows", 1024, default=128),
            count_param("tile_n", "tile columns", 1024, default=256),
        ],
        fields=[
            Field("utilisation", R, "busy share of SM-time on every SM: tiles / (waves × SMs)"),
            Field("free_channels", C, "SMs NCCL may hold without adding a wave"),
            Field("tiles", C, "output tiles (CTAs)"),
            Field("waves_alone", C, "makespan in tile times on every SM"),
            Field("waves_shared", C, "makespan beside the NCCL kernel"),
            Field("slowdown", R, "waves_shared / waves_alone"),
            Field("sm_ratio", R, "SMs / (SMs − channels)"),
            Field("last_wave_tiles", C, "tiles in the last wave beside NCCL"),
        ],
    )
