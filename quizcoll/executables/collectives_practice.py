"""Collectives in practice, for cards: what gradient compression sends, the bandwidths
nccl-tests prints for a measured time, and what a straggler costs a synchronous step.

- ``compression.powersgd`` and ``compression.cast``: bytes a compressed gradient
  all-reduce sends (PowerSGD's P and Q; a bf16/fp16 cast hook), counted on ring schedules;
- ``nccltests.bandwidth``: algbw and busbw of a measured time, as nccl-tests prints them;
- ``collectives.straggler``: a synchronous collective waits for its last rank.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from deck.units import format_bytes, format_number, format_rate, format_seconds
from quizcoll.executables.collectives import DTYPE_NAMES, MAX_RANKS, _guard, cost

B, C, R, S = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.SECONDS


# ----------------------------------------------------------------------------- compression


def _ring_bytes(elements: int, ranks: int, dtype: str) -> int:
    from quizcoll.collectives import get_dtype

    size = elements * get_dtype(dtype).itemsize
    r = cost("all_reduce", "ring", ranks, size, dtype, 0, "nvlink", None, None)
    return int(r["max_bytes_sent"])


def powersgd(rows: int, cols: int, rank: int, gpus: int, dtype: str) -> dict[str, Any]:
    """PowerSGD (Vogels et al. 2019) on one rows × cols gradient: all-reduce P = M·Q
    (rows × rank) and then Q = Mᵀ·P (cols × rank) instead of M."""
    if rank > min(rows, cols):
        raise ArgumentError(f"rank: {rank} is more than min(rows, cols) = {min(rows, cols)}")
    dense = rows * cols
    p, q = rows * rank, cols * rank
    dense_bytes = _ring_bytes(dense, gpus, dtype)
    compressed_bytes = _ring_bytes(p, gpus, dtype) + _ring_bytes(q, gpus, dtype)
    return {
        "dense_elements": dense,
        "compressed_elements": p + q,
        "ratio": (p + q) / dense,
        "dense_bytes_per_gpu": dense_bytes,
        "compressed_bytes_per_gpu": compressed_bytes,
        "bytes_ratio": compressed_bytes / dense_bytes,
    }


def explain_powersgd(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**PowerSGD rank {args['rank']} on a {args['rows']} × {args['cols']} gradient:** "
        f"P and Q hold {format_number(result['compressed_elements'])} values instead of "
        f"{format_number(result['dense_elements'])} (×{format_number(result['ratio'], 4)}); "
        f"a ring all-reduce sends {format_bytes(result['compressed_bytes_per_gpu'])} per GPU "
        f"instead of {format_bytes(result['dense_bytes_per_gpu'])}."
    )


def explain_cast(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**{args['wire_dtype']} on the wire:** a ring all-reduce of "
        f"{format_number(args['elements'])} values on {args['gpus']} GPUs sends "
        f"{format_bytes(result['wire_bytes_per_gpu'])} per GPU instead of "
        f"{format_bytes(result['bytes_per_gpu'])} in {args['dtype']} "
        f"(×{format_number(result['bytes_ratio'])})."
    )


def cast(elements: int, gpus: int, dtype: str, wire_dtype: str) -> dict[str, Any]:
    """A cast hook (DDP's bf16/fp16 compress hook): the all-reduce runs in ``wire_dtype``."""
    full = _ring_bytes(elements, gpus, dtype)
    wire = _ring_bytes(elements, gpus, wire_dtype)
    return {"bytes_per_gpu": full, "wire_bytes_per_gpu": wire, "bytes_ratio": wire / full}


# ----------------------------------------------------------------------------- nccl-tests


def nccltests_bandwidth(collective: str, ranks: int, size: int, time: float) -> dict[str, Any]:
    """algbw and busbw of a measured ``time``, as nccl-tests computes them (size: a rank's
    input; S is the larger of input and output, so ranks × size for all_gather)."""
    from quizcoll.collectives import get_collective
    from quizcoll.collectives.cost import bandwidths, busbw_factor, message_bytes

    c = get_collective(collective)
    algbw, busbw = bandwidths(c, ranks, size, time)
    return {
        "message_bytes": message_bytes(c, ranks, size),
        "algbw": algbw or 0.0,
        "busbw": busbw or 0.0,
        "busbw_factor": busbw_factor(c, ranks),
    }


def explain_nccltests(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**{args['collective']} on {args['ranks']} ranks in "
        f"{format_seconds(args['time'])}:** S = {format_bytes(result['message_bytes'])}, "
        f"algbw = S / time = {format_rate(result['algbw'])}, busbw = algbw × "
        f"{format_number(result['busbw_factor'])} = **{format_rate(result['busbw'])}**."
    )


# ----------------------------------------------------------------------------- stragglers


def straggler(ranks: int, slow: int, compute: float, delay: float, comm: float) -> dict[str, Any]:
    """One synchronous step: every rank computes for ``compute`` seconds (``slow`` of them
    ``delay`` longer), then an all-reduce of ``comm`` seconds starts once the last arrives."""
    if slow > ranks:
        raise ArgumentError(f"slow: {slow} stragglers among {ranks} ranks")
    arrivals = [compute + (delay if r < slow else 0.0) for r in range(ranks)]
    start = max(arrivals)
    step = start + comm
    idle = sum(start - a for a in arrivals)
    return {
        "step_time_s": step,
        "idle_gpu_seconds": idle,
        "idle_fraction": idle / (ranks * step),
        "slowdown": step / (compute + comm),
    }


def explain_straggler(args: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    return (
        f"**{args['slow']} of {args['ranks']} ranks {format_seconds(args['delay'])} late:** "
        f"the collective starts when the last arrives, so the step takes "
        f"{format_seconds(result['step_time_s'])} and the others wait "
        f"{format_seconds(result['idle_gpu_seconds'])} in all, "
        f"{format_number(100 * result['idle_fraction'])}% of the GPU time."
    )


# ----------------------------------------------------------------------------- registry


def _ranks(maximum: int = MAX_RANKS) -> Param:
    return Param("ranks", ParamKind.INT, "number of ranks N", minimum=2, maximum=maximum)


def _size(help: str) -> Param:
    return Param("size", ParamKind.BYTES, help, minimum=1, maximum=2**50)


def register(registry: Registry) -> None:
    dtype = Param("dtype", ParamKind.STR, "gradient type", choices=DTYPE_NAMES, default="float32")
    registry.add_function(
        "compression.powersgd",
        _guard(powersgd),
        params=[
            Param("rows", ParamKind.INT, "gradient rows m", minimum=1, maximum=1_000_000),
            Param("cols", ParamKind.INT, "gradient columns n", minimum=1, maximum=1_000_000),
            Param("rank", ParamKind.INT, "PowerSGD rank r", minimum=1, maximum=1_000_000),
            Param("gpus", ParamKind.INT, "data-parallel GPUs", minimum=2, maximum=MAX_RANKS),
            dtype,
        ],
        fields=[
            Field("dense_elements", C, "m·n"),
            Field("compressed_elements", C, "(m + n)·r: P and Q"),
            Field("ratio", R, "compressed ÷ dense elements"),
            Field("dense_bytes_per_gpu", B, "ring all-reduce of the gradient"),
            Field("compressed_bytes_per_gpu", B, "ring all-reduces of P and Q"),
            Field("bytes_ratio", R, "compressed ÷ dense bytes"),
        ],
        explain=explain_powersgd,
    )
    registry.add_function(
        "compression.cast",
        _guard(cast),
        params=[
            Param("elements", ParamKind.INT, "gradient elements", minimum=1, maximum=2**40),
            Param("gpus", ParamKind.INT, "data-parallel GPUs", minimum=2, maximum=MAX_RANKS),
            dtype,
            Param("wire_dtype", ParamKind.STR, "type on the wire", choices=DTYPE_NAMES),
        ],
        fields=[
            Field("bytes_per_gpu", B, "ring all-reduce in dtype"),
            Field("wire_bytes_per_gpu", B, "ring all-reduce in wire_dtype"),
            Field("bytes_ratio", R, "wire ÷ full bytes"),
        ],
        explain=explain_cast,
    )
    registry.add_function(
        "nccltests.bandwidth",
        _guard(nccltests_bandwidth),
        params=[
            Param(
                "collective",
                ParamKind.STR,
                "the collective",
                choices=(
                    "all_reduce",
                    "all_gather",
                    "reduce_scatter",
                    "all_to_all",
                    "broadcast",
                    "reduce",
                ),
            ),
            _ranks(131_072),
            _size("a rank's input buffer"),
            Param("time", ParamKind.SECONDS, "measured time", minimum=1e-9, maximum=1e6),
        ],
        fields=[
            Field("message_bytes", B, "S: the larger of a rank's input and output"),
            Field("algbw", Dimension.RATE, "S ÷ time"),
            Field("busbw", Dimension.RATE, "algbw × factor"),
            Field("busbw_factor", R, "2(n−1)/n, (n−1)/n or 1"),
        ],
        explain=explain_nccltests,
    )
    registry.add_function(
        "collectives.straggler",
        straggler,
        params=[
            _ranks(1_000_000),
            Param("slow", ParamKind.INT, "ranks that arrive late", minimum=0, maximum=1_000_000),
            Param("compute", ParamKind.SECONDS, "compute per step", minimum=0, maximum=1e4),
            Param(
                "delay", ParamKind.SECONDS, "how late the slow ranks are", minimum=0, maximum=1e4
            ),
            Param("comm", ParamKind.SECONDS, "the collective's time", minimum=0, maximum=1e4),
        ],
        fields=[
            Field("step_time_s", S, "last arrival + collective"),
            Field("idle_gpu_seconds", S, "waiting, summed over ranks"),
            Field("idle_fraction", R, "idle ÷ (ranks × step time)"),
            Field("slowdown", R, "step time ÷ the step without stragglers"),
        ],
        explain=explain_straggler,
    )
