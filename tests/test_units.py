"""Units: parsing what people type, formatting for humans, and junk that must fail cleanly."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deck import units
from deck.units import Dim, UnitError, parse_quantity


@pytest.mark.parametrize(
    ("text", "dim", "value"),
    [
        ("1GiB", Dim.BYTES, 2**30),
        ("256MiB", Dim.BYTES, 256 * 2**20),
        ("4e6", Dim.BYTES, 4e6),
        ("16MB", None, 16e6),
        ("14 GB", Dim.BYTES, 14e9),
        ("13.04GiB", Dim.BYTES, 13.04 * 2**30),
        ("1,024 MiB", Dim.BYTES, 2**30),
        ("900GB/s", Dim.RATE, 900e9),
        ("400 Gb/s", Dim.RATE, 50e9),
        ("25 GiB/s", Dim.RATE, 25 * 2**30),
        ("2 ms", Dim.SECONDS, 2e-3),
        ("5us", Dim.SECONDS, 5e-6),
        ("5 µs", Dim.SECONDS, 5e-6),
        ("2.4 days", Dim.SECONDS, 2.4 * 86400),  # training runs are quoted in days
        ("1 day", Dim.SECONDS, 86400),
        ("6.74B", Dim.COUNT, 6.74e9),
        ("70 billion", Dim.COUNT, 70e9),
        ("1.5e10", Dim.COUNT, 1.5e10),
        ("1.5×10^9", None, 1.5e9),
        ("−3", None, -3),
        ("12%", Dim.RATIO, 0.12),
    ],
)
def test_parse_quantity(text: str, dim: Dim | None, value: float) -> None:
    assert parse_quantity(text, dim).value == pytest.approx(value)


def test_bare_g_is_ambiguous_with_both_readings() -> None:
    q = parse_quantity("14G", Dim.BYTES)
    assert q.ambiguous
    assert q.candidates == (14e9, 14 * 2**30)


@pytest.mark.parametrize(
    ("text", "label"), [("1.75S", "S"), ("1.75 × S", "S"), ("1.75 * S", "S"), ("1.75", "S")]
)
def test_label_units(text: str, label: str) -> None:
    assert parse_quantity(text, Dim.RATIO, label=label).value == 1.75


def test_label_count_plural() -> None:
    assert parse_quantity("8 GPUs", Dim.COUNT, label="GPUs").value == 8
    assert parse_quantity("1 GPU", Dim.COUNT, label="GPUs").value == 1


@pytest.mark.parametrize(
    ("text", "dim", "message"),
    [
        ("12 furlongs", Dim.BYTES, "unknown unit 'furlongs'"),
        ("2 ms", Dim.BYTES, "is a unit of seconds, expected bytes"),
        ("fourteen", None, "is not a number"),
        ("", None, "is not a number"),
        ("1e999", None, "out of range"),
    ],
)
def test_parse_errors(text: str, dim: Dim | None, message: str) -> None:
    with pytest.raises(UnitError, match=message):
        parse_quantity(text, dim)


def test_to_base_refuses_ambiguous_sizes() -> None:
    assert units.to_base("1GiB", Dim.BYTES) == 2**30
    assert units.to_base(123, Dim.BYTES) == 123
    with pytest.raises(UnitError, match="ambiguous"):
        units.to_base("1G", Dim.BYTES)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (14e9, "13.04 GiB (14.00 GB)"),
        (4e9, "3.73 GiB (4.00 GB)"),
        (512, "512 B"),
    ],
)
def test_format_bytes_both(value: float, text: str) -> None:
    assert units.format_bytes_both(value) == text


def test_format_helpers() -> None:
    assert units.format_count(4096, "tokens") == "4,096 tokens"
    assert units.format_count(1, "GPUs") == "1 GPU"
    assert units.format_count(8, "GPUs") == "8 GPUs"
    assert units.format_value(1.75, Dim.RATIO, "S") == "1.75 × S"
    assert units.format_rate(9e11) == "900.00 GB/s"
    assert units.format_seconds(2.3e-5) == "23 µs"
    assert units.format_number(6738415616) == "6,738,415,616"


@given(st.text(max_size=60))
def test_junk_raises_only_unit_error(text: str) -> None:
    for dim in (None, Dim.BYTES, Dim.RATE, Dim.SECONDS, Dim.COUNT, Dim.RATIO):
        with contextlib.suppress(UnitError):
            parse_quantity(text, dim, label="S")


@given(
    st.floats(min_value=1, max_value=1e15, allow_nan=False),
    st.sampled_from(["B", "KB", "MiB", "GB", "GiB", "TB"]),
)
def test_round_trip_through_text(value: float, unit: str) -> None:
    text = f"{value!r} {unit}"
    q = parse_quantity(text, Dim.BYTES)
    assert q.value == pytest.approx(value * units.lookup_unit(unit).factor)
