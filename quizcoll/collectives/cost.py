"""The alpha-beta(-gamma) cost model and the nccl-tests bandwidth figures.

Every rank has one full-duplex port per link class. A round costs, for its busiest rank,
``α · messages + bytes / bandwidth`` (taking the larger of the sent and received side),
plus ``reduced bytes / reduce_rate`` for the combining work (γ = 1 / reduce_rate; off by
default). A message is all the blocks one rank sends one peer in a round; empty messages
cost nothing. With ``gpus_per_node`` and an ``inter`` link, transfers between nodes use
the inter-node link and the two classes run concurrently (NVLink and the NIC are
separate hardware). The total is the sum over rounds; rounds are not overlapped.
:mod:`.counting` prices a schedule's structure under this model.

Presets (per direction, per GPU) are NCCL's own figures (NVIDIA/nccl v2.30.7-1), so that an
α-β ring is NCCL's Ring/Simple model without its launch latency: ``nvlink`` — 370.8 GB/s
(an H100's 18 links × 20.6 GB/s, ``SM90_NVLINK_BW``; the "900 GB/s" line rate counts both
directions, and nccl-tests measure a ring busbw of ~370 GB/s), 3.4 µs per round (NCCL's
per-hop Ring/Simple latency on NVLink); ``infiniband`` — 50 GB/s (one 400 Gb/s NDR NIC,
``speed / 8000``; nccl-tests measure 46–48 GB/s), 14 µs per round (NCCL's per-hop
Ring/Simple latency over the network). :func:`per_nic_rings` prices a flat ring across
nodes as NCCL runs it: one ring per NIC, so the NICs' bandwidth adds up.

``algbw = S / time`` and ``busbw = algbw · factor`` as nccl-tests defines them, with S the
larger of a rank's input and output buffers (for all_gather and gather, N × the
per-rank input).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from quizcoll.collectives.errors import CollectiveError, did_you_mean
from quizcoll.collectives.semantics import Collective
from quizcoll.memory.figures import printed, table


@dataclass(frozen=True)
class LinkModel:
    """One link class: latency per message (α) and bandwidth per direction (1/β)."""

    name: str
    latency_s: float
    bandwidth: float  # bytes per second

    def __post_init__(self) -> None:
        if not (self.latency_s >= 0 and np.isfinite(self.latency_s)):
            raise CollectiveError(f"latency must be ≥ 0 seconds, got {self.latency_s}")
        if not (self.bandwidth > 0 and np.isfinite(self.bandwidth)):
            raise CollectiveError(f"bandwidth must be > 0 bytes/s, got {self.bandwidth}")


def _ring_simple_hop_s(level: str) -> float:
    """NCCL's per-hop Ring/Simple latency at ``level`` (``nvlink``, ``net``), in seconds."""
    return table("nccl", f"nccl_{level}", "µs")["ring"][2] / 1e6  # columns LL, LL128, Simple


# Each figure is a quoted record of quizcoll/data (nccl.yaml's hwLatencies tables; links.yaml's
# NVLink count and SM90_NVLINK_BW, and the NDR NIC's 50 GB/s), read here, not copied.
PRESETS: dict[str, LinkModel] = {
    "nvlink": LinkModel(
        "nvlink",
        _ring_simple_hop_s("nvlink"),
        printed("links", "h100_nvlink_links") * printed("links", "h100_nccl_link_bw", "GB/s") * 1e9,
    ),
    "infiniband": LinkModel(
        "infiniband",
        _ring_simple_hop_s("net"),
        printed("links", "infiniband_bandwidth", "GB/s") * 1e9,
    ),
}


def get_preset(name: str) -> LinkModel:
    try:
        return PRESETS[name.strip().lower()]
    except KeyError:
        raise CollectiveError(
            f"unknown link preset {name!r}; choose one of {', '.join(PRESETS)}"
            f"{did_you_mean(name, PRESETS)}"
        ) from None


def with_overrides(
    preset: str, latency_s: float | None = None, bandwidth: float | None = None
) -> LinkModel:
    """The ``preset`` link, or a copy named ``"<preset> (custom)"`` with the latency and/or
    bandwidth given in its place."""
    link = get_preset(preset)
    if latency_s is None and bandwidth is None:
        return link
    return LinkModel(
        f"{link.name} (custom)",
        link.latency_s if latency_s is None else latency_s,
        link.bandwidth if bandwidth is None else bandwidth,
    )


@dataclass(frozen=True)
class CostModel:
    """Link classes and optional reduction cost. ``inter`` applies between nodes of
    ``gpus_per_node`` ranks; without it every transfer uses ``link``."""

    link: LinkModel = PRESETS["nvlink"]
    inter: LinkModel | None = None
    gpus_per_node: int | None = None
    reduce_rate: float | None = None  # bytes/s of combining; None: free (γ = 0)

    def __post_init__(self) -> None:
        if (self.inter is None) != (self.gpus_per_node is None):
            raise CollectiveError("an inter-node link needs gpus_per_node, and vice versa")
        if self.gpus_per_node is not None and self.gpus_per_node < 1:
            raise CollectiveError("gpus_per_node must be at least 1")
        if self.reduce_rate is not None and not self.reduce_rate > 0:
            raise CollectiveError("reduce_rate must be > 0 bytes/s")


def per_nic_rings(model: CostModel) -> CostModel:
    """``model`` for a flat ring over all nodes as NCCL lays it out: one ring per NIC
    (``gpus_per_node`` of them, one NIC per GPU), each carrying 1/``gpus_per_node`` of the
    data and leaving the node through its own NIC. A round's node-crossing bytes then
    spread over every NIC: the inter link is ``gpus_per_node`` NICs wide. Unchanged
    without an inter-node link."""
    if model.inter is None or model.gpus_per_node is None:
        return model
    nics = model.gpus_per_node
    wide = LinkModel(
        f"{model.inter.name} × {nics} NICs", model.inter.latency_s, model.inter.bandwidth * nics
    )
    return replace(model, inter=wide)


def message_bytes(collective: Collective, ranks: int, input_bytes: int) -> int:
    """nccl-tests' size S: the larger of a rank's input and output buffers."""
    if collective in (Collective.ALL_GATHER, Collective.GATHER):
        return ranks * input_bytes
    return input_bytes


def busbw_factor(collective: Collective, ranks: int) -> float:
    """nccl-tests' bus-bandwidth factor: 2(n−1)/n for all_reduce, (n−1)/n for
    reduce_scatter, all_gather, all_to_all, gather and scatter, 1 for broadcast, reduce."""
    if collective in (Collective.BROADCAST, Collective.REDUCE):
        return 1.0
    share = (ranks - 1) / ranks
    return 2 * share if collective is Collective.ALL_REDUCE else share


def bandwidths(
    collective: Collective, ranks: int, input_bytes: int, time_s: float
) -> tuple[float | None, float | None]:
    """``(algbw, busbw)`` in bytes/s; None when the modelled time is zero (one rank)."""
    if time_s <= 0:
        return None, None
    algbw = message_bytes(collective, ranks, input_bytes) / time_s
    return algbw, algbw * busbw_factor(collective, ranks)
