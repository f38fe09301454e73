"""The published figures that moved out of the code into ``quizcoll/data/*.yaml``: each record
is read into the constant the cards use, at its ``PATH:LINE``, and each quoted record's
figure is held to its source's words, so a figure off by one in a copy of its file fails at
its record.

A quote of a table row prints every column's figure: the zero-bubble README's rows print
1x and 2x, so ZB1P's 1 edited to 2 still reads as printed. What pins a column is the record's
source naming it; those three records are listed apart (``ROW_QUOTES``), and a figure no
column prints still fails.
"""

from __future__ import annotations

import re

import pytest

from deck.proving.provenance import check_constants
from quizcoll.constants import DATA, MODULES, all_constants
from tests.test_data_tables_quoted import _constants, _doubled, _quoted, _text

MOVED = ("pytorch", "serving", "recipes", "runs", "parallelism", "systems", "formats")
MOVED += ("collective-formats",)
ROW_QUOTES = frozenset(
    {"zb1p_activation_vs_1f1b", "zbv_activation_vs_1f1b", "zb2p_pp_comm_vs_1f1b"}
)


def test_the_moved_files_are_read_and_only_definitions_stay_in_code() -> None:
    assert set(MOVED) <= set(DATA)
    assert MODULES == ("base", "training", "memory", "topics")
    by_name = {c.name: c for c in all_constants()}
    for name in MOVED:
        for c in _constants(name, _text(name)):
            assert by_name[c.name].where.startswith(f"quizcoll/data/{name}.yaml:"), c.name


@pytest.mark.parametrize(
    ("name", "record"), [(n, r) for n in MOVED for r in _quoted(n)], ids=lambda x: str(x)
)
def test_a_figure_off_by_one_in_a_copy_of_its_file_fails_at_its_record(
    name: str, record: str
) -> None:
    pattern = rf"(- name: {re.escape(record)}\n(?:    .*\n)*?    printed: )([0-9.]+)"
    edited, n = re.subn(pattern, lambda m: m.group(1) + repr(float(m.group(2)) + 1), _text(name))
    assert n == 1
    failures = check_constants(_constants(name, edited))
    if record in ROW_QUOTES:  # its row prints the edited figure in another column
        assert failures == ()
        failures = check_constants(
            _constants(name, _doubled(_doubled(_text(name), record), record))
        )
    assert len(failures) == 1
    assert record in failures[0].format()


@pytest.mark.parametrize(
    ("record", "value"),
    [
        ("ddp_bucket_cap", 25 * 2**20),
        ("torch_nccl_default_timeout", 600),
        ("cuda_lazy_used_bytes", 287_047_680),
        ("deepseek_v3_nvlink_bandwidth", 160e9),
        ("palm_params", 540.35e9),
        ("tpu_v4_peak", 275e12),
        ("qlora_gpu_bytes", 48e9),
        ("llama3_8b_q4_k_m_bytes", 4.58 * 2**30),
    ],
)
def test_a_figure_is_read_in_base_units_from_its_display_unit(record: str, value: float) -> None:
    by_name = {c.name: c for c in all_constants()}
    assert by_name[record].value == pytest.approx(value, rel=1e-12)
