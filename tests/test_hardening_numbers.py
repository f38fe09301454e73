"""The one bounded number parser (issue 12): every number read is finite, within
±1e30 in base units (also after unit scaling), within its input's range, and whole numbers
are read exactly. Unit tables for the reproductions, properties for junk."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck import units
from deck.cards.registry import ArgumentError, Param, ParamKind
from deck.units import Dim, RangeError, UnitError, check_number, parse_number, parse_quantity

FUZZ = settings(max_examples=300, deadline=None)


@pytest.mark.parametrize(
    "text",
    ["1e300PiB", "1e300 PiB", "1e31", "-1e31", "1e29 PiB", "9" * 40, "1e999999999", "1e29 T"],
)
def test_overflow_from_scaling_is_refused(text: str) -> None:
    with pytest.raises(RangeError, match="out of range"):
        parse_quantity(text, Dim.BYTES if "PiB" in text else None)


@pytest.mark.parametrize("text", ["inf", "nan", "inf%", "-inf", "Infinity", "NaN GB", "1e"])
def test_not_numbers(text: str) -> None:
    with pytest.raises(UnitError):
        parse_number(text, "x")


@pytest.mark.parametrize("text", ["0x10", "0o17", "0b101", "-0x1"])
def test_hex_and_friends_are_refused(text: str) -> None:
    with pytest.raises(UnitError, match="decimal"):
        parse_number(text, "--ranks", integer=True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12345678901234567891", 12345678901234567891),  # exact: no float round trip
        ("4e19", 40_000_000_000_000_000_000),
        ("6.74B", 6_740_000_000),
        ("4,096", 4096),
        ("1_000", 1000),
        ("70 billion", 70_000_000_000),
        ("1e30", 10**30),
    ],
)
def test_whole_numbers_are_exact(text: str, value: int) -> None:
    got = parse_number(text, "n", integer=True)
    assert got == value and isinstance(got, int)


@pytest.mark.parametrize(
    ("text", "low", "high", "integer", "message"),
    [
        ("-1", 0, 2**63 - 1, True, "must be a whole number from 0 to 2^63-1, got -1"),
        ("1.5", 0, 10, True, "must be a whole number, got 1.5"),
        (
            "99999999999999999999",
            1,
            2**20,
            True,
            "must be a whole number from 1 to 1,048,576, got 1.000e+20",
        ),
        ("0", 1, None, False, "must be a number ≥ 1, got 0"),
    ],
)
def test_range_messages(
    text: str, low: float, high: float | None, integer: bool, message: str
) -> None:
    with pytest.raises(RangeError) as info:
        parse_number(text, "--flag", low=low, high=high, integer=integer)
    assert str(info.value) == f"--flag {message}"


def test_units_through_parse_number() -> None:
    assert parse_number("1GiB", "s", dim=Dim.BYTES, integer=True) == 2**30
    assert parse_number("5us", "t", dim=Dim.SECONDS) == pytest.approx(5e-6)
    with pytest.raises(UnitError, match="ambiguous"):
        parse_number("1G", "s", dim=Dim.BYTES)
    with pytest.raises(UnitError, match="unit of seconds"):
        parse_number("5us", "bw", dim=Dim.RATE)


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), -float("inf"), 10**400, True, "3", None, 1e31]
)
def test_check_number_refuses(value: object) -> None:
    with pytest.raises(UnitError):
        check_number(value, "v")


def test_to_base_is_bounded() -> None:
    with pytest.raises(RangeError):
        units.to_base(1e300, Dim.BYTES)


def test_registry_bounds_never_overflow() -> None:
    ranks = Param("ranks", ParamKind.INT, minimum=2, maximum=1024)
    for value in (10**400, 10**35, "1e300", float("nan"), "0x10"):
        with pytest.raises(ArgumentError):
            ranks.coerce(value)
    assert ranks.coerce("1,024") == 1024


# -- properties -------------------------------------------------------------------------------

junk_text = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="0123456789eE.,_+-−xX×*^ GiBKMTPsuµ%/b", max_size=40),
    st.from_regex(r"[-+]?\d{1,60}(\.\d{0,20})?([eE][-+]?\d{1,12})?\s?(GiB|PiB|B|%|K|T|s)?"),
)


@FUZZ
@given(junk_text, st.sampled_from([None, *Dim]))
def test_parse_quantity_is_finite_and_bounded_or_refuses(text: str, dim: Dim | None) -> None:
    if dim is Dim.TEXT:
        dim = None
    try:
        q = parse_quantity(text, dim)
    except UnitError:
        return
    for value in q.candidates:
        assert math.isfinite(value) and abs(value) <= units.MAX_MAGNITUDE


@FUZZ
@given(junk_text, st.booleans())
def test_parse_number_obeys_its_range(text: str, integer: bool) -> None:
    try:
        value = parse_number(text, "x", low=-5, high=10**20, integer=integer)
    except UnitError as exc:
        assert "\n" not in str(exc)
        return
    assert -5 <= value <= 10**20
    if integer:
        assert isinstance(value, int)


@FUZZ
@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_decimal_integers_round_trip_exactly(n: int) -> None:
    assert parse_number(str(n), "n", integer=True) == n
    assert parse_number(f"{n:,}", "n", integer=True) == n


@FUZZ
@given(st.decimals(allow_nan=False, allow_infinity=False, places=3, max_value=10**20, min_value=0))
def test_count_suffixes_are_exact(d: Decimal) -> None:
    text = f"{d}B"
    exact = d * 10**9
    if exact == exact.to_integral_value():
        assert parse_number(text, "n", integer=True) == int(exact)


# -- the documented bounds are the code's -----------------------------------------------------


def test_docs_limits_match_the_code() -> None:
    import re
    from pathlib import Path

    from deck.base import typed
    from deck.cards import yamlsource
    from deck.cards.instances import MAX_SWEEP_POINTS
    from deck.review import history, scheduler, store
    from quizcoll.cli import cmd_sim, cmd_train_mem, cmd_vram, common
    from quizcoll.memory import architecture, gpus, source

    doc = (Path(__file__).resolve().parent.parent / "docs" / "limits.md").read_text()
    table = dict(re.findall(r"^\| `([a-z_]+)`[^|]*\| ([\d,]+) \|$", doc, re.MULTILINE))
    for keys, limit in re.findall(r"^\| (`[^|]+`) \| ([\d,]+) \|$", doc, re.MULTILINE):
        for key in re.findall(r"`([a-z_]+)`", keys):
            table[key] = limit
    for key, limit in architecture.MAX_CONFIG_VALUES.items():
        assert int(table[key].replace(",", "")) == limit, key
    facts = {
        "at most **10^30**": units.MAX_MAGNITUDE == 1e30,
        "more than 40 digits": yamlsource.MAX_INT_DIGITS == 40,
        "0 to 2^63−1": common.MAX_SEED == 2**63 - 1,
        "up to 1,048,576": common.MAX_FLAG_COUNT == 1_048_576,
        "1 TiB (2^40 bytes)": cmd_sim.MAX_SIZE == 2**40,
        "| 0 to 60 s |": cmd_sim.MAX_LATENCY_S == 60,
        "1 PB/s (10^15 B/s)": cmd_sim.MAX_BANDWIDTH == 1e15,
        "1 to 16,777,216 tokens": source.MAX_CONTEXT == 16_777_216,
        "1 to 10^15 parameters": source.MAX_PARAMETERS == 10**15,
        "N from 1 to 1,048,576": gpus.MAX_GPUS == 1_048_576,
        "| 0 to 1 PiB |": cmd_vram.MAX_OVERHEAD == 2**50,
        "`train-mem --seq-len` | 1 to 16,777,216": cmd_train_mem.MAX_SEQ_LEN == 2**24,
        "`train-mem --tp` | 1 to 1,024": cmd_train_mem.MAX_TP == 1024,
        "at most 2,000 combinations": MAX_SWEEP_POINTS == 2000,
        "At most 1,000 characters": typed.MAX_ANSWER_CHARS == 1000,
        "card files 32 MiB": yamlsource.MAX_FILE_BYTES == 32 * 2**20,
        "`config.json` 4 MiB": architecture.MAX_CONFIG_BYTES == 4 * 2**20,
        "`config.toml` 1 MiB": scheduler.MAX_CONFIG_BYTES == 2**20,
        "history files 128 MiB": history.MAX_FILE_BYTES == 128 * 2**20,
        "from 2000-01-01 to 2199-12-31": scheduler.EARLIEST_TIME.year == 2000
        and scheduler.LATEST_TIME.year == 2200,
        "at most 100,000 days": scheduler.MAX_STABILITY == 100_000,
        "| `reps`, `lapses` | 0 to 10^7 |": scheduler.MAX_COUNT == 10**7,
        "| `step` | 0 to 1,000 |": scheduler.MAX_STEP == 1000,
        "| `duration_ms` | 0 to 2^31−1 |": store.MAX_DURATION_MS == 2**31 - 1,
        "| `answer` | at most 10,000 characters |": store.MAX_ANSWER_TEXT == 10_000,
        "at most 200 characters": store.MAX_NAME_CHARS == 200,
    }
    for text, holds in facts.items():
        assert text in doc, text
        assert holds, text
