"""The GPU and link tables' quotes catch a wrong figure: a copy of ``gpus.yaml`` or
``links.yaml`` with one quoted record's ``printed`` doubled fails ``check_constants`` at that
record, and the PCIe presets read their figures from the data file, not from a copy."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from deck.cards.yamlsource import parse_yaml
from deck.proving.provenance import check_constants
from quizcoll.collectives import hardware as hw
from quizcoll.constants.data import _record
from quizcoll.memory import figures

_PRINTED = re.compile(r"^(    printed: )(\S+)$")


def _text(name: str) -> str:
    return resources.files("quizcoll").joinpath("data", f"{name}.yaml").read_text("utf-8")


def _constants(text: str, path: str) -> list:
    data, problem = parse_yaml(text, path)
    assert problem is None
    items = data["figures"]
    return [_record(path, items.where(i).line, r) for i, r in enumerate(items)]


def _quoted(name: str) -> list[str]:
    return [c.name for c in _constants(_text(name), name) if c.quote]


def _doubled(text: str, record: str) -> str:
    """The file's text with ``record``'s printed figure ×2 (the first printed line after its name)."""
    lines, inside = text.split("\n"), False
    for i, line in enumerate(lines):
        if line.startswith("  - name: "):
            inside = line == f"  - name: {record}"
        elif inside and (m := _PRINTED.match(line)):
            lines[i] = f"{m.group(1)}{float(m.group(2)) * 2!r}"
            return "\n".join(lines)
    raise AssertionError(f"no printed line for {record}")


@pytest.mark.parametrize("table", ["gpus", "links"])
def test_the_shipped_tables_pass(table: str) -> None:
    assert check_constants(_constants(_text(table), f"quizcoll/data/{table}.yaml")) == ()


@pytest.mark.parametrize(
    ("table", "record"), [(t, r) for t in ("gpus", "links") for r in _quoted(t)]
)
def test_a_doubled_figure_in_a_copy_of_the_table_fails_at_its_record(
    table: str, record: str
) -> None:
    path = f"quizcoll/data/{table}.yaml"
    failures = check_constants(_constants(_doubled(_text(table), record), path))
    assert [f.card_id for f in failures] == [record]
    assert failures[0].location is not None and failures[0].location.path == path


def test_the_quoted_counts_do_not_shrink() -> None:
    # 65 of gpus.yaml's records and 43 of links.yaml's print their figure in a quote.
    assert len(_quoted("gpus")) >= 65
    assert len(_quoted("links")) >= 43


def test_the_pcie_presets_are_the_data_files_figures() -> None:
    for gen, p in hw.PCIE.items():
        assert p.transfer_gt_s == figures.printed("links", f"{gen}_gt_s")
        assert p.nccl_lane_rate == figures.printed("links", f"{gen}_nccl_lane_rate")
    # PCI-SIG's x16 rates per direction after line coding: 15.75, 31.5, 63 and 121 GB/s.
    assert [round(hw.PCIE[g].line_rate, 2) for g in ("gen3", "gen4", "gen5", "gen6")] == [
        15.75,
        31.51,
        63.02,
        121.0,
    ]


def test_a_figure_the_data_file_lacks_is_one_clear_error() -> None:
    with pytest.raises(figures.DataFileError, match=r"links\.yaml: gen9_gt_s: no such record"):
        figures.printed("links", "gen9_gt_s")
    with pytest.raises(figures.DataFileError, match="in '', not 'GB/s'"):
        figures.printed("links", "gen4_gt_s", "GB/s")
