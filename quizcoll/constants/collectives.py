"""Constants of the collectives decks: the α-β link presets and NCCL's tuner figures, taken
from the simulator's tables (``quizcoll.collectives.cost.PRESETS``,
``quizcoll.collectives.nccl.constants`` and ``.tuner``, whose figures are NCCL's own), never
typed again; plus the few published figures no executable holds (NCCL's protocol line
formats, PyTorch's process-group timeouts), each with its source."""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

_SOURCES = {
    "nvlink": "NCCL: 18 NVLink links × SM90_NVLINK_BW 20.6 GB/s (topo.h); "
    "hwLatencies[NVLINK][Ring][Simple] (cost_model.cc)",
    "infiniband": "NCCL: NDR 400 Gb/s NIC / 8000 = 50 GB/s (ncclTopoAddNet); "
    "hwLatencies[NET][Ring][Simple] (cost_model.cc)",
}
_TUNER = "NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc (quizcoll.collectives.nccl.constants)"
_MODEL = "NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc (quizcoll.collectives.nccl.tuner)"


def _preset_constants() -> tuple[Constant, ...]:
    from quizcoll.collectives.cost import PRESETS

    out: list[Constant] = []
    for name, link in PRESETS.items():
        source = f"the simulator's {name} preset; {_SOURCES.get(name, 'quizcoll.collectives.cost')}"
        out.append(Constant(f"{name}_latency", link.latency_s, Dim.SECONDS, source, "µs"))
        out.append(Constant(f"{name}_bandwidth", link.bandwidth, Dim.RATE, source, "GB/s"))
    return tuple(out)


def _key(member: object) -> str:
    return str(getattr(member, "value", member)).lower()


def _latency_constants() -> tuple[Constant, ...]:
    """``nccl_base_{algorithm}_{protocol}`` (baseLatencies: launch cost per operation) and
    ``nccl_{nvlink|pci|net}_{algorithm}_{protocol}`` (hwLatencies: per hop), seconds, with
    the protocol spelt as NCCL does (``nccl_base_ring_LL128``) so that a card's protocol
    parameter names them; the zero entries (no such pair) are left out."""
    from quizcoll.collectives.nccl.constants import BASE_LATENCY, HW_LATENCY

    out: list[Constant] = []
    for algo, row in BASE_LATENCY.items():
        for proto, us in row.items():
            if us:
                name = f"nccl_base_{_key(algo)}_{proto.value}"
                source = f"NCCL baseLatencies[{algo.value}][{proto.value}]; {_TUNER}"
                out.append(Constant(name, us * 1e-6, Dim.SECONDS, source, "µs"))
    for hw, table in HW_LATENCY.items():
        for algo, row in table.items():
            for proto, us in row.items():
                if us:
                    name = f"nccl_{_key(hw)}_{_key(algo)}_{proto.value}"
                    source = f"NCCL hwLatencies[{hw.name}][{algo.value}][{proto.value}]; {_TUNER}"
                    out.append(Constant(name, us * 1e-6, Dim.SECONDS, source, "µs"))
    return tuple(out)


