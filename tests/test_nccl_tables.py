"""NCCL's tuner tables live once, in ``quizcoll/data/nccl.yaml``, each held to its quote.

The tuner, the channel search and the cards all read the same records; what catches a
wrong cell is the table's second record, the NCCL source lines in its ``quote``, which
``check`` reads by position. These tests edit copies of the file the way a slip (or a
mutant) would and expect the exact cell to be named; and they hold a few cells to NCCL's
source text as printed in the release notes' own lines, typed here from the tag.
"""

from __future__ import annotations

import ast
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from deck.proving.codemutation import data_mutants
from deck.proving.provenance import check_constants, listed_numbers
from quizcoll.collectives.nccl import constants as nc
from quizcoll.collectives.nccl.constants import Algorithm, Arch, Hw, Protocol
from quizcoll.constants.data import DataError, parse_figures
from quizcoll.memory import figures

PATH = "quizcoll/data/nccl.yaml"
ROOT = Path(__file__).resolve().parents[1]


def _text() -> str:
    return resources.files("quizcoll").joinpath("data", "nccl.yaml").read_text("utf-8")


def _by_name(text: str) -> dict:
    return {c.name: c for c in parse_figures(text, PATH)}


def test_listed_numbers_read_an_initializer_as_nccl_writes_it() -> None:
    # comments dropped, a product is one cell, float suffixes and names' digits ignored
    row = "{2*141.0, 2*45.0 /*avg of ring & tree*/, 2*35.0}, /* Blackwell-N1/AMD-N2/AMD-N4) */"
    assert listed_numbers(row) == [282.0, 90.0, 70.0]
    assert listed_numbers("{ 1.0, .9,  .8 }, 0.85f, // Hopper 4") == [1.0, 0.9, 0.8, 0.85]
    assert listed_numbers("cpuArch == NCCL_TOPO_CPU_ARCH_X86) return 1.0;") == [1.0]
    assert listed_numbers("float sm90SpeedArrayInter[] = {48.0, 17.5,") == [48.0, 17.5]


def test_the_shipped_tables_pass_and_every_cell_is_quoted() -> None:
    cells = [c for c in parse_figures(_text(), PATH) if c.quote_index is not None]
    assert check_constants(parse_figures(_text(), PATH)) == ()
    # 14 arrays of tuning.cc and search.cc and the LL128 ratio: 7x3 x4 + 4x3 x5 + 3x24 + 4 + 2
    # + (13+11+12) + (19+17+20) + 4 cells
    assert len(cells) == 84 + 60 + 72 + 4 + 2 + 36 + 56 + 4


@pytest.mark.parametrize(
    ("old", "new", "cells"),
    [
        # hwLatencies[NVLINK] Tree: LL and LL128 swapped. Each figure is still in the row's
        # text, so only the positional reading catches it.
        (
            "tree: [0.6, 1.25, 4.0]",
            "tree: [1.25, 0.6, 4.0]",
            {"nccl_nvlink_tree_LL", "nccl_nvlink_tree_LL128"},
        ),
        # llMaxBws Hopper N2 set to the N4 figure of its own row
        (
            "hopper: [141.0, 45.0, 35.0]",
            "hopper: [141.0, 35.0, 35.0]",
            {"nccl_ll_max_bw_hopper_n2"},
        ),
        # the sm_90 intra-node speed array, one entry nudged by 10%
        ("sm90: [60.0, 50.0, 40.0,", "sm90: [60.0, 55.0, 40.0,", {"nccl_speed_intra_sm90_1"}),
        ("hopper: 0.85", "hopper: 0.8", {"nccl_nvls_efficiency_hopper"}),
    ],
)
def test_an_edited_cell_fails_check_at_its_row(old: str, new: str, cells: set[str]) -> None:
    text = _text()
    assert text.count(old) == 1
    failures = check_constants(parse_figures(text.replace(old, new), PATH))
    assert {f.card_id for f in failures} == cells
    row = next(i for i, line in enumerate(text.split("\n"), 1) if old in line)
    assert {f.location.line for f in failures if f.location} == {row}


def test_a_quote_that_lists_another_count_is_one_error_naming_the_table() -> None:
    text = _text().replace("      {  8.0,  8.0,  8.0 }                         // PAT", "", 1)
    with pytest.raises(DataError, match=r"nccl\.yaml:\d+: nccl_base: quote lists 18 numbers"):
        parse_figures(text, PATH)
    bad_row = _text().replace("tree: [6.8, 14.0, 8.4]", "tree: [6.8, 14.0]", 1)
    with pytest.raises(DataError, match=r"nccl_base: printed: tree: expected 3 cells"):
        parse_figures(bad_row, PATH)


