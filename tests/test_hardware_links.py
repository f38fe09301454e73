"""hardware.link's per-link figures: NVLink by generation (V100 to B200), PCIe before and after
line encoding, NICs in Gb/s and GB/s, NCCL's per-link constants (topo.h)."""

from __future__ import annotations

import pytest

from quizcoll.collectives import hardware
from quizcoll.executables import build_registry

REGISTRY = build_registry()
GB = 1e9


@pytest.mark.parametrize(
    ("link", "generation", "links", "per_link_line", "per_link_nccl", "bidirectional"),
    [
        ("v100", "nvlink2", 6, 25, 20.0, 300),
        ("a100", "nvlink3", 12, 25, 20.0, 600),
        ("h100", "nvlink4", 18, 25, 20.6, 900),
        ("h200", "nvlink4", 18, 25, 20.6, 900),
        ("b200", "nvlink5", 18, 50, 40.1, 1800),
    ],
)
def test_nvlink_by_generation(
    link: str,
    generation: str,
    links: int,
    per_link_line: float,
    per_link_nccl: float,
    bidirectional: float,
) -> None:
    r = REGISTRY.call("hardware.link", {"link": link})
    assert (r["kind"], r["generation"], r["lanes"]) == ("nvlink", generation, links)
    assert r["lane_line_rate"] == pytest.approx(per_link_line * GB)
    assert r["lane_nccl_bw"] == pytest.approx(per_link_nccl * GB)
    assert r["line_rate"] == pytest.approx(links * per_link_line * GB)
    assert r["nccl_bw"] == pytest.approx(links * per_link_nccl * GB)
    assert r["bidirectional_line_rate"] == pytest.approx(bidirectional * GB)
    assert r["raw_rate"] == r["line_rate"]


# ``line``: the x16 throughput per direction as PCI-SIG's generations are tabulated
# (Wikipedia, "PCI Express", History and revisions: x16 15.754 / 31.508 / 63.015 / 121 GB/s),
# a published figure, not the code's GT/s × 16 / 8 × encoding re-typed.
@pytest.mark.parametrize(
    ("gen", "gt_s", "raw", "line", "nccl"),
    [
        ("gen3", 8, 16, 15.754, 12),
        ("gen4", 16, 32, 31.508, 24),
        ("gen5", 32, 64, 63.015, 48),
        ("gen6", 64, 128, 121.0, 96),
    ],
)
def test_pcie_raw_line_and_nccl(gen: str, gt_s: int, raw: float, line: float, nccl: float) -> None:
    r = REGISTRY.call("hardware.link", {"link": gen})
    assert r["raw_rate"] == pytest.approx(gt_s * 16 / 8 * GB) == pytest.approx(raw * GB)
    assert r["line_rate"] == pytest.approx(line * GB, rel=1e-4)
    assert r["nccl_bw"] == pytest.approx(nccl * GB)
    assert (r["lanes"], r["lane_nccl_bw"]) == (16, pytest.approx(nccl / 16 * GB))
    assert r["measured_low"] is None and r["measured_high"] is None


@pytest.mark.parametrize(("nic", "gbit"), [("hdr", 200), ("ndr", 400), ("xdr", 800)])
def test_nic_gbit_is_an_eighth_in_gbyte(nic: str, gbit: int) -> None:
    r = REGISTRY.call("hardware.link", {"link": nic})
    assert r["line_rate"] == pytest.approx(gbit * GB / 8) == r["nccl_bw"] == r["raw_rate"]
    assert (r["generation"], r["lanes"]) == (nic, 1)


@pytest.mark.parametrize(
    ("link", "pcie"),
    [
        ("v100", 12),
        ("a100", 24),
        ("h100", 48),
        ("l40s", 24),
        ("gen6", 96),
        ("hdr", 24),
        ("xdr", 96),
    ],
)
def test_the_pcie_link_behind_each_device(link: str, pcie: float) -> None:
    assert REGISTRY.call("hardware.link", {"link": link})["pcie_nccl_bw"] == pytest.approx(
        pcie * GB
    )


def test_ndr_measured_range_and_pcie_only_gpu() -> None:
    ndr = REGISTRY.call("hardware.link", {"link": "ndr"})
    assert (ndr["measured_low"], ndr["measured_high"]) == (46 * GB, 48 * GB)
    l40s = REGISTRY.call("hardware.link", {"link": "l40s"})
    assert (l40s["kind"], l40s["generation"]) == ("pcie", "gen4")


def test_v100_is_a_link_figure_not_an_nccl_preset() -> None:
    assert "v100" in hardware.NVLINK_ONLY and "v100" not in hardware.GPUS
    assert "V100 NVLink" in hardware.links_table().splitlines()[2]
    with pytest.raises(hardware.HardwareError, match="did you mean 'v100'"):
        hardware.link_figures("v10")
