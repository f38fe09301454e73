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


def test_the_note_states_the_generated_figures() -> None:
    text = DOC.read_text(encoding="utf-8")
    held = measured.summary(measured.errors(held=True))
    full = measured.summary(measured.errors(held=False))
    note = text[text.index("What this shows, plainly") :]
    assert f"held-out median {held['≥ 256 MiB'].median:.1%}" in note
    assert f"at {full['< 64 KiB'].median:.1%} against the tuner's" in note
    assert f"({held['< 64 KiB'].median:.0%} against" in note
    assert f"{held['16 – 256 MiB'].median:.0%} held out" in note


def test_fit_is_non_negative_and_ignores_tcpxo() -> None:
    p = measured.fitted()
    assert min(p.launch_us, p.k_latency, p.step_us, p.k_fill) >= 0
    others = tuple(s for s in systems() if s.transport != "tcpxo")
    assert measured.fit(others) == p  # the TCPXO system is judged, never fitted


def test_large_sizes_held_out_stay_within_ten_percent() -> None:
    cell = measured.summary(measured.errors(held=True))["≥ 256 MiB"]
    assert cell.rows >= 15 and cell.median <= 0.10


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("transport: tcpxo", "transport: carrier-pigeon"), "transport"),
        (lambda t: t.replace("[8, 135.8, 0]", "[8, -135.8, 0]"), "time"),
        (lambda t: t.replace("[16, 123.2, 0]", "[8, 123.2, 0]"), "twice"),
        (lambda t: t.replace("gpu: h100, nodes: 2", "gpu: h900, nodes: 2", 1), "topology"),
        (lambda t: t.replace('url: "https://github.com/lessizzmore', 'url: "http://x', 1), "url"),
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
