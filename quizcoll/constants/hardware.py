"""Constants of the hardware cards: each GPU's memory bandwidth and dense peak, each link's
line rate and the bandwidth NCCL assumes for it, and the NCCL tuning figures cards quote.

Nearly every figure here is read from the tables that already hold it — the GPU catalog
(``quizcoll.memory.gpus.COMPUTE``, vendor datasheets), the link presets
(``quizcoll.collectives.hardware``, datasheets and NCCL's ``topo.h``/``topo.cc``) and NCCL's
tuning constants (``quizcoll.collectives.nccl.constants``) — and never typed again, so a card's
closed form (``expect: "S / {gpu}_hbm_bandwidth"``) names the figure its executable uses.
Names are ``<key>_<figure>`` with the key's ``-`` and ``.`` as ``_`` (``h100-80gb`` →
``h100_80gb_hbm_bandwidth``), which is how ``{gpu}`` in a formula reads a drawn choice.
"""

from __future__ import annotations

import re

from deck.cards.registry import Constant
from deck.units import Dim


def _name(key: str) -> str:
    return re.sub(r"\W", "_", key)


def _gpus() -> tuple[Constant, ...]:
    """Per catalog GPU: HBM bandwidth and the dense tensor-core peak of each dtype it runs."""
    from quizcoll.memory.gpus import COMPUTE, find_gpu

    out: list[Constant] = []
    for key, spec in COMPUTE.items():
        name, where = _name(key), f"{find_gpu(key).name}: {spec.source} (quizcoll.memory.gpus)"
        out.append(Constant(f"{name}_hbm_bandwidth", spec.hbm_bandwidth, Dim.RATE, where, "GB/s"))
        for dtype in spec.dtypes:
            peak = spec.peak_flops(dtype)
            assert peak is not None
            out.append(
                Constant(
                    f"{name}_peak_{dtype}",
                    peak,
                    Dim.COUNT,
                    f"{where}: dense {dtype} tensor-core FLOP/s",
                )
            )
    return tuple(out)


def _links() -> tuple[Constant, ...]:
    """Per link preset (NVLink of a GPU, PCIe generation, NIC): line rate and NCCL's figure;
    NVLink's links and per-link rates, PCIe's transfer and NCCL lane rates, NIC speeds."""
    from quizcoll.collectives import hardware as hw

    out: list[Constant] = []
    names = [*hw.NVLINK_ONLY, *hw.GPUS, *hw.PCIE, *hw.NICS]
    for key in names:
        f = hw.link_figures(key)
        where = f"{f.source} (quizcoll.collectives.hardware)"
        out.append(Constant(f"{key}_line_rate", f.line_rate * 1e9, Dim.RATE, where, "GB/s"))
        out.append(Constant(f"{key}_nccl_bw", f.nccl_bw * 1e9, Dim.RATE, where, "GB/s"))
    for key in names:
        nv = hw.NVLINK_ONLY.get(key) or (hw.GPUS[key].nvlink if key in hw.GPUS else None)
        if nv is None:
            continue
        out += [
            Constant(f"{key}_nvlink_links", nv.links, Dim.COUNT, nv.source),
            Constant(f"{key}_nvlink_link_rate", nv.line_link_bw * 1e9, Dim.RATE, nv.source, "GB/s"),
            Constant(f"{key}_nccl_link_bw", nv.nccl_link_bw * 1e9, Dim.RATE, nv.source, "GB/s"),
        ]
    for key, g in hw.GPUS.items():
        p = hw.PCIE[g.pcie]
        out.append(
            Constant(
                f"{key}_gpu_pcie_nccl_bw",
                p.nccl_bw * 1e9,
                Dim.RATE,
                f"{g.source}: the GPU's PCIe {p.name} x16 link as NCCL counts it ({p.source})",
                "GB/s",
            )
        )
    for key, p in hw.PCIE.items():
        out += [
            Constant(f"{key}_gt_s", p.transfer_gt_s, Dim.COUNT, f"{p.source}: GT/s per lane"),
            Constant(
                f"{key}_nccl_lane_rate",
                p.nccl_lane_rate,
                Dim.COUNT,
                f"{p.source}: NCCL's per-lane rate in units of 100 Mb/s (kvDictPciGen)",
            ),
        ]
    for key, n in hw.NICS.items():
        out.append(Constant(f"{key}_gbit", n.speed_gbit, Dim.COUNT, f"{n.source}: Gb/s"))
    return tuple(out)


def _nccl() -> tuple[Constant, ...]:
    """NCCL v2.30.7-1's NVLS figures (``src/graph/tuning.cc``): its latency and efficiency on Hopper."""
    from quizcoll.collectives.nccl.constants import (
        BASE_LATENCY,
        HW_LATENCY,
        LL_MAX_BW,
        NVLS_EFFICIENCY,
        Algorithm,
        Arch,
        Hw,
        Protocol,
    )

    nvls = HW_LATENCY[Hw.NVLINK][Algorithm.NVLS][Protocol.SIMPLE] * 1e-6
    ring_ll = BASE_LATENCY[Algorithm.RING][Protocol.LL] * 1e-6
    hop_ll = HW_LATENCY[Hw.NVLINK][Algorithm.RING][Protocol.LL] * 1e-6
    where = "NCCL v2.30.7-1 src/graph/tuning.cc (quizcoll.collectives.nccl.constants)"
    return (
        Constant(
            "nccl_ring_ll_base_latency",
            ring_ll,
            Dim.SECONDS,
            f"baseLatencies[Ring][LL] = 6.6 µs: a Ring/LL operation's launch cost; {where}",
            "µs",
        ),
        Constant(
            "nccl_ring_ll_nvlink_latency",
            hop_ll,
            Dim.SECONDS,
            f"hwLatencies[NVLINK][Ring][LL] = 0.6 µs per ring step over NVLink; {where}",
            "µs",
        ),
        Constant(
            "nccl_ll_max_bw_hopper",
            LL_MAX_BW[Arch.HOPPER][0] * 1e9,
            Dim.RATE,
            f"llMaxBws for sm_90 on one node = 141 GB/s: the LL protocol's bus-bandwidth cap; "
            f"{where}",
            "GB/s",
        ),
        Constant(
            "nccl_nvls_latency",
            nvls,
            Dim.SECONDS,
            "NCCL v2.30.7-1 hwLatencies[NVLINK][NVLS][Simple] = 25 µs (src/graph/tuning.cc), no base "
            "latency (quizcoll.collectives.nccl.constants)",
            "µs",
        ),
        Constant(
            "nccl_nvls_efficiency_hopper",
            NVLS_EFFICIENCY[Arch.HOPPER],
            Dim.RATIO,
            "NCCL v2.30.7-1 nvlsEfficiency for sm_90 (src/graph/tuning.cc; "
            "quizcoll.collectives.nccl.constants)",
        ),
    )


def _published() -> tuple[Constant, ...]:
    """Figures no table in the code holds, each with its source."""
    return (
        Constant(
            "rocev2_udp_port",
            4791,
            Dim.COUNT,
            "IANA service registry and InfiniBand Architecture Specification, Annex A17 "
            "(RoCEv2): RoCEv2 packets are UDP datagrams to destination port 4791",
        ),
        Constant(
            "nvl72_gpus",
            72,
            Dim.COUNT,
            "NVIDIA GB200 NVL72 datasheet: 36 Grace CPUs and 72 Blackwell GPUs in one "
            "NVLink domain (rack-scale NVSwitch)",
        ),
    )


CONSTANTS: tuple[Constant, ...] = (*_gpus(), *_links(), *_nccl(), *_published())
