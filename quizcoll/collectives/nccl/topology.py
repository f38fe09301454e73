"""The cluster NCCL is asked about: nodes × GPUs per node, with one NIC per GPU by default.

A :class:`Topology` is symmetric (every node alike), which is what NCCL's channel search
produces on HGX/DGX-style servers: GPUs on an NVSwitch fabric (or on PCIe only), each
GPU with a NIC behind the same PCIe switch. It derives the bandwidths NCCL's topology
graph holds (GB/s, NCCL's figures from :mod:`quizcoll.collectives.hardware`).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.collectives import hardware
from quizcoll.collectives.hardware import CpuVendor, Gpu, Nic, PcieGen
from quizcoll.collectives.nccl.constants import Arch

MAX_NODES = 131_072
MAX_RANKS = 131_072


class NcclModelError(ValueError):
    """A request the NCCL model refuses: unknown preset, impossible topology."""


@dataclass(frozen=True)
class Topology:
    """``nodes`` servers, each with ``gpus_per_node`` GPUs and ``nics_per_node`` NICs.

    ``sharp``: the network reduces in the switches (InfiniBand SHARP with NCCL's CollNet
    plugin and ``NCCL_COLLNET_ENABLE=1``); off by default, as in NCCL. ``nvls_enable``:
    ``NCCL_NVLS_ENABLE`` (on by default; NVLink SHARP still needs the hardware).
    """

    gpu: Gpu
    nodes: int
    gpus_per_node: int
    nic: Nic
    nics_per_node: int
    pcie: PcieGen
    cpu: CpuVendor
    sharp: bool = False
    nvls_enable: bool = True

    def __post_init__(self) -> None:
        for name, value, high in (
            ("nodes", self.nodes, MAX_NODES),
            ("gpus_per_node", self.gpus_per_node, self.gpu.max_gpus_per_node),
            ("nics_per_node", self.nics_per_node, self.gpus_per_node),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
                raise NcclModelError(f"{name} must be a whole number from 1 to {high}, got {value}")
        if self.ranks < 2:
            raise NcclModelError("a collective needs at least 2 ranks (nodes × gpus_per_node)")
        if self.ranks > MAX_RANKS:
            raise NcclModelError(
                f"{self.nodes} nodes × {self.gpus_per_node} GPUs = {self.ranks:,} ranks; "
                f"the model takes at most {MAX_RANKS:,}"
            )
        if self.gpus_per_node % self.nics_per_node:
            raise NcclModelError(
                f"nics_per_node ({self.nics_per_node}) must divide gpus_per_node "
                f"({self.gpus_per_node}): every NIC serves as many GPUs"
            )

    @property
    def ranks(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def arch(self) -> Arch:
        return Arch.of(self.gpu.compute_capability)

    @property
    def nvlink(self) -> bool:
        """Whether GPUs of a node talk over NVLink (through NVSwitches)."""
        return self.gpu.nvlink is not None and self.gpus_per_node > 1

    @property
    def intra_bw(self) -> float:
        """GB/s per GPU and direction inside a node: NVLink, or the GPU's PCIe link."""
        if self.gpu.nvlink is not None and self.gpus_per_node > 1:
            return self.gpu.nvlink.nccl_bw
        return self.pcie.nccl_bw

    @property
    def total_bw(self) -> float:
        """``system->totalBw``: the larger of a GPU's NVLink sum and its PCIe link."""
        nvlink = self.gpu.nvlink.nccl_bw if self.gpu.nvlink is not None else 0.0
        return max(self.pcie.nccl_bw, nvlink)

    @property
    def nic_path_bw(self) -> float:
        """GB/s of the path GPU → PCIe switch → NIC → network: its slowest link."""
        nic_pcie = hardware.PCIE[self.nic.pcie].nccl_bw
        return min(self.pcie.nccl_bw, nic_pcie, self.nic.nccl_bw)

    @property
    def nvls(self) -> bool:
        """NVLink SHARP is usable: an sm_90+ GPU on NVSwitch, more than one GPU per node."""
        return self.gpu.nvls and self.gpus_per_node > 1 and self.nvls_enable

    def describe(self) -> str:
        """``2 nodes × 8 H100 (8 × NDR NICs per node, PCIe gen5, intel CPUs)``."""
        net = f"{self.nics_per_node} × {self.nic.name.upper()} NICs per node, "
        sharp = ", IB SHARP" if self.sharp else ""
        return (
            f"{self.nodes:,} node{'s' * (self.nodes > 1)} × {self.gpus_per_node} "
            f"{self.gpu.name.upper()} ({net * (self.nodes > 1)}PCIe {self.pcie.name}, "
            f"{self.cpu.value} CPUs{sharp})"
        )


def topology(
    gpu: str = "h100",
    nodes: int = 1,
    gpus_per_node: int | None = None,
    *,
    nic: str | None = None,
    nics_per_node: int | None = None,
    pcie: str | None = None,
    cpu: str | None = None,
    sharp: bool = False,
    nvls: bool = True,
) -> Topology:
    """A :class:`Topology` from preset names; unset parts come from the GPU's server
    (8 GPUs, one NIC per GPU, its PCIe generation, NIC and CPU)."""
    try:
        g = hardware.gpu(gpu)
        chosen_nic = hardware.nic(nic) if nic is not None else hardware.NICS[g.nic]
        chosen_pcie = hardware.pcie(pcie) if pcie is not None else hardware.PCIE[g.pcie]
    except hardware.HardwareError as exc:
        raise NcclModelError(str(exc)) from None
    vendor = g.cpu
    if cpu is not None:
        try:
            vendor = CpuVendor(str(cpu).strip().lower())
        except ValueError:
            choices = ", ".join(v.value for v in CpuVendor)
            raise NcclModelError(f"unknown CPU vendor {cpu!r}; choose one of {choices}") from None
    per_node = g.max_gpus_per_node if gpus_per_node is None else gpus_per_node
    return Topology(
        gpu=g,
        nodes=nodes,
        gpus_per_node=per_node,
        nic=chosen_nic,
        nics_per_node=per_node if nics_per_node is None else nics_per_node,
        pcie=chosen_pcie,
        cpu=vendor,
        sharp=bool(sharp),
        nvls_enable=bool(nvls),
    )
