"""N2, N3: a decimal/binary slip is claimed only where the typed unit allows it; a lower-case
b is a bit everywhere (sizes and rates).

Reference figures (SI and IEC 80000-13 definitions, no code of ours): 1 byte = 8 bits;
1 GB = 10^9 B, 1 GiB = 2^30 B = 1.0737 GB; so 32 Gb = 4 GB exactly and 4 Gb = 0.5 GB.
"""

from __future__ import annotations

import pytest

from deck.answers.checking import check_answer
from deck.cards.instances import draw
from deck.units import Dim, lookup_unit
from quizcoll.collection import load

COLLECTION, REGISTRY = load()
CARD = COLLECTION.by_id()["weights-bytes-by-dtype"]  # seed 1: 4 GB (3.73 GiB)


def _verdict(answer: str):  # type: ignore[no-untyped-def]
    inst = draw(CARD, 1, REGISTRY)
    return check_answer(CARD, inst, answer, REGISTRY)


@pytest.mark.parametrize(
    ("symbol", "dim", "bytes_per_unit"),
    [
        ("Gb", Dim.BYTES, 1e9 / 8),
        ("Gbit", Dim.BYTES, 1e9 / 8),
        ("gb", Dim.BYTES, 1e9 / 8),
        ("Mb", Dim.BYTES, 1e6 / 8),
        ("GB", Dim.BYTES, 1e9),
        ("gB", Dim.BYTES, 1e9),
        ("GiB", Dim.BYTES, 2**30),
        ("gib", Dim.BYTES, 2**30),  # no binary bit unit exists to confuse it with
        ("Gb/s", Dim.RATE, 1e9 / 8),
        ("Gbit/s", Dim.RATE, 1e9 / 8),
        ("GB/s", Dim.RATE, 1e9),
        ("bytes", Dim.BYTES, 1),
    ],
)
def test_bits_and_bytes_are_told_apart_by_the_case_of_b(
    symbol: str, dim: Dim, bytes_per_unit: float
) -> None:
    unit = lookup_unit(symbol)
    assert unit.dim is dim and unit.factor == pytest.approx(bytes_per_unit)


def test_the_answer_is_four_gigabytes() -> None:
    assert _verdict("4 GB").correct and _verdict("3.73 GiB").correct


@pytest.mark.parametrize("answer", ["4.1 GB", "3.9 GB", "4.2 GB", "4.4 GB", "4.5 GB"])
def test_a_near_miss_is_not_called_a_unit_slip(answer: str) -> None:
    verdict = _verdict(answer)
    assert verdict.correct is False
    assert verdict.mistake is None, verdict.feedback
    for word in ("KiB", "MiB", "TiB", "figure"):
        assert word not in verdict.feedback
    assert verdict.suggested.name == "AGAIN"


def test_the_gib_slip_is_still_named() -> None:
    verdict = _verdict("4 GiB")  # 4 GiB = 4.29 GB: the right digits in the other family
    assert verdict.mistake is not None and verdict.mistake.id == "gb-vs-gib"


@pytest.mark.parametrize("answer", ["32 Gb", "32 Gbit", "32 gb"])
def test_gigabits_that_make_four_gigabytes_are_right(answer: str) -> None:
    assert _verdict(answer).correct is True


def test_four_gigabits_is_an_eightfold_slip() -> None:
    verdict = _verdict("4 Gb")
    assert verdict.correct is False
    assert verdict.mistake is not None and verdict.mistake.id == "bits-vs-bytes"


@pytest.mark.parametrize(
    "spelling", ["tokens/s", "tok/s", "tokens/sec", "tokens per second", "token/s", "/s"]
)
def test_a_rate_label_takes_its_common_spellings(spelling: str) -> None:
    """N15: "327 tok/s" and friends were "unknown unit"."""
    card = COLLECTION.by_id()["decode-int4-weights-speed"]  # seed 0: 72.8 tokens/s
    inst = draw(card, 0, REGISTRY)
    answer = f"72.8 {spelling}" if spelling != "/s" else "72.8/s"
    verdict = check_answer(card, inst, answer, REGISTRY)
    assert verdict.correct is True, verdict.feedback
