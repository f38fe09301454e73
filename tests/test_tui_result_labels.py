"""N19: the live result panel names its fields as a reader would, not by their internal
names (``time_s``, ``nccl_time_s``)."""

from __future__ import annotations

from rich.console import Console

from deck import units
from quizcoll.tui.widgets.result_view import field_label, field_table


def test_field_labels_drop_the_unit_suffix_and_underscores() -> None:
    assert field_label("time_s") == "time"
    assert field_label("nccl_time_s") == "nccl time"
    assert field_label("kv_bytes_per_token") == "kv bytes per token"
    assert field_label("steps") == "steps"


def test_the_panel_shows_no_internal_names() -> None:
    table = field_table(
        {"time_s": 0.0191, "nccl_time_s": 0.0232, "raw_time_s": 0.0191},
        {
            "time_s": units.Dim.SECONDS,
            "nccl_time_s": units.Dim.SECONDS,
            "raw_time_s": units.Dim.SECONDS,
        },
    )
    console = Console(width=60, record=True)
    console.print(table)
    text = console.export_text()
    assert "_s" not in text and "nccl time" in text and "19.1 ms" in text
