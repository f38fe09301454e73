"""A sweep of sizes on a real backend, printed as nccl-tests prints it.

:func:`sweep_counts` picks the sizes (doubling from ``min_bytes`` to ``max_bytes``, as
``-b MIN -e MAX -f 2``), each rounded up to what the collective can split;
:func:`nccl_tests_text` lays the measurements out in nccl-tests' table — the ``# nThread``
header, one ``#  Rank`` line per rank (its pid and host), the column header, one row per
size with nccl-tests' ``size`` (the per-rank buffer; all-gather's output), algbw = size /
time and busbw = algbw × nccl-tests' factor — so that ``quizcoll calibrate`` reads it
back. torch.distributed runs all_reduce, broadcast and reduce in place only, so their
out-of-place columns repeat the in-place timing (a header line says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quizcoll.collectives.backends import Measurement
from quizcoll.collectives.semantics import Collective

MAX_SIZES = 64
NCCL_TESTS_TYPES = {
    "float32": "float",
    "float16": "half",
    "float64": "double",
    "bfloat16": "bfloat16",
    "int8": "int8",
    "uint8": "uint8",
    "int32": "int32",
    "int64": "int64",
}
BINARY = {
    Collective.ALL_REDUCE: "all_reduce_perf",
    Collective.ALL_GATHER: "all_gather_perf",
    Collective.REDUCE_SCATTER: "reduce_scatter_perf",
    Collective.ALL_TO_ALL: "alltoall_perf",
    Collective.BROADCAST: "broadcast_perf",
    Collective.REDUCE: "reduce_perf",
    Collective.GATHER: "gather_perf",
    Collective.SCATTER: "scatter_perf",
}
IN_PLACE_ONLY = (Collective.ALL_REDUCE, Collective.BROADCAST, Collective.REDUCE)


@dataclass(frozen=True)
class SweepRow:
    size: int  # nccl-tests' size column, bytes
    count: int  # elements per rank's input (what the run used)
    measurement: Measurement
    model_s: float | None = None  # a model's time beside it (printed as a comment)


def busbw_factor(collective: Collective, ranks: int) -> float:
    """nccl-tests' factor (``doc/PERFORMANCE.md``)."""
    n = ranks
    if collective is Collective.ALL_REDUCE:
        return 2 * (n - 1) / n
    if collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER, Collective.ALL_TO_ALL):
        return (n - 1) / n
    return 1.0


def _unit(collective: Collective, ranks: int) -> int:
    """Elements a per-rank input count must be a multiple of."""
    if collective in (Collective.REDUCE_SCATTER, Collective.SCATTER, Collective.ALL_TO_ALL):
        return ranks
    return 1


def size_of(collective: Collective, count: int, itemsize: int, ranks: int) -> int:
    """nccl-tests' ``size`` for a per-rank input of ``count`` elements."""
    if collective in (Collective.ALL_GATHER, Collective.GATHER):
        return count * itemsize * ranks
    return count * itemsize


def sweep_counts(
    collective: Collective, min_bytes: int, max_bytes: int, itemsize: int, ranks: int
) -> list[int]:
    """Per-rank input counts of the sweep: nccl-tests sizes doubling from ``min_bytes``
    to ``max_bytes``, each rounded up to a count the collective can split (distinct)."""
    if not 1 <= min_bytes <= max_bytes:
        raise ValueError("the sweep needs 1 ≤ MIN ≤ MAX bytes")
    unit = _unit(collective, ranks)
    per = ranks if collective in (Collective.ALL_GATHER, Collective.GATHER) else 1
    counts: list[int] = []
    size = min_bytes
    while size <= max_bytes:
        elems = -(-size // (itemsize * per))
        count = -(-elems // unit) * unit
        if not counts or count > counts[-1]:
            counts.append(count)
        if len(counts) > MAX_SIZES:
            raise ValueError(f"a sweep has at most {MAX_SIZES} sizes")
        size *= 2
    return counts


def _time(us: float) -> str:
    if us >= 10_000:
        return f"{us:7.0f}"
    if us >= 100:
        return f"{us:7.1f}"
    return f"{us:7.2f}"


def nccl_tests_text(
    collective: Collective,
    dtype: str,
    op: str,
    root: int,
    rows: Sequence[SweepRow],
    *,
    backend: str,
    model_name: str | None = None,
) -> str:
    """The sweep as nccl-tests prints it (see the module docstring)."""
    first = rows[0].measurement
    ranks = first.ranks
    factor = busbw_factor(collective, ranks)
    kind = NCCL_TESTS_TYPES.get(dtype, dtype)
    reduces = collective in (Collective.ALL_REDUCE, Collective.REDUCE, Collective.REDUCE_SCATTER)
    redop = op if reduces else "none"
    rooted = collective in (
        Collective.BROADCAST,
        Collective.REDUCE,
        Collective.GATHER,
        Collective.SCATTER,
    )
    where = -1 if not rooted else root
    lo, hi = rows[0].size, rows[-1].size
    lines = [
        f"# quizcoll sim --backend {backend}: {BINARY[collective]}-like sweep on torch "
        f"{first.torch_version} ({first.device}, {first.launch})",
        f"# nThread 1 nGpus 1 minBytes {lo} maxBytes {hi} step: 2(factor) warmup iters: "
        f"{first.warmup} iters: {first.iters} agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    for rank, (pid, host) in enumerate(first.members or [[0, "localhost"]] * ranks):
        lines.append(
            f"#  Rank {rank:2d} Group  0 Pid {pid:6d} on {host:>10} device  0 [{first.device}] "
            f"{backend} {first.device.upper()}"
        )
    if collective in IN_PLACE_ONLY:
        lines.append(
            f"# torch.distributed runs {collective.value} in place: the out-of-place "
            "columns repeat the in-place run"
        )
    lines += [
        "#",
        "#                                                              out-of-place"
        "                       in-place          ",
        "#       size         count      type   redop    root     time   algbw   busbw "
        "#wrong     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
        "            (us)  (GB/s)  (GB/s)       ",
    ]
    for row in rows:
        m = row.measurement
        us = m.time_s * 1e6
        algbw = row.size / (us * 1e3)
        busbw = algbw * factor
        wrong = "N/A" if m.matches is None else ("0" if m.matches else "1")
        group = f"{_time(us)} {algbw:7.2f} {busbw:7.2f} {wrong:>6}"
        lines.append(
            f"{row.size:12d} {row.count:13d} {kind:>9} {redop:>7} {where:>7} {group} {group}"
        )
    avg = sum(r.size / (r.measurement.time_s * 1e9) * factor for r in rows) / len(rows)
    lines += ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {avg:g} ", "#"]
    modelled = [r for r in rows if r.model_s is not None]
    if modelled:
        lines.append(f"# model ({model_name}) against the measurement, per size:")
        for r in modelled:
            ratio = r.measurement.time_s / r.model_s if r.model_s else float("nan")
            lines.append(
                f"#   {r.size:12d} B   model {r.model_s * 1e6:12.2f} us   measured "
                f"{r.measurement.time_s * 1e6:12.2f} us   measured/model {ratio:8.3f}"
            )
    return "\n".join(lines)
