"""The claim runner: numeric, formula and text expectations, and how failures are reported."""

from __future__ import annotations

from deck.cards.loader import load_text
from deck.cards.model import Collection
from deck.cards.registry import Dimension, Field, Param, ParamKind, Registry
from deck.proving.verify import run_checks


def unit_family(symbol: str) -> dict[str, object]:
    """Which family a byte unit belongs to, and its size."""
    binary = symbol.endswith("iB")
    power = "KMGTP".index(symbol[0]) + 1
    return {
        "family": "binary" if binary else "decimal",
        "bytes": (1024 if binary else 1000) ** power,
    }


REGISTRY = Registry()
REGISTRY.add_function(
    "test.unit_family",
    unit_family,
    params=[Param("symbol", ParamKind.STR, choices=("KB", "MB", "GB", "KiB", "MiB", "GiB"))],
    fields=[Field("family", Dimension.TEXT), Field("bytes", Dimension.BYTES)],
)

CARDS = """\
unproven: warn
cards:
  - id: families
    type: basic
    front: Which family is {u}?
    params:
      u: [GiB, MiB]
    verify:
      - claim: binary units are binary
        run: test.unit_family
        args: {symbol: "{u}"}
        field: family
        expect: binary
        where: {u: [KiB, MiB, GiB]}
      - claim: a GiB is 2^30 bytes
        run: test.unit_family
        args: {symbol: GiB}
        field: bytes
        expect: 1 GiB
      - claim: "a unit of power p is 1000^p bytes"
        run: test.unit_family
        args: {symbol: "{u}"}
        field: bytes
        expect: "1000^p"
        where: {u: [KB, MB, GB], p: {formula: "1"}}
"""


def _collection(text: str) -> Collection:
    cards, problems = load_text(text, "t.yaml", REGISTRY)
    assert not problems, [p.format() for p in problems]
    return Collection(tuple(cards))


def test_text_numeric_and_formula_claims() -> None:
    report = run_checks(
        _collection(CARDS.replace('p: {formula: "1"}', "p: [1]")), REGISTRY, seeds=2
    )
    # The third claim is wrong for MB and GB (p is fixed at 1): exactly those two points fail.
    assert report.claims == 3
    assert [f.message for f in report.errors] == ["at u=MB, p=1", "at u=GB, p=1"]
    assert report.errors[0].expected.startswith("1,000 B") and report.errors[0].actual.startswith(
        "1,000,000 B"
    )


def test_wrong_text_claim_fails() -> None:
    wrong = CARDS.replace("expect: binary", "expect: decimal")
    report = run_checks(_collection(wrong), REGISTRY, seeds=1)
    texts = [f for f in report.errors if "binary units" in f.what]
    assert len(texts) == 3 and texts[0].expected == "'decimal'" and texts[0].actual == "'binary'"


def test_a_fault_at_every_point_is_reported_three_times_at_most() -> None:
    broken = CARDS.replace(
        "where: {u: [KiB, MiB, GiB]}", "where: {u: [KiB, MiB, GiB, KB, MB, GB]}"
    ).replace(
        'args: {symbol: "{u}"}\n        field: family',
        'args: {symbol: "= 1"}\n        field: family',
    )
    cards, _ = load_text(broken, "t.yaml", REGISTRY)
    report = run_checks(Collection(tuple(cards)), REGISTRY, seeds=1)
    faults = [f for f in report.errors if "binary units" in f.what]
    assert len(faults) == 3