def _tuner_constants() -> tuple[Constant, ...]:
    from quizcoll.collectives.hardware import CpuVendor
    from quizcoll.collectives.nccl import tuner
    from quizcoll.collectives.nccl.constants import (
        LL_MAX_BW,
        LL_MAX_BW_ROW_FOR_CPU,
        NET_OVERHEAD_US,
        NVLS_EFFICIENCY,
    )
    from quizcoll.collectives.nccl.constants import Arch as A

    overhead = NET_OVERHEAD_US[CpuVendor.INTEL] * 1e-6
    ratio = [
        ("nccl_ll_bw_factor", tuner._LL_FACTOR, "ring LL: half the bandwidth carries flags"),
        ("nccl_ll128_bw_factor", tuner._LL128_FACTOR, "ring LL128: busBw × 0.92"),
        ("nccl_tree_bw_factor", tuner._TREE_FACTOR, "tree: busBw × 0.92"),
        ("nccl_pat_bw_factor", tuner._PAT_FACTOR, "PAT: the tree graph's bandwidth × 0.75"),
        (
            "nccl_ring_plateau",
            tuner._RING_PLATEAU,
            "multi-node Ring/Simple all-reduce: latency × 1.4",
        ),
        ("nccl_pat_log_divisor", tuner._PAT_LOG_DIVISOR, "PAT: log2(nodes) × netLat / 3.5"),
        ("nvls_efficiency_hopper", NVLS_EFFICIENCY[A.HOPPER], "nvlsEfficiency (nvls.cc), Hopper"),
        ("nvls_efficiency_blackwell", NVLS_EFFICIENCY[A.BLACKWELL], "nvlsEfficiency, Blackwell"),
    ]
    out = [Constant(n, v, Dim.RATIO, f"{why}; {_MODEL}") for n, v, why in ratio]
    out += [
        Constant(
            "nccl_pat_rank_latency",
            tuner._PAT_PER_RANK_US * 1e-6,
            Dim.SECONDS,
            f"PAT: 2.8 µs per rank; {_MODEL}",
            "µs",
        ),
        Constant(
            "nccl_ll_max_bw_intel_2nodes",
            LL_MAX_BW[LL_MAX_BW_ROW_FOR_CPU[CpuVendor.INTEL]][1] * 1e9,
            Dim.RATE,
            f"llMaxBws for two nodes with Intel CPUs (the Volta row); {_TUNER}",
            "GB/s",
        ),
        Constant(
            "nccl_ll_max_bw_intel_many",
            LL_MAX_BW[LL_MAX_BW_ROW_FOR_CPU[CpuVendor.INTEL]][2] * 1e9,
            Dim.RATE,
            f"llMaxBws for three or more nodes with Intel CPUs (the Volta row); {_TUNER}",
            "GB/s",
        ),
        # nccl_ll_max_bw_hopper (one node) is declared in quizcoll.constants.hardware
    ]
    # getNetOverhead (ring.cc): a proxy's cost per network operation, ×3 for Simple; a ring
    # step inside a multi-node ring costs at least this much
    for proto in ("LL", "LL128", "Simple"):  # NCCL's spelling, as cards name protocols
        value = overhead * (3 if proto == "Simple" else 1)
        source = f"NCCL getNetOverhead, Intel CPUs (×3 for Simple); {_MODEL}"
        out.append(Constant(f"nccl_net_overhead_{proto}", value, Dim.SECONDS, source, "µs"))
    return tuple(out)


def _link_constants() -> tuple[Constant, ...]:
    """The NVLink counts behind each link's figures and the nccl-tests measurements where
    published (its line rate and NCCL's figure, ``{link}_line_rate`` and ``{link}_nccl_bw``,
    are declared in :mod:`quizcoll.constants.hardware`)."""
    from quizcoll.collectives.hardware import GPUS, NICS, PCIE, link_figures

    out: list[Constant] = []
    for name in (*GPUS, *PCIE, *NICS):
        f = link_figures(name)
        where = f"quizcoll.collectives.hardware: {f.source}"
        # {name}_line_rate and {name}_nccl_bw: declared once, in quizcoll.constants.hardware
        if f.measured_low is not None and f.measured_high is not None:
            for end, value in (("low", f.measured_low), ("high", f.measured_high)):
                name_ = f"{name}_measured_{end}"
                out.append(Constant(name_, value * 1e9, Dim.RATE, where, "GB/s"))
    for name, gpu in GPUS.items():
        if gpu.nvlink is not None:
            where = f"quizcoll.collectives.hardware: {gpu.nvlink.source}"
            link = gpu.nvlink
            out.append(Constant(f"{name}_nvlinks", link.links, Dim.COUNT, where))
            out.append(
                Constant(f"{name}_nvlink_nccl", link.nccl_link_bw * 1e9, Dim.RATE, where, "GB/s")
            )
            out.append(
                Constant(f"{name}_nvlink_line", link.line_link_bw * 1e9, Dim.RATE, where, "GB/s")
            )
    return tuple(out)


def _search_constants() -> tuple[Constant, ...]:
    """The fastest per-channel speeds NCCL's channel search tries on Hopper (search.cc) and
    the NVLSTree per-channel caps (perChMaxNVLSTreeBws, cost_model.cc)."""
    from quizcoll.collectives.nccl.constants import PER_CH_MAX_NVLS_TREE_BW, Arch, speeds

    hopper = Arch.HOPPER
    caps = PER_CH_MAX_NVLS_TREE_BW[hopper]
    search = "NVIDIA/nccl v2.30.7-1 src/graph/search.cc speed arrays (quizcoll.collectives.nccl)"
    return (
        Constant(
            "nccl_hopper_speed_intra",
            speeds(hopper, network=False)[0] * 1e9,
            Dim.RATE,
            f"sm90SpeedArrayIntra[0]; {search}",
            "GB/s",
        ),
        Constant(
            "nccl_hopper_speed_inter",
            speeds(hopper, network=True)[0] * 1e9,
            Dim.RATE,
            f"sm90SpeedArrayInter[0]; {search}",
            "GB/s",
        ),
        Constant(
            "nccl_nvlstree_cap_hopper_2nodes",
            caps[1] * 1e9,
            Dim.RATE,
            f"perChMaxNVLSTreeBws[Hopper][2 nodes]; {_TUNER}",
            "GB/s",
        ),
        Constant(
            "nccl_nvlstree_cap_hopper_many",
            caps[2] * 1e9,
            Dim.RATE,
            f"perChMaxNVLSTreeBws[Hopper][3+ nodes]; {_TUNER}",
            "GB/s",
        ),
    )


