"""NCCL's tuner constants and names, as the release v2.30.7-1 defines them.

Source: NVIDIA/nccl tag ``v2.30.7-1`` (commit 73cf112; makefiles/version.mk 2.30.7):

- ``src/graph/tuning.cc``: ``ncclTunerConstantsDefaults`` (base and per-hop latencies,
  the LL/LL128/Tree/NVLSTree bandwidth caps), ``nvlsEfficiency``, ``getNetOverhead`` and
  ``treeCorrectionFactor``;
- ``src/graph/search.cc``: the speed arrays the channel search walks
  (``speedArrayIntra/Inter``, ``sm90SpeedArray*``, ``sm100SpeedArray*``);
- ``src/include/device.h``: ``MAXCHANNELS``, ``NCCL_MAX_NVLS_ARITY``,
  ``NCCL_MAX_DIRECT_ARITY``.

Latencies are µs, bandwidths GB/s, as in NCCL. Tables are keyed by enums, never by the
C arrays' positions, so a lookup reads as what it means.
"""

from __future__ import annotations

import enum

from quizcoll.collectives.hardware import CpuVendor


class Algorithm(enum.Enum):
    """NCCL's algorithms (``ncclAlgoStr``)."""

    TREE = "Tree"
    RING = "Ring"
    COLLNET_DIRECT = "CollNetDirect"
    COLLNET_CHAIN = "CollNetChain"
    NVLS = "NVLS"
    NVLS_TREE = "NVLSTree"
    PAT = "PAT"


class Protocol(enum.Enum):
    """NCCL's protocols (``ncclProtoStr``): LL and LL128 trade bandwidth for latency."""

    LL = "LL"
    LL128 = "LL128"
    SIMPLE = "Simple"


class Func(enum.Enum):
    """The collectives NCCL's tuner prices (``ncclFunc_t``); values are quizcoll's names."""

    BROADCAST = "broadcast"
    REDUCE = "reduce"
    ALL_GATHER = "all_gather"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_REDUCE = "all_reduce"


class Arch(enum.Enum):
    """NCCL's compute-capability index (``ncclTuningGetCompCapIndex``)."""

    VOLTA = "volta"
    AMPERE = "ampere"
    HOPPER = "hopper"
    BLACKWELL = "blackwell"

    @classmethod
    def of(cls, compute_capability: int) -> Arch:
        if compute_capability >= 100:
            return cls.BLACKWELL
        if compute_capability >= 90:
            return cls.HOPPER
        if compute_capability >= 80:
            return cls.AMPERE
        return cls.VOLTA


class Hw(enum.Enum):
    """The hardware level a latency is charged at (``NCCL_HW_NVLINK/PCI/NET``)."""

    NVLINK = "nvlink"
    PCI = "pci"
    NET = "net"


A, P = Algorithm, Protocol
_LL, _LL128, _S = P.LL, P.LL128, P.SIMPLE


def _row(ll: float, ll128: float, simple: float) -> dict[Protocol, float]:
    return {_LL: ll, _LL128: ll128, _S: simple}


# baseLatencies: launch cost per operation, µs.
BASE_LATENCY: dict[Algorithm, dict[Protocol, float]] = {
    A.TREE: _row(6.8, 14.0, 8.4),
    A.RING: _row(6.6, 14.0, 8.4),
    A.COLLNET_DIRECT: _row(0, 0, 0),
    A.COLLNET_CHAIN: _row(0, 0, 0),
    A.NVLS: _row(0, 0, 0),
    A.NVLS_TREE: _row(0, 0, 0),
    A.PAT: _row(8.0, 8.0, 8.0),
}

# hwLatencies: per-hop latency, µs, by the hardware the hop crosses.
HW_LATENCY: dict[Hw, dict[Algorithm, dict[Protocol, float]]] = {
    Hw.NVLINK: {
        A.TREE: _row(0.6, 1.25, 4.0),
        A.RING: _row(0.6, 1.9, 3.4),
        A.COLLNET_DIRECT: _row(0, 0, 3.7),
        A.COLLNET_CHAIN: _row(0, 0, 2.8),
        A.NVLS: _row(0, 0, 25),
        A.NVLS_TREE: _row(0, 0, 25),
        A.PAT: _row(0, 0, 4.0),
    },
    Hw.PCI: {
        A.TREE: _row(1.0, 1.9, 4.0),
        A.RING: _row(1.0, 2.5, 5.7),
        A.COLLNET_DIRECT: _row(0, 0, 3.7),
        A.COLLNET_CHAIN: _row(0, 0, 2.8),
        A.NVLS: _row(0, 0, 0),
        A.NVLS_TREE: _row(0, 0, 0),
        A.PAT: _row(0, 0, 4.0),
    },
    Hw.NET: {
        A.TREE: _row(5.0, 8.5, 14),
        A.RING: _row(2.7, 4.0, 14.0),
        A.COLLNET_DIRECT: _row(0, 0, 31),
        A.COLLNET_CHAIN: _row(0, 0, 30),
        A.NVLS: _row(0, 0, 18),
        A.NVLS_TREE: _row(0, 0, 20.9),
        A.PAT: _row(0, 0, 14),
    },
}

