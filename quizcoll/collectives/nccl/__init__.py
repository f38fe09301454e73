"""NCCL's own cost model: which algorithm and protocol NCCL picks, and how long it takes.

A reproduction of the tuner of one NCCL release, v2.30.7-1 (NVIDIA/nccl tag
``v2.30.7-1``, commit 73cf112: ``src/graph/tuning.cc``, ``search.cc``, ``topo.h``,
``connect.cc``, ``trees.cc`` and ``src/enqueue.cc``'s ``topoGetAlgoInfo``):

- :mod:`.constants`: the tuner's tables (latencies, bandwidth caps, speed arrays);
- :mod:`.topology`: :func:`topology` builds a :class:`Topology` from hardware presets
  (:mod:`quizcoll.collectives.hardware`) — nodes × GPUs per node, one NIC per GPU;
- :mod:`.search`: :func:`graphs`, the channel search (channels × GB/s per pattern);
- :mod:`.tuner`: :func:`entry` and :func:`estimate`, latency and bandwidth per
  (algorithm, protocol) pair;
- :mod:`.choose`: :func:`choose`, NCCL's pick and every candidate's time.

::

    from quizcoll.collectives.nccl import choose, topology
    c = choose("all_reduce", 2**30, topology("h100", nodes=1))
    c.best.entry.algorithm, c.best.entry.protocol, c.time_s, c.busbw

Everything is a pure function of frozen values; times are µs and bandwidths GB/s inside
the model (NCCL's units), seconds and bytes/s on :class:`Choice`.
"""

from __future__ import annotations

from quizcoll.collectives.nccl.choose import (
    MAX_BYTES,
    Choice,
    algorithm,
    busbw_factor,
    candidates,
    choose,
    func,
    protocol,
)
from quizcoll.collectives.nccl.constants import Algorithm, Arch, Func, Protocol
from quizcoll.collectives.nccl.search import Graph, Graphs, Pattern, graphs
from quizcoll.collectives.nccl.topology import (
    MAX_NODES,
    MAX_RANKS,
    NcclModelError,
    Topology,
    topology,
)
from quizcoll.collectives.nccl.tuner import Entry, Estimate, entry, estimate, nsteps

__all__ = [
    "MAX_BYTES",
    "MAX_NODES",
    "MAX_RANKS",
    "Algorithm",
    "Arch",
    "Choice",
    "Entry",
    "Estimate",
    "Func",
    "Graph",
    "Graphs",
    "NcclModelError",
    "Pattern",
    "Protocol",
    "Topology",
    "algorithm",
    "busbw_factor",
    "candidates",
    "choose",
    "entry",
    "estimate",
    "func",
    "graphs",
    "nsteps",
    "protocol",
    "topology",
]
