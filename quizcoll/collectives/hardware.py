"""Hardware presets with their sources: GPUs, NVLink, PCIe and InfiniBand links.

Every figure carries the line rate the vendor quotes and the bandwidth NCCL assumes when
it builds its topology graph (NVIDIA/nccl v2.30.7-1, ``src/graph/topo.h`` and
``src/graph/topo.cc``), because the two differ and learners mix them up:

- NVLink: NCCL counts ``links × per-link bandwidth`` with its own per-link figure
  (``SM70_NVLINK_BW`` and ``SM80_NVLINK_BW`` 20.0, ``SM90_NVLINK_BW`` 20.6,
  ``SM100_NVLINK_BW`` 40.1 GB/s), below the line rate (25 and 50 GB/s per link and
  direction). V100 (NVLink2) is a link figure only: the NCCL model has no Volta preset.
- PCIe: ``width × per-lane rate / 80`` GB/s with the per-lane rate in units of 100 Mb/s
  (``kvDictPciGen``: 8 GT/s → 60, 16 → 120, 32 → 240, 64 → 480), i.e. 12/24/48/96 GB/s
  for x16 Gen3–Gen6, against line rates of about 15.75/31.5/63/121 GB/s.
- NICs: ``speed (Mb/s) / 8000`` (``ncclTopoAddNet``): exactly the line rate, 25/50/100 GB/s
  for HDR/NDR/XDR; nccl-tests measure 46–48 GB/s per NDR NIC.

All bandwidths here are GB/s (10^9 bytes per second) per direction, as NCCL counts them.
The PCIe generations' figures (GT/s, NCCL's lane rate, the line code) are read from the
quoted records of ``quizcoll/data/links.yaml`` (:mod:`quizcoll.memory.figures`), so each lives once.
Pure data and lookups; nothing here imports numpy.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from quizcoll.memory.figures import printed

NCCL_SOURCE = "NVIDIA/nccl v2.30.7-1 (commit 73cf112)"
T = TypeVar("T")


class CpuVendor(enum.Enum):
    """The host CPU: NCCL's network overhead and multi-node LL cap depend on it."""

    INTEL = "intel"
    AMD = "amd"


@dataclass(frozen=True)
class PcieGen:
    """A PCIe generation at x16."""

    name: str
    gen: int
    transfer_gt_s: float  # GT/s per lane
    nccl_lane_rate: int  # kvDictPciGen, units of 100 Mb/s per lane
    line_rate: float  # GB/s per direction at x16 after line encoding (exact, not rounded)
    source: str

    @property
    def nccl_bw(self) -> float:
        """GB/s NCCL assumes for an x16 link: ``16 × lane rate / 80`` (topo.cc)."""
        return 16 * self.nccl_lane_rate / 80

    @property
    def raw_rate(self) -> float:
        """GB/s per direction at x16 before line encoding: GT/s × 16 lanes ÷ 8 (the figure
        vendors double for "64 GB/s" PCIe Gen4 x16)."""
        return self.transfer_gt_s * 16 / 8


@dataclass(frozen=True)
class Nic:
    """A network port (one NIC per GPU in the presets)."""

    name: str
    speed_gbit: int  # the port speed in Gb/s
    pcie: str  # the NIC's own PCIe generation (name in PCIE)
    measured: tuple[float, float] | None  # GB/s per NIC that nccl-tests report, if published
    source: str

    @property
    def line_rate(self) -> float:
        """GB/s per direction: Gb/s ÷ 8."""
        return self.speed_gbit / 8

    @property
    def nccl_bw(self) -> float:
        """GB/s NCCL assumes: ``speed in Mb/s / 8000`` (``ncclTopoAddNet``)."""
        return self.speed_gbit * 1000 / 8000


@dataclass(frozen=True)
class NvLink:
    """One GPU's NVLink ports to the NVSwitch fabric."""

    name: str
    links: int
    nccl_link_bw: float  # NCCL's per-link figure, GB/s per direction (topo.h)
    line_link_bw: float  # the vendor's per-link rate, GB/s per direction
    source: str

    @property
    def nccl_bw(self) -> float:
        """GB/s per direction NCCL assumes for the GPU: links × per-link figure."""
        return self.links * self.nccl_link_bw

    @property
    def line_rate(self) -> float:
        """GB/s per direction at line rate (half the vendor's bidirectional figure)."""
        return self.links * self.line_link_bw


