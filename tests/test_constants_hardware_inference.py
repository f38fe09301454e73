"""The hardware and inference constants: the data files' records of the published figures
agree with the calculators' own tables (GPU catalog, link presets, NCCL's tuning constants),
two records typed apart; named so ``{gpu}_…`` picks a drawn choice."""

from __future__ import annotations

import pytest

from deck.cards.placeholders import name_part
from quizcoll.collectives import hardware as hw
from quizcoll.constants import all_constants
from quizcoll.constants.data import figures
from quizcoll.executables import build_registry
from quizcoll.memory.gpus import COMPUTE

BY_NAME = dict(build_registry().constants)  # cited, and the derived link figures


def test_names_are_unique_across_every_module() -> None:
    names = [c.name for c in all_constants()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("key", sorted(COMPUTE))
def test_every_catalog_gpu_has_its_bandwidth_and_peaks(key: str) -> None:
    spec = COMPUTE[key]
    assert BY_NAME[f"{name_part(key)}_hbm_bandwidth"].value == spec.hbm_bandwidth
    for dtype in spec.dtypes:
        assert BY_NAME[f"{name_part(key)}_peak_{dtype}"].value == spec.peak_flops(dtype)


@pytest.mark.parametrize("key", [*hw.NVLINK_ONLY, *hw.GPUS, *hw.PCIE, *hw.NICS])
def test_every_link_has_its_line_rate_and_nccl_figure(key: str) -> None:
    f = hw.link_figures(key)
    assert BY_NAME[f"{key}_line_rate"].value == pytest.approx(f.line_rate * 1e9)
    assert BY_NAME[f"{key}_nccl_bw"].value == pytest.approx(f.nccl_bw * 1e9)


@pytest.mark.parametrize(
    ("gpu", "links", "line", "nccl"),
    [("v100", 6, 25, 20.0), ("a100", 12, 25, 20.0), ("h100", 18, 25, 20.6), ("b200", 18, 50, 40.1)],
)
def test_nvlink_per_link_figures(gpu: str, links: int, line: float, nccl: float) -> None:
    assert BY_NAME[f"{gpu}_nvlink_links"].value == links
    assert BY_NAME[f"{gpu}_nvlink_link_rate"].value == line * 1e9
    assert BY_NAME[f"{gpu}_nccl_link_bw"].value == pytest.approx(nccl * 1e9)


def test_pcie_nic_and_nccl_figures() -> None:
    assert [BY_NAME[f"gen{g}_gt_s"].value for g in (3, 4, 5, 6)] == [8, 16, 32, 64]
    assert [BY_NAME[f"gen{g}_nccl_lane_rate"].value for g in (3, 4, 5, 6)] == [60, 120, 240, 480]
    assert [BY_NAME[f"{n}_gbit"].value for n in ("hdr", "ndr", "xdr")] == [200, 400, 800]
    assert BY_NAME["h100_gpu_pcie_nccl_bw"].value == 48e9
    assert BY_NAME["a100_gpu_pcie_nccl_bw"].value == 24e9
    assert BY_NAME["nccl_nvlink_nvls_Simple"].value == pytest.approx(25e-6)
    assert BY_NAME["nccl_nvls_efficiency_hopper"].value == 0.85
    assert BY_NAME["nccl_base_ring_LL"].value == pytest.approx(6.6e-6)
    assert BY_NAME["nccl_nvlink_ring_LL"].value == pytest.approx(0.6e-6)
    assert BY_NAME["nccl_ll_max_bw_hopper_n1"].value == pytest.approx(141e9)


def test_every_published_figure_has_a_source_and_its_record() -> None:
    for c in (*figures("systems"), *figures("serving")):
        assert c.source and len(c.source) > 20, c.name
        assert c.where.startswith("quizcoll/data/"), c.name
