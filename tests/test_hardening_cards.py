"""Hostile card files (issue 12): numbers without bounds, grids that would not fit in memory,
deck names that are paths. Each reproduction ends as one located problem, or works lazily."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from deck.cards.instances import (
    MAX_SWEEP_POINTS,
    SweepTooLarge,
    _grid_value,
    draw,
    grid_size,
    sweep,
    sweep_size,
)
from deck.cards.loader import load_text
from deck.cards.model import ParamSpec
from quizcoll.cli.main import main
from quizcoll.executables import build_registry

REGISTRY = build_registry()

NUMERIC = """\
deck: demo
cards:
  - id: ring-x
    type: numeric
    front: "ring {n} {size}"
    params:
      n: PARAM_N
      size: {choices: [256, 1024], unit: MiB}
    answer:
      run: collectives.cost
      args: {collective: all_reduce, algorithm: ring, ranks: RANKS, size: "{size}"}
      field: max_bytes_sent
      unit: MiB
      tolerance: TOLERANCE
"""

CLAIM = """\
deck: demo
cards:
  - id: claim-x
    type: basic
    front: x
    back: y
    verify:
      - claim: "a claim"
        run: collectives.cost
        args: {collective: all_reduce, algorithm: ring, ranks: 4, size: 1024}
        field: max_bytes_sent
        expect: EXPECT
"""

FRONT_ONLY = """\
deck: demo
cards:
  - id: big
    type: basic
    front: "n is {n}"
    back: y
    params:
      n: PARAM_N
