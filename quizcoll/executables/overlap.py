"""Compute/communication overlap as executables (``overlap.*``): what a second stream hides.

``overlap.exposed`` is one transfer against independent compute; ``overlap.chunks`` times n
chunks on two streams (DDP-style draining, FSDP-style prefetching, collective matmul);
``overlap.ddp_buckets`` drains DDP's gradient buckets, each all-reduce timed by the collective
simulator's ring. Every figure comes from the timeline in :mod:`quizcoll.systems.overlap`;
the closed forms (max(0, c − g) per chunk) are what cards check it against.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Field, Param, ParamKind, Registry
from quizcoll.executables.common import R, S, count_param, guard, num
from quizcoll.systems import overlap as ov

MAX_SECONDS = 3600.0


def _seconds(name: str, help: str, *, default: Any = None, required: bool = True) -> Param:
    if required:
        return Param(name, ParamKind.SECONDS, help, minimum=0, maximum=MAX_SECONDS)
    return Param(name, ParamKind.SECONDS, help, minimum=0, maximum=MAX_SECONDS, default=default)


def _fields(run: ov.Overlap) -> dict[str, Any]:
    return {
        "makespan_s": run.makespan,
        "compute_s": run.compute,
        "comm_s": run.comm,
        "exposed_s": run.exposed,
        "serial_s": run.serial,
        "speedup": run.speedup,
        "hidden_fraction": run.hidden_fraction,
    }


_FIELDS = [
    Field("makespan_s", S, "time from the first kernel to the last, overlapped"),
    Field("compute_s", S, "compute time of all chunks"),
    Field("comm_s", S, "communication time of all transfers"),
    Field("exposed_s", S, "communication compute does not hide: makespan − compute"),
    Field("serial_s", S, "the same kernels without overlap"),
    Field("speedup", R, "serial time over overlapped time"),
    Field("hidden_fraction", R, "share of the communication hidden behind compute"),
]


def exposed(compute: float, comm: float) -> dict[str, Any]:
    """One transfer overlapped with independent compute: exposed = max(0, comm − compute)."""
    left = ov.exposed(compute, comm)
    return {
        "exposed_s": left,
        "overlapped_s": compute + left,
        "serial_s": compute + comm,
        "hidden_fraction": 1 - left / comm if comm else 1.0,
    }


def _explain_exposed(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{num(args['comm'])} s of communication beside {num(args['compute'])} s of compute: "
        f"max(0, comm − compute) = **{num(r['exposed_s'])} s exposed**; the step takes "
        f"{num(r['overlapped_s'])} s instead of {num(r['serial_s'])} s."
    )


def chunks(
    pattern: str, chunks: int, compute: float, comm: float, depth: int = 1
) -> dict[str, Any]:
    """n chunks of compute and communication on two streams: drain, prefetch or local-first."""
    return _fields(ov.simulate(ov.Pattern(pattern), chunks, compute, comm, depth))


def _explain_chunks(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    n, g, c = args["chunks"], args["compute"], args["comm"]
    return (
        f"{args['pattern']}: {n} chunks of {num(g)} s compute and {num(c)} s communication, "
        f"timed on two streams: **{num(r['makespan_s'])} s**, of which "
        f"{num(r['exposed_s'])} s is exposed communication (serial: {num(r['serial_s'])} s)."
    )


def ddp_buckets(
    backward: float,
    bucket: int,
    buckets: int,
    ranks: int,
    link: str = "nvlink",
    latency: float | None = None,
    bandwidth: float | None = None,
) -> dict[str, Any]:
    """DDP: k fp32 gradient buckets, each ring-all-reduced as soon as backward produces it."""
    from quizcoll.executables.collectives import cost

    one = cost(
        collective="all_reduce",
        algorithm="ring",
        ranks=ranks,
        size=bucket,
        dtype="float32",
        root=0,
        link=link,
        latency=latency,
        bandwidth=bandwidth,
    )
    run = ov.simulate(ov.Pattern.DRAIN, buckets, backward / buckets, one["time_s"])
    return {"bucket_time_s": one["time_s"], **_fields(run)}


def _explain_ddp(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    k = args["buckets"]
    return (
        f"{k} buckets, one every {num(args['backward'] / k)} s of backward; each ring "
        f"all-reduce takes {num(r['bucket_time_s'])} s on one communication stream: the last "
        f"ends at {num(r['makespan_s'])} s, so **{num(r['exposed_s'])} s is exposed** "
        f"(serial: {num(r['serial_s'])} s)."
    )


def register(registry: Registry) -> None:
    compute = _seconds("compute", "compute time (per chunk for overlap.chunks)")
    comm = _seconds("comm", "communication time (per chunk for overlap.chunks)")
    registry.add_function(
        "overlap.exposed",
        guard(exposed),
        params=[compute, comm],
        fields=[
            Field("exposed_s", S, "max(0, comm − compute)"),
            Field("overlapped_s", S, "compute + exposed"),
            Field("serial_s", S, "compute + comm"),
            Field("hidden_fraction", R, "share of the communication hidden"),
        ],
        explain=_explain_exposed,
    )
    registry.add_function(
        "overlap.chunks",
        guard(chunks),
        params=[
            Param("pattern", ParamKind.STR, "who feeds whom", choices=ov.PATTERNS),
            count_param("chunks", "chunks n (buckets, units, shards)", ov.MAX_CHUNKS),
            compute,
            comm,
            count_param(
                "depth", "prefetch: transfers ahead of compute", ov.MAX_DEPTH, minimum=0, default=1
            ),
        ],
        fields=_FIELDS,
        explain=_explain_chunks,
    )
    registry.add_function(
        "overlap.ddp_buckets",
        guard(ddp_buckets),
        params=[
            _seconds("backward", "backward time that produces the gradients"),
            Param("bucket", ParamKind.BYTES, "bytes per bucket (fp32)", minimum=4, maximum=2**40),
            count_param("buckets", "buckets k", ov.MAX_CHUNKS),
            count_param("ranks", "data-parallel GPUs N", 1024, minimum=2),
            Param(
                "link",
                ParamKind.STR,
                "cost preset",
                choices=("nvlink", "infiniband"),
                default="nvlink",
            ),
            Param("latency", ParamKind.SECONDS, "α", minimum=0, maximum=1, default=None),
            Param(
                "bandwidth",
                ParamKind.RATE,
                "β per direction",
                minimum=1,
                maximum=1e15,
                default=None,
            ),
        ],
        fields=[Field("bucket_time_s", S, "one bucket's ring all-reduce"), *_FIELDS],
        explain=_explain_ddp,
    )
