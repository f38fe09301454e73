"""NCCL's tuner constants and names, as the release v2.30.7-1 defines them.

Source: NVIDIA/nccl tag ``v2.30.7-1`` (commit 73cf112; makefiles/version.mk 2.30.7):

- ``src/graph/tuning.cc``: ``ncclTunerConstantsDefaults`` (base and per-hop latencies,
  the LL/LL128/Tree/NVLSTree bandwidth caps), ``nvlsEfficiency``, ``getNetOverhead`` and
  ``treeCorrectionFactor``;
- ``src/graph/search.cc``: the speed arrays the channel search walks
  (``speedArrayIntra/Inter``, ``sm90SpeedArray*``, ``sm100SpeedArray*``);
- ``src/include/device.h``: ``MAXCHANNELS``, ``NCCL_MAX_NVLS_ARITY``,
  ``NCCL_MAX_DIRECT_ARITY``.

The figures themselves live once, in ``quizcoll/data/nccl.yaml`` (its ``tables:`` and
``figures:``), each table with the source's own lines as its quote, which ``quizcoll check``
holds every cell to by position. This module only gives them names: it reads the tables
into dicts keyed by enums, never by the C arrays' positions, so a lookup reads as what it
means. Latencies are µs, bandwidths GB/s, as in NCCL.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from quizcoll.collectives.hardware import CpuVendor
from quizcoll.memory.figures import printed, table


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
_FILE = "nccl"
_ALGOS = tuple(Algorithm)
_PROTOS = (P.LL, P.LL128, P.SIMPLE)


def _key(member: enum.Enum) -> str:
    """The row or column label of ``member`` in the data file (``collnetdirect``, ``LL128``)."""
    return member.value.lower() if isinstance(member, Algorithm | Arch) else member.value


def _by_algo_proto(name: str) -> dict[Algorithm, dict[Protocol, float]]:
    rows = table(_FILE, name, "µs")
    return {a: dict(zip(_PROTOS, rows[_key(a)], strict=True)) for a in _ALGOS}


# baseLatencies: launch cost per operation, µs.
BASE_LATENCY: dict[Algorithm, dict[Protocol, float]] = _by_algo_proto("nccl_base")

# hwLatencies: per-hop latency, µs, by the hardware the hop crosses.
HW_LATENCY: dict[Hw, dict[Algorithm, dict[Protocol, float]]] = {
    hw: _by_algo_proto(f"nccl_{hw.value}") for hw in Hw
}

# Tuning scale: index 0/1/2 for 1 node, 2 nodes, more nodes (``index2``).
Scale = tuple[float, float, float]


def _by_arch(name: str) -> dict[Arch, Scale]:
    rows = table(_FILE, name, "GB/s")
    return {arch: rows[_key(arch)] for arch in Arch}  # type: ignore[misc]


# llMaxBws: the single-node rows go by GPU architecture, the multi-node ones by CPU vendor
# (``ncclTuningGetConstantsIndexes``: Intel reads the Volta row, AMD the Ampere row).
LL_MAX_BW: dict[Arch, Scale] = _by_arch("nccl_ll_max_bw")
LL_MAX_BW_ROW_FOR_CPU: dict[CpuVendor, Arch] = {
    CpuVendor.INTEL: Arch.VOLTA,
    CpuVendor.AMD: Arch.AMPERE,
}

PER_CH_MAX_RING_LL128_BW: dict[Arch, Scale] = _by_arch("nccl_ring_ll128_per_channel")
PER_CH_MAX_TREE_LL128_BW: dict[Arch, Scale] = _by_arch("nccl_tree_ll128_per_channel")
PER_CH_MAX_TREE_BW: dict[Arch, Scale] = _by_arch("nccl_tree_per_channel")
PER_CH_MAX_NVLS_TREE_BW: dict[Arch, Scale] = _by_arch("nccl_nvlstree_per_channel")

# treeCorrectionFactor[protocol][log2(bytes / 64)]: Tree (and Blackwell NVLSTree) bandwidth
# is scaled down for medium sizes, where trees fall behind their model.
_CORRECTION = table(_FILE, "nccl_tree_correction")
TREE_CORRECTION: dict[Protocol, tuple[float, ...]] = {p: _CORRECTION[p.value] for p in _PROTOS}

# nvlsEfficiency: the share of the NVLink bandwidth NVLS reaches (Volta/Ampere have none).
_NVLS = table(_FILE, "nccl_nvls_efficiency")
NVLS_EFFICIENCY: dict[Arch, float] = {arch: _NVLS[_key(arch)][0] for arch in Arch}

# getNetOverhead: µs a proxy spends posting each network operation.
_OVERHEAD = table(_FILE, "nccl_net_overhead", "µs")
NET_OVERHEAD_US: dict[CpuVendor, float] = {v: _OVERHEAD[v.value][0] for v in CpuVendor}

# search.cc: the per-channel bandwidths (GB/s) the channel search tries, fastest first;
# "intra" for a single node, "inter" once a network is involved. sm_90 and sm_100+ have
# arrays of their own; every other GPU walks the default one.
_SPEED_ROW: dict[Arch, str] = {Arch.HOPPER: "sm90", Arch.BLACKWELL: "sm100"}
SPEEDS_INTRA: dict[str, tuple[float, ...]] = table(_FILE, "nccl_speed_intra", "GB/s")
SPEEDS_INTER: dict[str, tuple[float, ...]] = table(_FILE, "nccl_speed_inter", "GB/s")


def speeds(arch: Arch, *, network: bool) -> tuple[float, ...]:
    """The speed array ``ncclTopoCompute`` walks: sm_100+, sm_90, or the default one."""
    return (SPEEDS_INTER if network else SPEEDS_INTRA)[_SPEED_ROW.get(arch, "default")]


MAXCHANNELS = int(printed(_FILE, "nccl_maxchannels"))
MAX_RING_CHANNELS = MAXCHANNELS // int(printed(_FILE, "nccl_ring_channels_divisor"))
MAX_NVLS_ARITY = int(printed(_FILE, "nccl_max_nvls_arity"))
MAX_DIRECT_ARITY = int(printed(_FILE, "nccl_max_direct_arity"))  # CollNet Direct: ≤ 8 local GPUs


@dataclass(frozen=True)
class Factors:
    """The tuner's model refinements (``ncclTopoTuneModel``, ``ncclTopoGetAlgoTime``), each a
    quoted figure of ``nccl.yaml``; :meth:`read` loads them."""

    ring_ll: float  # ring LL: half the bandwidth is flags
    ring_ll128: float  # ring LL128: 120 of 128 bytes carry data
    tree: float
    tree_ll_divisor: float
    tree_ll128_one_node: float
    tree_ll128_nodes: float
    tree_pattern: float  # one GPU carries all the NIC traffic
    pat: float
    collnet_ag_rs_net: float
    collnet_hopper: float
    collnet_arity_us: float  # CollNet Direct: arity serialisation per extra local GPU
    pat_log_divisor: float
    pat_per_rank_us: float
    ring_plateau: float  # sm_80+
    ring_plateau_pre_sm80: float
    plateau_bytes: float  # per channel and rank
    tree_correction_sizes: int  # log2(bytes / 64) below this for Tree
    net_overhead_simple: float  # an inter-node Simple ring pays the proxy overhead this often

    @classmethod
    def read(cls) -> Factors:
        def f(record: str, unit: str = "") -> float:
            return printed(_FILE, record, unit)

        ll128 = table(_FILE, "nccl_tree_ll128_ratio")
        return cls(
            ring_ll=f("nccl_ll_bw_factor"),
            ring_ll128=f("nccl_ll128_bw_factor"),
            tree=f("nccl_tree_bw_factor"),
            tree_ll_divisor=f("nccl_tree_ll_divisor"),
            tree_ll128_one_node=ll128["one_node"][0] / ll128["one_node"][1],
            tree_ll128_nodes=ll128["nodes"][0] / ll128["nodes"][1],
            tree_pattern=f("nccl_tree_pattern_factor"),
            pat=f("nccl_pat_bw_factor"),
            collnet_ag_rs_net=f("nccl_collnet_ag_rs_net_factor"),
            collnet_hopper=f("nccl_collnet_hopper_factor"),
            collnet_arity_us=f("nccl_collnet_arity_latency", "µs"),
            pat_log_divisor=f("nccl_pat_log_divisor"),
            pat_per_rank_us=f("nccl_pat_rank_latency", "µs"),
            ring_plateau=f("nccl_ring_plateau"),
            ring_plateau_pre_sm80=f("nccl_ring_plateau_pre_sm80"),
            plateau_bytes=f("nccl_plateau_bytes", "B"),
            tree_correction_sizes=int(f("nccl_tree_correction_sizes")),
            net_overhead_simple=f("nccl_net_overhead_simple_factor"),
        )