"""


def _numeric(n: str = "[4, 8]", ranks: str = '"{n}"', tolerance: str = "1%") -> str:
    return NUMERIC.replace("PARAM_N", n).replace("RANKS", ranks).replace("TOLERANCE", tolerance)


def _problems(text: str) -> list[str]:
    _, problems = load_text(text, "c.yaml", REGISTRY)
    return [p.format() for p in problems]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (_numeric(ranks="9" * 400), "400 digits is out of range"),
        (_numeric(ranks="0x10"), "write whole numbers in decimal"),
        (_numeric(ranks="010"), "write whole numbers in decimal"),
        (_numeric(tolerance="'inf%'"), "expected a percentage like 2%"),
        (_numeric(tolerance="'nan%'"), "expected a percentage like 2%"),
        (_numeric(tolerance="'500%'"), "a tolerance is from 0% to 100%"),
        (_numeric(tolerance="5"), "a relative tolerance is at most 1"),
        (_numeric(tolerance="{rel: .inf}"), "not a finite number"),
        (_numeric(n="{range: [0.5, 0.7], integer: true}"), "no whole number in [0.5, 0.7]"),
        (_numeric(n="{range: [1, 1.0e+300]}"), "must be a number within ±1e30"),
        (_numeric(n="{range: [1, 1.0e300]}"), "out of range"),
        (_numeric(n="{range: [1, 1e300], pow2: true}"), "out of range"),
        (_numeric(n="[4, .inf]"), "not a finite number"),
        (_numeric(n="[4, 1.0e+40]"), "within ±1e30"),
        (CLAIM.replace("EXPECT", "'1e300 PiB'"), "'1e300 PiB' is out of range"),
        (CLAIM.replace("EXPECT", "1.0e+300"), "within ±1e30"),
        (CLAIM.replace("EXPECT", "'1e29 PiB'"), "out of range"),
    ],
)
def test_bad_numbers_are_located_problems(text: str, needle: str) -> None:
    problems = _problems(text)
    assert any(needle in p for p in problems), problems
    assert all(p.startswith("c.yaml:") for p in problems)


def test_sweep_over_a_huge_range_is_refused_without_listing() -> None:
    text = CLAIM.replace("EXPECT", "'S'").replace("size: 1024", "size: '{S}'")
    text += "        where: {S: {range: [1, 1000000000000], step: 1}}\n"
    problems = _problems(text)
    assert any("combinations; keep a sweep under 2,000" in p for p in problems), problems


def test_big_grids_are_drawn_without_building_them() -> None:
    # range [1, 1e12] step 1 once needed 4 GB+; now a value is drawn from its index
    spec = ParamSpec("n", range=(1, 10**12), step=1, integer=True)
    assert grid_size(spec) == 10**12
    cards, problems = load_text(
        FRONT_ONLY.replace("PARAM_N", "{range: [1, 1000000000000], step: 1}"), "c.yaml"
    )
    assert problems == []
    values = {draw(cards[0], seed).values["n"] for seed in range(20)}
    assert len(values) > 10 and all(1 <= v <= 10**12 for v in values)


def test_pow2_grid_is_counted_not_listed() -> None:
    spec = ParamSpec("n", range=(3, 1e30), pow2=True)
    assert grid_size(spec) == 98  # 4, 8, ..., 2^99
    assert _grid_value(spec, 0) == 4 and _grid_value(spec, 97) == 2**99


def test_lazy_grids_give_the_draws_the_old_lists_gave() -> None:
    """Seeds keep their instances: index i of the counted grid is item i of the old list."""
    rng = random.Random(7)
    for _ in range(2000):
        if rng.random() < 0.5:
            lo = rng.choice([0.1, 0.5, 1, 2, 3, 1023, 1024, 1025, 2**40 - 1, rng.uniform(0, 1e6)])
            spec = ParamSpec("x", range=(lo, lo + rng.choice([1, 3, 1024, 2**41])), pow2=True)
            old, p = [], 1
            while p <= spec.range[1]:
                if p >= lo:
                    old.append(p)
                p *= 2
        else:
            lo, step = rng.choice([0, 1, 0.5, -3]), rng.choice([1, 0.1, 0.25, 3])
            spec = ParamSpec(
                "x", range=(lo, lo + step * rng.randint(1, 50)), step=step, integer=False
            )
            n = int((spec.range[1] - lo) / step + 1e-9) + 1
            old = [round(lo + i * step, 12) for i in range(n)]
        size = grid_size(spec)
        assert size is not None
        assert [_grid_value(spec, i) for i in range(size)] == old


def test_sweep_refuses_before_listing() -> None:
    specs = [ParamSpec("a", range=(1, 10**12), step=1), ParamSpec("b", choices=(1, 2))]
    assert sweep_size(specs) > MAX_SWEEP_POINTS
    with pytest.raises(SweepTooLarge):
        next(sweep(specs))


@pytest.mark.parametrize("deck", ["../../../../tmp/x", "a\\0b", "My Deck", "a/b", "."])
def test_deck_names_are_slugs(deck: str) -> None:
    text = FRONT_ONLY.replace("PARAM_N", "[1]").replace("deck: demo", f'deck: "{deck}"')
    problems = _problems(text)
    assert any("deck name" in p and "lowercase letters" in p for p in problems), problems
    card_level = FRONT_ONLY.replace("PARAM_N", "[1]").replace(
        "    type: basic", f'    type: basic\n    deck: "{deck}"'
    )
    problems = _problems(card_level)
    assert any(p.startswith("c.yaml:5:") and "deck name" in p for p in problems), problems


def test_export_of_a_hostile_deck_writes_only_into_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards = tmp_path / "c.yaml"
    cards.write_text(
        FRONT_ONLY.replace("PARAM_N", "[1]").replace(
            "    type: basic", "    type: basic\n    deck: ../../escaped"
        )
    )
    out = tmp_path / "out"
    assert main(["export", "--cards", str(cards), "-o", f"{out}/"]) == 2
    assert "deck name" in capsys.readouterr().err
    assert not (tmp_path.parent / "escaped.md").exists()
    assert all(p.parent == out for p in out.rglob("*"))


def test_a_formula_parameter_that_overflows_is_a_deck_error() -> None:
    text = FRONT_ONLY.replace("PARAM_N", "[1000]") + "      m: {formula: '10^n'}\n"
    cards, problems = load_text(text.replace("n is {n}", "n is {n} {m}"), "c.yaml")
    assert problems == []
    from deck.base.errors import DeckError

    with pytest.raises(DeckError):
        draw(cards[0], 0)