# Tuning scale: index 0/1/2 for 1 node, 2 nodes, more nodes (``index2``).
Scale = tuple[float, float, float]

# llMaxBws: the single-node rows go by GPU architecture, the multi-node ones by CPU vendor
# (``ncclTuningGetConstantsIndexes``: Intel reads the Volta row, AMD the Ampere row).
LL_MAX_BW: dict[Arch, Scale] = {
    Arch.VOLTA: (39.0, 39.0, 20.4),
    Arch.AMPERE: (87.7, 22.5, 19.0),
    Arch.HOPPER: (141.0, 45.0, 35.0),
    Arch.BLACKWELL: (2 * 141.0, 2 * 45.0, 2 * 35.0),
}
LL_MAX_BW_ROW_FOR_CPU: dict[CpuVendor, Arch] = {
    CpuVendor.INTEL: Arch.VOLTA,
    CpuVendor.AMD: Arch.AMPERE,
}

PER_CH_MAX_RING_LL128_BW: dict[Arch, Scale] = {
    Arch.VOLTA: (20.0, 20.0, 20.0),
    Arch.AMPERE: (20.0, 20.0, 20.0),
    Arch.HOPPER: (36.7, 36.7, 36.7),
    Arch.BLACKWELL: (40.0, 40.0, 40.0),
}
PER_CH_MAX_TREE_LL128_BW: dict[Arch, Scale] = {
    Arch.VOLTA: (20.0, 20.0, 20.0),
    Arch.AMPERE: (20.0, 20.0, 20.0),
    Arch.HOPPER: (36.7, 36.7, 29.0),
    Arch.BLACKWELL: (55.6, 31.67, 20.0),
}
PER_CH_MAX_TREE_BW: dict[Arch, Scale] = {
    Arch.VOLTA: (26.5, 18.5, 10.0),
    Arch.AMPERE: (24.0, 23.6, 17.8),
    Arch.HOPPER: (38.7, 41.4, 36.0),
    Arch.BLACKWELL: (70.0, 42.8, 24.0),
}
PER_CH_MAX_NVLS_TREE_BW: dict[Arch, Scale] = {
    Arch.VOLTA: (26.5, 18.5, 10.0),
    Arch.AMPERE: (24.0, 23.6, 17.8),
    Arch.HOPPER: (0.0, 57.7, 45.5),
    Arch.BLACKWELL: (0.0, 96.0, 80.0),
}

# treeCorrectionFactor[protocol][log2(bytes / 64)]: Tree (and Blackwell NVLSTree) bandwidth
# is scaled down for medium sizes, where trees fall behind their model.
TREE_CORRECTION: dict[Protocol, tuple[float, ...]] = {
    _LL: (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0,
          1.0, 1.0, 1.0, 1.0),
    _LL128: (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9,
             .9, .9, 1.0, 1.0, 1.0),
    _S: (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8,
         .9, .9, .9),
}  # fmt: skip

# nvlsEfficiency: the share of the NVLink bandwidth NVLS reaches (Volta/Ampere have none).
NVLS_EFFICIENCY: dict[Arch, float] = {
    Arch.VOLTA: 0.0,
    Arch.AMPERE: 0.0,
    Arch.HOPPER: 0.85,
    Arch.BLACKWELL: 0.74,
}

# getNetOverhead: µs a proxy spends posting each network operation.
NET_OVERHEAD_US: dict[CpuVendor, float] = {CpuVendor.INTEL: 1.0, CpuVendor.AMD: 2.0}

# search.cc: the per-channel bandwidths (GB/s) the channel search tries, fastest first;
# "intra" for a single node, "inter" once a network is involved.
SPEEDS_INTRA: dict[Arch, tuple[float, ...]] = {
    Arch.VOLTA: (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
    Arch.HOPPER: (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0),
    Arch.BLACKWELL: (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0),
}
SPEEDS_INTER: dict[Arch, tuple[float, ...]] = {
    Arch.VOLTA: (48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0,
                 4.0, 3.0, 2.4, 1.2, 0.24, 0.12),
    Arch.HOPPER: (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0,
                  2.4, 1.2, 0.24, 0.12),
    Arch.BLACKWELL: (96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                     15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12),
}  # fmt: skip


def speeds(arch: Arch, *, network: bool) -> tuple[float, ...]:
    """The speed array ``ncclTopoCompute`` walks: sm_100+, sm_90, or the default one."""
    table = SPEEDS_INTER if network else SPEEDS_INTRA
    return table[arch if arch in table else Arch.VOLTA]


MAXCHANNELS = 64
MAX_RING_CHANNELS = MAXCHANNELS // 2  # init.cc: ringGraph->maxChannels
MAX_NVLS_ARITY = 32
MAX_DIRECT_ARITY = 7  # CollNet Direct: at most 8 local GPUs