@dataclass(frozen=True)
class Gpu:
    """A GPU as NCCL sees it in a typical 8-GPU server (HGX/DGX board)."""

    name: str
    label: str
    compute_capability: int  # e.g. 90 for sm_90
    nvlink: NvLink | None  # None: GPUs talk over PCIe only
    nvls: bool  # NVLink SHARP (multicast in the NVSwitch): sm_90+ with NVSwitch gen 3+
    pcie: str  # the GPU's PCIe generation (name in PCIE)
    nic: str  # the server's default NIC (name in NICS)
    cpu: CpuVendor
    max_gpus_per_node: int
    source: str


_PCIE_SOURCES = {
    3: "PCIe 3.0: 8 GT/s, 128b/130b → 8·16·128/130/8 = 15.75 GB/s; NCCL kvDictPciGen 60",
    4: "PCIe 4.0: 16 GT/s, 128b/130b → 31.5 GB/s; NCCL kvDictPciGen 120",
    5: "PCIe 5.0: 32 GT/s, 128b/130b → 63.0 GB/s; NCCL kvDictPciGen 240",
    6: "PCIe 6.0: 64 GT/s PAM4, 242/256 FLIT → 64·16/8·242/256 = 121 GB/s; NCCL kvDictPciGen 480",
}


def _pcie_gen(gen: int) -> PcieGen:
    """Generation ``gen`` at x16 from the quoted records of ``links.yaml`` (GT/s, NCCL's lane
    rate, the line code's payload and block), so the figures live once, beside their quotes."""
    gt_s = printed("links", f"gen{gen}_gt_s")
    payload = printed("links", f"gen{gen}_code_payload")
    block = printed("links", f"gen{gen}_code_block")
    lane_rate = int(printed("links", f"gen{gen}_nccl_lane_rate"))
    line = gt_s * 16 / 8 * payload / block
    return PcieGen(f"gen{gen}", gen, gt_s, lane_rate, line, _PCIE_SOURCES[gen])


PCIE: dict[str, PcieGen] = {f"gen{g}": _pcie_gen(g) for g in _PCIE_SOURCES}

NICS: dict[str, Nic] = {
    "hdr": Nic(
        "hdr",
        200,
        "gen4",
        None,
        "InfiniBand HDR 200 Gb/s (ConnectX-6, PCIe Gen4 x16); NCCL bw = 200000/8000 = 25",
    ),
    "ndr": Nic(
        "ndr",
        400,
        "gen5",
        (46.0, 48.0),
        "InfiniBand NDR 400 Gb/s (ConnectX-7, PCIe Gen5 x16); NCCL bw = 400000/8000 = 50; "
        'measured: "For NDR @ 400Gbps you should see 46-48GB/s per NIC" '
        "(AddyLaddy, NVIDIA/nccl-tests#290)",
    ),
    "xdr": Nic(
        "xdr",
        800,
        "gen6",
        None,
        "InfiniBand XDR 800 Gb/s (ConnectX-8, PCIe Gen6 x16); NCCL bw = 800000/8000 = 100",
    ),
}

_NVLINK2 = NvLink(
    "nvlink2",
    6,
    20.0,
    25.0,
    "V100 SXM2: 6 NVLink2 links × 50 GB/s bidirectional = 300 GB/s (150 per direction) "
    "(NVIDIA V100 datasheet); NCCL SM70_NVLINK_BW = 20.0 per link",
)
_NVLINK3 = NvLink(
    "nvlink3",
    12,
    20.0,
    25.0,
    "A100: 12 NVLink3 links × 50 GB/s bidirectional = 600 GB/s (300 per direction); "
    "NCCL SM80_NVLINK_BW = 20.0 per link",
)
_NVLINK4 = NvLink(
    "nvlink4",
    18,
    20.6,
    25.0,
    "H100/H200: 18 NVLink4 links × 50 GB/s bidirectional = 900 GB/s (450 per direction); "
    "NCCL SM90_NVLINK_BW = 20.6 per link → 370.8; sjeaugey (NVIDIA/nccl-tests#212): "
    '"450GB/s is the line rate… NCCL can get an effective NVLink bandwidth of 370GB/s"; '
    "a ring busbw of 368.76 GB/s measured with NVLS off (NVIDIA/nccl-tests#309)",
)
_NVLINK5 = NvLink(
    "nvlink5",
    18,
    40.1,
    50.0,
    "B200: 18 NVLink5 links × 100 GB/s bidirectional = 1.8 TB/s (900 per direction); "
    "NCCL SM100_NVLINK_BW = 40.1 per link → 721.8",
)