def test_every_mutant_of_a_table_cell_fails_check() -> None:
    """The code-mutation bench edits table rows cell by cell; each edit of a cell must be
    caught by the quote (that is what the second record is for)."""
    text = _text()
    start = text.index("tables:")
    mutants = [m for m in data_mutants(PATH, text) if m.line > text[:start].count("\n")]
    assert len(mutants) > 3 * 300  # every cell, each with its 3-4 variants
    for m in mutants[::37]:  # a spread sample; the whole set runs in the bench
        assert check_constants(parse_figures(m.apply(text), PATH)), m.describe()


def test_the_tuner_reads_the_tables_it_is_checked_against() -> None:
    """One record, two readers: the calculators' lookup and the cards' constant agree."""
    c = _by_name(_text())
    assert nc.HW_LATENCY[Hw.NVLINK][Algorithm.RING][Protocol.LL] * 1e-6 == pytest.approx(
        c["nccl_nvlink_ring_LL"].value
    )
    assert nc.PER_CH_MAX_NVLS_TREE_BW[Arch.HOPPER][1] * 1e9 == pytest.approx(
        c["nccl_nvlstree_per_channel_hopper_n2"].value
    )
    assert nc.speeds(Arch.AMPERE, network=False)[0] * 1e9 == c["nccl_speed_intra_default_0"].value
    assert nc.TREE_CORRECTION[Protocol.SIMPLE][11] == c["nccl_tree_correction_Simple_11"].value


def test_figures_from_nccls_source_as_the_tag_prints_them() -> None:
    """A few cells against NCCL v2.30.7-1 as read from the tag (typed here, not computed):
    tuning.cc:159 ``{ 0.6, 1.25, 4.0 }, { 0.6, 1.9, 3.4 }``; :171 ``{ 5.0, 8.5, 14 }``;
    :182 ``{2*141.0, ...}``; :626 ``.5`` at index 11; search.cc:1057 sm_90 ``{60.0, ...``."""
    assert nc.HW_LATENCY[Hw.NVLINK][Algorithm.TREE][Protocol.LL128] == 1.25
    assert nc.HW_LATENCY[Hw.NVLINK][Algorithm.RING][Protocol.SIMPLE] == 3.4
    assert nc.HW_LATENCY[Hw.NET][Algorithm.TREE][Protocol.SIMPLE] == 14
    assert nc.LL_MAX_BW[Arch.BLACKWELL][0] == 282.0
    assert nc.TREE_CORRECTION[Protocol.SIMPLE][11] == 0.5
    assert nc.speeds(Arch.HOPPER, network=False)[0] == 60.0
    assert nc.MAXCHANNELS == 64 and nc.MAX_RING_CHANNELS == 32


def test_a_table_in_another_unit_than_the_caller_computes_in_is_an_error() -> None:
    with pytest.raises(figures.DataFileError, match="in 'µs', not 'GB/s'"):
        figures.table("nccl", "nccl_base", "GB/s")
    with pytest.raises(figures.DataFileError, match="no such table"):
        figures.table("nccl", "nccl_nope")


# The numbers the NCCL modules may still write: structure, not published figures (0, 1 and
# 2; NCCL's min(nNodes, 3) scale index; the tree's .5 bus-to-algorithm ratio; compute
# capabilities 80/90/100; µs per GB/s·bytes 1000; log2 of 64 B = 6; the pattern ids 3-6;
# float noise 1e-6; a cache size; the input caps 131,072 and 2^50).
_STRUCTURAL = {0, 1, 2, 3, 4, 5, 6, 0.5, 80, 90, 100, 256, 1000, 1e-06, 131_072, 2**50, 50}


@pytest.mark.parametrize(
    "module", ["constants.py", "tuner.py", "search.py", "choose.py", "topology.py"]
)
def test_the_nccl_modules_hold_no_published_figure(module: str) -> None:
    source = (ROOT / "quizcoll/collectives/nccl" / module).read_text("utf-8")
    numbers = {
        n.value
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Constant)
        and isinstance(n.value, int | float)
        and not isinstance(n.value, bool)
    }
    assert numbers <= _STRUCTURAL, sorted(numbers - _STRUCTURAL)
    assert not re.search(r"\b\d+\.\d+\s*,\s*\d+\.\d+", source)  # no table typed as a literal


def test_check_lists_every_constant_with_a_table_cell_s_place(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``check --list-constants`` prints every constant, a label unit (``FLOPS/B``) as the
    source prints it, and a table cell with the number of its quote it is held to."""
    from quizcoll.cli.main import main

    assert main(["check", "--list-constants"]) == 0
    lines = capsys.readouterr().out.splitlines()
    cell = next(line for line in lines if line.startswith("nccl_nvlink_tree_LL128 = "))
    assert cell.startswith("nccl_nvlink_tree_LL128 = 1.25 µs") and "quoted at number 2" in cell
    assert any(line.startswith("nvidia_linear_b512_intensity = 315 FLOPS/B") for line in lines)
    assert main(["check", "--list-constants", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert len(rows) == len(lines)
    assert rows["nccl_speed_inter_sm90_0"]["quote_index"] == 19
    assert rows["nccl_ll_bw_factor"]["quote_index"] is None
