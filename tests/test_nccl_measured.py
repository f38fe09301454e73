"""The measured model and its data: published nccl-tests rows, the fit, the docs' tables.

The rows are checked against themselves (each printed busbw against its size and time,
with nccl-tests' factor), so a typo in the data file fails here; the docs must hold the
generated tables and the closing note's figures.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from quizcoll.cli.main import main
from quizcoll.collectives import measured, measured_report
from quizcoll.collectives.published import PublishedDataError, parse_systems, systems

DOC = Path(__file__).resolve().parent.parent / "docs" / "collectives.md"
DATA = Path(measured.__file__).parent / "data" / "nccl_tests_published.yaml"


def _block() -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- nccl-measured:begin -->\n(.*?)<!-- nccl-measured:end -->", text, re.S)
    assert found
    return found.group(1)


def test_docs_hold_the_generated_tables() -> None:
    assert _block() == measured_report.tables(), (
        "regenerate with: python -m quizcoll.collectives.measured_report"
    )


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.id)
def test_every_row_agrees_with_itself(system: object) -> None:
    ranks = system.topology().ranks  # type: ignore[attr-defined]
    factor = 2 * (ranks - 1) / ranks
    for row in system.rows:  # type: ignore[attr-defined]
        if row.time_us is None or row.busbw < 1:
            continue  # printed 0.00–0.99 GB/s: two decimals say too little
        printed = row.size / (row.time_us * 1e3) * factor
        assert printed == pytest.approx(row.busbw, rel=0.01, abs=0.01), row


def _classes(*, held: bool) -> dict[str, measured.Cell]:
    return measured.summary(measured.on_fitted_transports(measured.errors(held=held)))


def test_the_note_states_the_generated_figures() -> None:
    text = DOC.read_text(encoding="utf-8")
    held, full = _classes(held=True), _classes(held=False)
    note = text[text.index("What this shows, plainly") :]
    big, small = held["≥ 256 MiB"], held["< 64 KiB"]
    assert (
        f"Held-out median {big.median:.1%} ({big.rows} rows), beside the tuner's {big.tuner_median:.1%}"
        in note
    )
    assert f"Held-out median {small.median:.1%} ({small.rows} rows)" in note
    assert f"against the tuner's {small.tuner_median:.1%}" in note
    assert f"(fitted to all: {full['< 64 KiB'].median:.1%})" in note
    for name in ("16 – 256 MiB", "1 – 16 MiB"):
        cell = held[name]
        assert f"{cell.median:.1%} held out (tuner {cell.tuner_median:.1%})" in note
    assert f"{full['1 – 16 MiB'].median:.1%} fitted to all" in note
    p = measured.fitted()
    assert f"launch {p.launch_us:.1f} µs, latency × {p.k_latency:.2f}, {p.step_us:.1f} µs" in note
    assert (
        f"the Tree\n  fill × {p.k_fill_tree:.2f} and the NVLS-family fill × {p.k_fill_nvls:.2f}"
        in note
    )
    per = measured.per_system(measured.errors(held=True))
    assert f"({per['dstack-nebius-2x8-h100'][1]:.1%} over all its rows)" in note
    assert f"priced too slow held out ({per['deepep-1x8-h20'][1]:.1%})" in note


def test_the_note_says_which_goals_are_met() -> None:
    # the goals: median |busbw error| ≤ 10% from 1 MiB up, ≤ 25% in time below 64 KiB
    note = DOC.read_text(encoding="utf-8").split("What this shows, plainly")[1]
    held = _classes(held=True)
    for name, goal in (("≥ 256 MiB", 0.10), ("16 – 256 MiB", 0.10), ("1 – 16 MiB", 0.10)):
        verdict = "met" if held[name].median <= goal else "not met"
        assert f"**{name}: {verdict}" in note
    small = "met" if held["< 64 KiB"].median <= 0.25 else "not met"
    assert f"**Below 64 KiB: {small}" in note


def test_fit_is_non_negative_and_ignores_tcpxo() -> None:
    p = measured.fitted()
    assert p.coefficients().min() >= 0
    others = tuple(s for s in systems() if s.transport != "tcpxo")
    assert measured.fit(others) == p  # the TCPXO system is judged, never fitted


def test_held_out_leaves_the_whole_group_out() -> None:
    every = systems()
    grouped = [s for s in every if s.group]
    assert len({s.group for s in grouped}) >= 3
    for s in grouped:
        rest = tuple(o for o in every if o.group != s.group)
        assert measured.held_out()[s.id] == measured.fit(rest)
        alone = tuple(o for o in every if o.id != s.id)  # its siblings would be in this fit
        siblings = [o for o in grouped if o.group == s.group and o.id != s.id]
        if any(o.transport in measured.FITTED_TRANSPORTS for o in siblings):
            assert measured.fit(alone) != measured.held_out()[s.id]


def test_held_out_goals_that_are_met_stay_met() -> None:
    held = _classes(held=True)
    assert held["≥ 256 MiB"].rows >= 40 and held["≥ 256 MiB"].median <= 0.10
    assert held["< 64 KiB"].rows >= 40 and held["< 64 KiB"].median <= 0.25


def test_the_fill_has_one_coefficient_per_family_and_none_for_rings() -> None:
    from quizcoll.collectives import nccl

    p = measured.fitted()
    one = nccl.topology(gpu="h100", nodes=1, gpus_per_node=8)
    two = nccl.topology(gpu="h100", nodes=2, gpus_per_node=8, nic="ndr", nics_per_node=8)
    for algo, topo, k in (
        (nccl.Algorithm.TREE, two, p.k_fill_tree),
        (nccl.Algorithm.NVLS, one, p.k_fill_nvls),
    ):
        pred = measured.predict("all_reduce", 64 * 2**20, topo, algo=algo, params=p)
        fill = measured.terms(pred.choice, p.chunk)[0][3:]
        assert (fill > 0).sum() == 1  # only the pick's family's column is priced
        assert pred.terms_us["fill"] == pytest.approx(float(fill.sum()) * k)
    # a ring has no fill: every rank sends its first chunk at once
    ring = measured.predict("all_reduce", 64 * 2**20, one, algo=nccl.Algorithm.RING, params=p)
    assert not measured.terms(ring.choice, p.chunk)[0][3:].any()
    assert ring.terms_us["fill"] == 0


def test_bandwidth_as_run_lifts_a_cap_counted_on_searched_channels() -> None:
    # 3 × 8 A100 SXM4, 4 HDR NICs (nccl-tests #119): the search lays 4 ring channels at
    # 24 GB/s (one per NIC: PCIe Gen4 x16 = 24, HDR = 25). tuning.cc, Ring/LL128:
    # "busBw = std::min(busBw * (0.92 /*120.0/128.0*/), graphs[a]->nChannels *
    # perChMaxRingLL128Bw)" = min(0.92 × 96 = 88.32, 4 × 20.0 = 80) = 80 GB/s; the kernels
    # run 2 × 4 = 8 channels at 12 GB/s, where the cap is 8 × 20 = 160, so the wire
    # bound 88.32 holds: algbw 88.32 × 24 / 46 (nRanks / nsteps).
    from quizcoll.collectives import nccl

    topo = nccl.topology("a100", nodes=3, gpus_per_node=8, nic="hdr", nics_per_node=4, cpu="intel")
    ll128 = nccl.choose(
        "all_reduce", 32 * 2**20, topo, algo=nccl.Algorithm.RING, proto=nccl.Protocol.LL128
    )
    assert ll128.best.entry.bus_bandwidth == pytest.approx(80.0)
    assert measured.as_run_bandwidth(ll128) == pytest.approx(88.32 * 24 / 46)
    # Ring/Simple has no per-channel cap: as run = the tuner's 96 × 24 / 46
    simple = nccl.choose(
        "all_reduce", 32 * 2**20, topo, algo=nccl.Algorithm.RING, proto=nccl.Protocol.SIMPLE
    )
    assert measured.as_run_bandwidth(simple) == pytest.approx(96.0 * 24 / 46)
    # NVLS is left as the tuner prices it
    one = nccl.topology("h100", nodes=1)
    nvls = nccl.choose("all_reduce", 2**30, one, algo=nccl.Algorithm.NVLS)
    assert measured.as_run_bandwidth(nvls) == nvls.best.bandwidth


def test_the_measured_model_can_be_faster_than_the_tuner() -> None:
    from quizcoll.collectives import nccl

    topo = nccl.topology("a100", nodes=3, gpus_per_node=8, nic="hdr", nics_per_node=4, cpu="intel")
    pred = measured.predict("all_reduce", 32 * 2**20, topo)
    assert pred.choice.best_name == "Ring/LL128"
    assert pred.time_s < pred.choice.time_s  # the latency scale and the as-run bandwidth
    assert pred.terms_us["bandwidth"] < 32 * 2**20 / (1000 * pred.choice.best.bandwidth)


def _system(system_id: str) -> object:
    return next(s for s in systems() if s.id == system_id)


def test_the_note_prices_the_b200_pair_as_nccls_tuner_does() -> None:
    # the note: NCCL's tuner, not a rule the port lacks, holds the 2 × 8 B200 sweep near
    # 490 GB/s: its NVLS graph is searched at the NIC path's speed on both sides, and the
    # NVLink term of the NVLSTree bandwidth binds below the 2 × bwInter and the cap
    from quizcoll.collectives import nccl

    topo = _system("dstack-lambda-2x8-b200").topology()  # type: ignore[attr-defined]
    nvls = nccl.graphs(topo).nvls
    assert nvls is not None and nvls.bw_intra == nvls.bw_inter == topo.nic_path_bw
    tree = nccl.entry(topo, nccl.Func.ALL_REDUCE, nccl.Algorithm.NVLS_TREE, nccl.Protocol.SIMPLE)
    per_head = tree.bus_bandwidth / tree.channels
    assert per_head < 2 * nvls.bw_inter  # the network term does not bind
    note = DOC.read_text(encoding="utf-8").split("What this shows, plainly")[1]
    assert f"{tree.channels} heads ×\n  min(" in note
    assert f"searched at {topo.nic_path_bw:g} GB/s a channel on both sides" in note
    assert f"NVLink term, {per_head:.1f} GB/s a head, binds" in note
    assert f"{tree.bus_bandwidth:.0f} GB/s bus" in note
    assert f"allows ({tree.channels} × 2 × {nvls.bw_inter:g})" in note
    lambda_rows = _system("dstack-lambda-2x8-b200").rows  # type: ignore[attr-defined]
    assert f"NVLSTree at {max(r.busbw for r in lambda_rows):.0f} GB/s busbw" in note


def test_the_oci_run_named_sixteen_hcas_as_the_note_says() -> None:
    # the note keeps the OCI hardware as its source states it: NCCL_IB_HCA lists 16 HCAs
    quote = _system("oci-2x8-a100-roce").quote  # type: ignore[attr-defined]
    found = re.search(r'NCCL_IB_HCA=\\?"([^"\\]+)', quote)
    assert found
    assert len(found.group(1).split(",")) == 16
    note = DOC.read_text(encoding="utf-8").split("What this shows, plainly")[1]
    assert "`NCCL_IB_HCA` lists sixteen HCAs" in note


def test_the_note_states_the_two_309_clusters_at_8_gib() -> None:
    note = DOC.read_text(encoding="utf-8").split("What this shows, plainly")[1]
    at = {
        sid: next(r.busbw for r in _system(sid).rows if r.size == 2**33)  # type: ignore[attr-defined]
        for sid in ("nccl-tests309-4x8-h100", "nccl-tests309-4x8-h100-b")
    }
    first, second = at["nccl-tests309-4x8-h100"], at["nccl-tests309-4x8-h100-b"]
    assert (
        f"prints {second:.1f} GB/s busbw (Ring/Simple) where the first prints {first:.1f}" in note
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("transport: tcpxo", "transport: carrier-pigeon"), "transport"),
        (lambda t: t.replace("[8, 135.8, 0]", "[8, -135.8, 0]"), "time"),
        (lambda t: t.replace("[16, 123.2, 0]", "[8, 123.2, 0]"), "twice"),
        (lambda t: t.replace("gpu: h100, nodes: 2", "gpu: h900, nodes: 2", 1), "topology"),
        (lambda t: t.replace('url: "https://github.com/lessizzmore', 'url: "http://x', 1), "url"),
        (lambda t: t.replace("group: nccl1221\n", "group: 7\n", 1), "group"),
    ],
)
def test_a_broken_data_file_is_refused(edit: object, message: str) -> None:
    with pytest.raises(PublishedDataError, match=message):
        parse_systems(edit(DATA.read_text(encoding="utf-8")))  # type: ignore[operator]


def test_sim_model_measured(capsys: pytest.CaptureFixture) -> None:
    argv = ["sim", "all_reduce", "--model", "measured", "--nodes", "16", "--gpus-per-node", "8"]
    assert main([*argv, "--size", "8B", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model"] == "measured" and doc["algorithm"] == "Tree"
    assert doc["time_s"] == pytest.approx(sum(doc["measured_terms_s"].values()))
    # nccl #1469 printed 62–77 µs for 8 B … 4 KiB on 16 nodes of 8 H100 (NCCL 2.20.5)
    assert 55e-6 < doc["time_s"] < 85e-6
    assert main([*argv, "--size", "8B"]) == 0
    assert "measured model (fitted to published nccl-tests sweeps)" in capsys.readouterr().out