GPUS: dict[str, Gpu] = {
    "a100": Gpu(
        "a100",
        "A100 SXM (HGX/DGX A100)",
        80,
        _NVLINK3,
        False,
        "gen4",
        "hdr",
        CpuVendor.AMD,
        8,
        "DGX A100: 8 × A100 SXM4 on NVSwitch gen 2 (no NVLink SHARP), 8 × ConnectX-6 HDR, "
        "2 × AMD EPYC 7742 (NVIDIA DGX A100 user guide)",
    ),
    "h100": Gpu(
        "h100",
        "H100 SXM (HGX/DGX H100)",
        90,
        _NVLINK4,
        True,
        "gen5",
        "ndr",
        CpuVendor.INTEL,
        8,
        "DGX H100: 8 × H100 SXM5 on 4 NVSwitch gen 3 (NVLink SHARP), 8 × ConnectX-7 NDR, "
        "2 × Intel Xeon 8480C (NVIDIA DGX H100 user guide)",
    ),
    "h200": Gpu(
        "h200",
        "H200 SXM (HGX H200)",
        90,
        _NVLINK4,
        True,
        "gen5",
        "ndr",
        CpuVendor.INTEL,
        8,
        "HGX H200: the H100 board's NVLink4 and NVSwitch gen 3 with 141 GB HBM3e; "
        "the network as DGX H100",
    ),
    "b200": Gpu(
        "b200",
        "B200 (HGX/DGX B200)",
        100,
        _NVLINK5,
        True,
        "gen5",
        "ndr",
        CpuVendor.INTEL,
        8,
        "DGX B200: 8 × B200 on NVLink5 switches, 8 × ConnectX-7 400 Gb/s, "
        "2 × Intel Xeon 8570 (NVIDIA DGX B200 user guide)",
    ),
    "l40s": Gpu(
        "l40s",
        "L40S (PCIe, no NVLink)",
        89,
        None,
        False,
        "gen4",
        "ndr",
        CpuVendor.INTEL,
        8,
        "L40S: PCIe Gen4 x16 card without NVLink (NVIDIA L40S datasheet); GPUs exchange "
        "data over PCIe",
    ),
}


# GPUs whose NVLink is a figure of ``link_figures`` but not an NCCL-model preset (no Volta
# tuning tables in the model; DGX-1's hybrid cube-mesh is not an NVSwitch).
NVLINK_ONLY: dict[str, NvLink] = {"v100": _NVLINK2}
NVLINK_ONLY_PCIE: dict[str, str] = {"v100": "gen3"}  # V100 SXM2: PCIe Gen3 x16 to the host


class HardwareError(ValueError):
    """An unknown preset name."""


