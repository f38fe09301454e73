"""docs/collectives.md's "Model against measurement" and link tables against the code.

The tables are printed from :mod:`quizcoll.collectives.nccl.measurements` and
:func:`quizcoll.collectives.hardware.links_table`; the page must hold exactly that text,
the model must stay within the stated tolerance of every published measurement, and it
must pick what NCCL was seen to pick.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizcoll.collectives.hardware import links_table
from quizcoll.collectives.nccl import measurements as m

DOC = Path(__file__).resolve().parent.parent / "docs" / "collectives.md"


def _block(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.DOTALL)
    assert found, f"docs/collectives.md has no {name} block"
    return found.group(1)


def test_docs_hold_the_generated_measurement_tables() -> None:
    assert _block("nccl-measurements") == m.tables(), (
        "regenerate with: python -m quizcoll.collectives.nccl.measurements"
    )


def test_docs_hold_the_generated_link_table() -> None:
    assert _block("nccl-links") == links_table() + "\n"


@pytest.mark.parametrize("row", m.MEASUREMENTS, ids=lambda r: r.system)
def test_model_stays_close_to_every_measurement(row: m.Measurement) -> None:
    assert abs(row.error()) <= m.TOLERANCE, f"{row.system}: model {row.model():.1f} GB/s"


@pytest.mark.parametrize("row", m.OBSERVED, ids=lambda r: f"{r.system} {r.low}")
def test_model_picks_what_nccl_was_seen_to_pick(row: m.ObservedChoice) -> None:
    assert set(row.model_picks()) <= set(row.picks)


def test_the_tolerance_is_not_vacuous() -> None:
    # the closest rows are within a few percent: a broken model would leave the band
    errors = sorted(abs(r.error()) for r in m.MEASUREMENTS)
    assert errors[0] < 0.02 and errors[len(errors) // 2] < 0.10
    assert m.cite(m.MEASUREMENTS[0].url) == "nccl-tests #212"


def test_docs_prose_figures_are_the_models(capsys: pytest.CaptureFixture) -> None:
    import json

    from deck.units import format_seconds
    from quizcoll.cli.main import main
    from quizcoll.collectives.nccl import Algorithm, Func, Protocol, entry, topology

    text = DOC.read_text(encoding="utf-8")
    one, big = topology("h100"), topology("h100", 2048)
    nvls = entry(one, Func.ALL_REDUCE, Algorithm.NVLS, Protocol.SIMPLE)
    ring = {p: entry(big, Func.ALL_REDUCE, Algorithm.RING, p).latency_us for p in Protocol}
    tree = entry(big, Func.ALL_REDUCE, Algorithm.TREE, Protocol.SIMPLE).latency_us
    assert f"{nvls.bus_bandwidth:.0f} GB/s of busbw" in text
    assert f"{nvls.bandwidth:.0f} GB/s algbw" in text
    assert f"{ring[Protocol.SIMPLE] / 1000:.0f} ms" in text
    assert f"{ring[Protocol.LL] / 1000:.0f} ms with LL" in text
    assert f"{tree / 1000:.2f} ms for a tree" in text

    def hierarchical(size: str) -> dict:
        argv = ["sim", "all_reduce", "--nodes", "4", "--gpus-per-node", "8", "--size", size]
        assert main([*argv, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    large, small = hierarchical("1GiB"), hierarchical("1MiB")
    per_nic = large["flat_ring_inter_node_bytes_per_nic"] / 2**20
    assert (
        f"takes {format_seconds(large['time_s'])}, the flat ring {per_nic:.0f} MiB per NIC "
        f"and {format_seconds(large['flat_ring_time_s'])}" in text
    )
    assert (
        f"{format_seconds(small['time_s'])} against {format_seconds(small['flat_ring_time_s'])}"
        in text
    )
