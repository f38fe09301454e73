"""Hardware executables for the hardware cards: how long bytes take over a link or through a
GPU's memory.

- ``hardware.transfer``: ``size`` bytes over ``count`` links of one kind (a GPU's NVLink, a
  PCIe x16 generation, an InfiniBand NIC) in one direction, at the line rate, at the rate
  before line encoding, and at the bandwidth NCCL assumes (``quizcoll.collectives.hardware``);
- ``hardware.hbm``: one pass over ``size`` bytes of a GPU's memory at its datasheet bandwidth
  (``quizcoll.memory.gpus.COMPUTE``) — the floor under every memory-bound kernel.

Both are pure lookups and divisions; nothing here imports numpy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from deck.units import format_bytes_both, format_rate, format_seconds
from quizcoll.executables.common import count_param, guard
from quizcoll.executables.nccl import LINKS
from quizcoll.memory.gpus import compute_specs, find_gpu, gpu_names

GB = 1e9
MAX_SIZE = 2**50
MAX_COUNT = 64  # links side by side: a node's NICs, a GPU's NVLink bundle


def transfer(link: str, size: int, count: int = 1) -> dict[str, Any]:
    """``size`` bytes over ``count`` parallel links of kind ``link``, one direction."""
    from quizcoll.collectives import hardware

    try:
        f = hardware.link_figures(link)
    except hardware.HardwareError as exc:
        raise ArgumentError(str(exc)) from None
    line, nccl, raw = (count * x * GB for x in (f.line_rate, f.nccl_bw, f.raw_rate))
    return {
        "time_s": size / line,
        "nccl_time_s": size / nccl,
        "raw_time_s": size / raw,
        "bandwidth": line,
        "nccl_bandwidth": nccl,
        "raw_bandwidth": raw,
        "kind": f.kind,
    }


def _explain_transfer(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    links = f"{args['count']} × {args['link']}" if args["count"] > 1 else args["link"]
    return (
        f"{format_bytes_both(args['size'])} over {links} ({r['kind']}): at the line rate "
        f"{format_rate(r['bandwidth'])} **{format_seconds(r['time_s'])}**; at the "
        f"{format_rate(r['nccl_bandwidth'])} NCCL assumes {format_seconds(r['nccl_time_s'])}."
    )


def hbm(gpu: str, size: int) -> dict[str, Any]:
    """One pass over ``size`` bytes of a GPU's memory at its datasheet bandwidth."""
    bandwidth = compute_specs(find_gpu(gpu)).hbm_bandwidth
    return {"time_s": size / bandwidth, "bandwidth": bandwidth, "passes_per_s": bandwidth / size}


def _explain_hbm(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{format_bytes_both(args['size'])} at {format_rate(r['bandwidth'])}: "
        f"**{format_seconds(r['time_s'])}** per pass, {r['passes_per_s']:,.1f} passes per second."
    )


def register(registry: Registry) -> None:
    size = Param("size", ParamKind.BYTES, "bytes to move", minimum=1, maximum=MAX_SIZE)
    registry.add_function(
        "hardware.transfer",
        transfer,
        params=[
            Param("link", ParamKind.STR, "GPU NVLink, PCIe generation or NIC", choices=LINKS),
            size,
            count_param("count", "links of that kind side by side", MAX_COUNT, default=1),
        ],
        fields=[
            Field("time_s", Dimension.SECONDS, "at the line rate"),
            Field("nccl_time_s", Dimension.SECONDS, "at the bandwidth NCCL assumes"),
            Field("raw_time_s", Dimension.SECONDS, "at the rate before line encoding"),
            Field("bandwidth", Dimension.RATE, "count × line rate"),
            Field("nccl_bandwidth", Dimension.RATE, "count × NCCL's figure"),
            Field("raw_bandwidth", Dimension.RATE, "count × the rate before line encoding"),
            Field("kind", Dimension.TEXT, "nvlink, pcie or nic"),
        ],
        explain=_explain_transfer,
    )
    registry.add_function(
        "hardware.hbm",
        guard(hbm),
        params=[Param("gpu", ParamKind.STR, "GPU", choices=gpu_names()), size],
        fields=[
            Field("time_s", Dimension.SECONDS, "one pass over size bytes"),
            Field("bandwidth", Dimension.RATE, "the GPU's memory bandwidth"),
            Field("passes_per_s", Dimension.RATIO, "bandwidth / size"),
        ],
        explain=_explain_hbm,
    )