def _lookup(kind: str, name: str, table: Mapping[str, T]) -> T:
    key = str(name).strip().lower().replace("_", "-")
    if key in table:
        return table[key]
    close = difflib.get_close_matches(key, list(table), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise HardwareError(f"unknown {kind} {name!r}; choose one of {', '.join(table)}{hint}")


def gpu(name: str) -> Gpu:
    """The GPU preset ``name`` (a100, h100, h200, b200, l40s)."""
    return _lookup("GPU", name, GPUS)


def nic(name: str) -> Nic:
    """The NIC preset ``name`` (hdr, ndr, xdr)."""
    return _lookup("NIC", name, NICS)


def pcie(name: str) -> PcieGen:
    """The PCIe preset ``name`` (gen3 … gen6)."""
    return _lookup("PCIe generation", name, PCIE)


@dataclass(frozen=True)
class LinkFigures:
    """One link's line rate against what NCCL assumes (GB/s per direction)."""

    name: str
    kind: str  # nvlink, pcie or nic
    line_rate: float
    nccl_bw: float
    measured_low: float | None
    measured_high: float | None
    source: str
    generation: str = ""  # nvlink4, gen5, ndr …
    lanes: int = 0  # NVLink links of one GPU, PCIe lanes (16), NIC ports (1)
    raw_rate: float = 0.0  # GB/s per direction before line encoding (PCIe); else line rate
    pcie_nccl_bw: float = 0.0  # NCCL's GB/s for the PCIe x16 link the device sits on

    @property
    def nccl_over_line(self) -> float:
        return self.nccl_bw / self.line_rate

    @property
    def lane_line_rate(self) -> float:
        """GB/s per direction of one link, lane or port."""
        return self.line_rate / self.lanes if self.lanes else self.line_rate

    @property
    def lane_nccl_bw(self) -> float:
        """NCCL's GB/s for one link, lane or port."""
        return self.nccl_bw / self.lanes if self.lanes else self.nccl_bw


def _pcie_figures(key: str, p: PcieGen) -> LinkFigures:
    return LinkFigures(
        key, "pcie", p.line_rate, p.nccl_bw, None, None, p.source, p.name, 16, p.raw_rate, p.nccl_bw
    )


def link_figures(name: str) -> LinkFigures:
    """Line rate vs NCCL's figure for a GPU's NVLink (``h100``), a PCIe generation
    (``gen5``) or a NIC (``ndr``)."""
    key = str(name).strip().lower()
    if key in GPUS or key in NVLINK_ONLY:
        nv = GPUS[key].nvlink if key in GPUS else NVLINK_ONLY[key]
        host = PCIE[GPUS[key].pcie if key in GPUS else NVLINK_ONLY_PCIE[key]]
        if nv is None:
            return _pcie_figures(key, host)
        # ring busbw on 8 GPUs is NCCL's "effective NVLink bandwidth" (nccl-tests#212)
        measured = (368.76, 370.0) if nv is _NVLINK4 else (None, None)
        return LinkFigures(
            key,
            "nvlink",
            nv.line_rate,
            nv.nccl_bw,
            *measured,
            nv.source,
            nv.name,
            nv.links,
            nv.line_rate,
            host.nccl_bw,
        )
    if key in PCIE:
        return _pcie_figures(key, PCIE[key])
    if key in NICS:
        n = NICS[key]
        low, high = n.measured or (None, None)
        return LinkFigures(
            key,
            "nic",
            n.line_rate,
            n.nccl_bw,
            low,
            high,
            n.source,
            n.name,
            1,
            n.line_rate,
            PCIE[n.pcie].nccl_bw,
        )
    names = [*NVLINK_ONLY, *GPUS, *PCIE, *NICS]
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise HardwareError(f"unknown link {name!r}; choose one of {', '.join(names)}{hint}")


def links_table() -> str:
    """Markdown: every link's line rate beside NCCL's figure (docs/collectives.md)."""
    lines = [
        "| link | line rate per direction | NCCL assumes | NCCL ÷ line | measured |",
        "|---|---|---|---|---|",
    ]
    for name in [*NVLINK_ONLY, *(g for g in GPUS if GPUS[g].nvlink is not None), *PCIE, *NICS]:
        f = link_figures(name)
        label = {"nvlink": f"{name.upper()} NVLink", "pcie": f"PCIe {name} x16"}.get(
            f.kind, f"{name.upper()} NIC"
        )
        measured = "–"
        if f.measured_low is not None and f.measured_high is not None:
            measured = f"{f.measured_low:g}–{f.measured_high:g} GB/s"
        lines.append(
            f"| {label} | {f.line_rate:.4g} GB/s | {f.nccl_bw:g} GB/s | "
            f"{f.nccl_over_line:.2f} | {measured} |"
        )
    return "\n".join(lines)
