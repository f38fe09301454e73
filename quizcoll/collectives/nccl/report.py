"""NCCL model results as plain data (seconds, bytes/s): what ``sim --model nccl --json``
prints and what the card executables return."""

from __future__ import annotations

from typing import Any

from quizcoll.collectives import hardware
from quizcoll.collectives.nccl.choose import Choice, busbw_factor
from quizcoll.collectives.nccl.search import Graph, Graphs
from quizcoll.collectives.nccl.topology import Topology
from quizcoll.collectives.nccl.tuner import Estimate

NCCL_VERSION = "2.30.7"
_GB = 1e9  # the model's GB/s → bytes/s
_US = 1e-6


def estimate_doc(e: Estimate) -> dict[str, Any]:
    """One candidate: its time (null when unavailable) and why it costs that."""
    available = e.entry.available
    return {
        "algorithm": e.entry.algorithm.value,
        "protocol": e.entry.protocol.value,
        "available": available,
        "reason": e.entry.reason or None,
        "time_s": e.time_us * _US if available else None,
        "latency_s": e.latency_us * _US if available else None,
        "bandwidth": e.bandwidth * _GB if available else None,
        "bus_bandwidth": e.entry.bus_bandwidth * _GB if available else None,
        "channels": e.entry.channels if available else None,
        "corrections": list(e.corrections),
    }


def _graph_doc(g: Graph | None) -> dict[str, Any] | None:
    if g is None:
        return None
    return {
        "pattern": g.pattern.name.lower(),
        "channels": g.channels,
        "bw_intra": g.bw_intra * _GB,
        "bw_inter": g.bw_inter * _GB,
    }


def graphs_doc(g: Graphs) -> dict[str, Any]:
    """The searched graphs (per-channel bandwidths in bytes/s)."""
    return {
        "ring": _graph_doc(g.ring),
        "tree": _graph_doc(g.tree),
        "nvls": _graph_doc(g.nvls),
        "collnet_direct": _graph_doc(g.collnet_direct),
        "collnet_chain": _graph_doc(g.collnet_chain),
        "comm_channels": g.comm_channels,
    }


def topology_doc(t: Topology) -> dict[str, Any]:
    nvlink = t.gpu.nvlink
    return {
        "gpu": t.gpu.name,
        "nodes": t.nodes,
        "gpus_per_node": t.gpus_per_node,
        "ranks": t.ranks,
        "nic": t.nic.name,
        "nics_per_node": t.nics_per_node,
        "pcie": t.pcie.name,
        "cpu": t.cpu.value,
        "sharp": t.sharp,
        "nvlink_nccl_bw": nvlink.nccl_bw * _GB if nvlink else None,
        "nvlink_line_rate": nvlink.line_rate * _GB if nvlink else None,
        "nic_nccl_bw": t.nic.nccl_bw * _GB,
        "nic_line_rate": t.nic.line_rate * _GB,
        "pcie_nccl_bw": t.pcie.nccl_bw * _GB,
        "pcie_line_rate": t.pcie.line_rate * _GB,
        "nic_path_bw": t.nic_path_bw * _GB,
    }


def choice_doc(c: Choice) -> dict[str, Any]:
    """NCCL's pick, its nccl-tests bandwidths, and every candidate, fastest first."""
    best = c.best
    return {
        "model": "nccl",
        "nccl_version": NCCL_VERSION,
        "collective": c.func.value,
        "message_bytes": c.nbytes,
        "algorithm": best.entry.algorithm.value,
        "protocol": best.entry.protocol.value,
        "time_s": c.time_s,
        "algbw": c.algbw,
        "busbw": c.busbw,
        "busbw_factor": busbw_factor(c.func, c.topology.ranks),
        "latency_s": best.latency_us * _US,
        "bandwidth": best.bandwidth * _GB,
        "bus_bandwidth": best.entry.bus_bandwidth * _GB,
        "channels": best.entry.channels,
        "corrections": list(best.corrections),
        **topology_doc(c.topology),
        "candidates": [estimate_doc(e) for e in c.candidates],
        "graphs": graphs_doc(c.graphs),
    }


def link_doc(name: str) -> dict[str, Any]:
    """A link's line rate against NCCL's figure (bytes/s per direction)."""
    f = hardware.link_figures(name)
    return {
        "link": f.name,
        "kind": f.kind,
        "line_rate": f.line_rate * _GB,
        "nccl_bw": f.nccl_bw * _GB,
        "nccl_over_line": f.nccl_over_line,
        "measured_low": f.measured_low * _GB if f.measured_low else None,
        "measured_high": f.measured_high * _GB if f.measured_high else None,
        "source": f.source,
        "generation": f.generation,
        "lanes": f.lanes,
        "lane_line_rate": f.lane_line_rate * _GB,
        "lane_nccl_bw": f.lane_nccl_bw * _GB,
        "raw_rate": f.raw_rate * _GB,
        "pcie_nccl_bw": f.pcie_nccl_bw * _GB,
    }