_TORCH_ENV = (
    "PyTorch ProcessGroupNCCL environment variables (docs.pytorch.org "
    "torch_nccl_environment_variables): TORCH_NCCL_ASYNC_ERROR_HANDLING"
)
# TORCH_NCCL_ASYNC_ERROR_HANDLING's modes; 3 is the default
ASYNC_ERROR_MODES: tuple[Constant, ...] = tuple(
    Constant(f"torch_async_errors_{name}", value, Dim.COUNT, f"{_TORCH_ENV}: {value} = {what}")
    for name, value, what in (
        ("off", 0, "no handling of asynchronous NCCL errors"),
        ("abort_teardown", 1, "abort the NCCL communicator and tear down the process"),
        ("abort", 2, "only abort the NCCL communicator"),
        ("teardown", 3, "tear down the process without aborting the communicator (default)"),
    )
)

_DEVICE_H = "NVIDIA/nccl src/include/device.h"
PUBLISHED: tuple[Constant, ...] = (
    # union ncclLLFifoLine { uint32_t data1, flag1, data2, flag2; }: 8 data bytes of 16
    Constant("nccl_ll_line_bytes", 16, Dim.BYTES, f"{_DEVICE_H}: ncclLLFifoLine", "B"),
    Constant("nccl_ll_data_bytes", 8, Dim.BYTES, f"{_DEVICE_H}: data1 + data2", "B"),
    Constant("nccl_ll128_line_bytes", 128, Dim.BYTES, f"{_DEVICE_H}: NCCL_LL128_LINESIZE", "B"),
    # NCCL_LL128_DATAELEMS = NCCL_LL128_LINEELEMS − 1 = 15 of 16 uint64: one carries the flag
    Constant("nccl_ll128_data_bytes", 120, Dim.BYTES, f"{_DEVICE_H}: NCCL_LL128_DATAELEMS", "B"),
    Constant(
        "torch_nccl_default_timeout",
        600,
        Dim.SECONDS,
        "PyTorch torch.distributed.constants.default_pg_nccl_timeout: 10 minutes for the NCCL "
        "process group (pytorch/pytorch #110947)",
        "min",
    ),
    Constant(
        "torch_default_pg_timeout",
        1800,
        Dim.SECONDS,
        "PyTorch torch.distributed.constants.default_pg_timeout: 30 minutes (gloo and others)",
        "min",
    ),
)


_PERFORMANCE_MD = "nccl-tests doc/PERFORMANCE.md"
# nccl-tests' bus-bandwidth factor of a collective is share × (n−1)/n + unit: 2(n−1)/n for
# all-reduce, (n−1)/n for reduce-scatter, all-gather and all-to-all, 1 for broadcast, reduce
_BUSBW_FORMS = {
    "all_reduce": (2, 0),
    "reduce_scatter": (1, 0),
    "all_gather": (1, 0),
    "all_to_all": (1, 0),
    "broadcast": (0, 1),
    "reduce": (0, 1),
}
BUSBW: tuple[Constant, ...] = tuple(
    c
    for name, (share, unit) in _BUSBW_FORMS.items()
    for c in (
        Constant(f"{name}_busbw_share", share, Dim.COUNT, f"{_PERFORMANCE_MD}: {name}"),
        Constant(f"{name}_busbw_unit", unit, Dim.COUNT, f"{_PERFORMANCE_MD}: {name}"),
    )
)


CONSTANTS: tuple[Constant, ...] = (
    *_preset_constants(),
    *_latency_constants(),
    *_tuner_constants(),
    *PUBLISHED,
    *ASYNC_ERROR_MODES,
    *BUSBW,
    *_link_constants(),
    *_search_constants(),
)
