"""``check --explanations``: a number of an executable's explanation that traces to no
proven value of the instance fails, one line each; the tracer reads products of proven
figures ("1.5 × 1.00 MiB")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deck.cards.loader import load_text
from deck.cards.model import Collection
from deck.proving.explanations import explanation_failures, traces
from deck.proving.verify import run_checks
from quizcoll.executables import build_registry

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = build_registry()
MIB = 2**20

# The ring all-reduce's explain prints its traffic factor ("1.5 × 1.00 MiB", "× 1.5"); the
# card below proves the bytes sent, and nothing about the factor.
CARD = """\
deck: collectives
cards:
  - id: ring-bytes
    type: numeric
    front: Bytes a rank sends in a ring all-reduce of {S} on {N} ranks?
    back: "{answer}"
    params:
      N: [4]
      S: {choices: [1], unit: MiB}
    answer:
      run: collectives.all_reduce
      args: {ranks: "{N}", size: "{S}", algorithm: ring}
      field: max_bytes_sent
      unit: MiB
      expect: "2*(N-1)/N*S"
"""
# Patarasuk & Yuan 2009: each rank sends 2(N-1) chunks of S/N in 2(N-1) rounds, so the
# ring's α-β time is 2(N-1)·α + 2(N-1)/N·S/β; nccl-tests (doc/PERFORMANCE.md) defines
# algbw = S/t and busbw = algbw·2(N-1)/N. Held against the simulated schedule, these prove
# every figure the explanation prints.
FACTOR = """\
    verify:
      - run: collectives.all_reduce
        claim: ring traffic factor
        args: {ranks: "{N}", size: "{S}", algorithm: ring}
        field: traffic_factor
        expect: "2*(N-1)/N"
      - name: t
        run: collectives.all_reduce
        args: {ranks: "{N}", size: "{S}", algorithm: ring}
        field: time_s
        expect: "2*(N-1)*nvlink_latency + 2*(N-1)/N*S/nvlink_bandwidth"
        tolerance: 1%
      - name: algbw
        run: collectives.all_reduce
        args: {ranks: "{N}", size: "{S}", algorithm: ring}
        field: algbw
        expect: "S/t"
        tolerance: 1%
      - name: busbw
        run: collectives.all_reduce
        args: {ranks: "{N}", size: "{S}", algorithm: ring}
        field: busbw
        expect: "S/t*2*(N-1)/N"
        tolerance: 1%
"""


def _cards(text: str) -> Collection:
    cards, problems = load_text(text, "c.yaml", REGISTRY)
    assert not problems, [p.format() for p in problems]
    return Collection(tuple(cards))


def test_an_untraced_explanation_number_fails_with_card_seed_number_and_executable() -> None:
    collection = _cards(CARD)
    assert run_checks(collection, REGISTRY, seeds=1, explanations=False).ok  # not asked
    report = run_checks(collection, REGISTRY, seeds=1)  # FAIL_ON_UNTRACED: the plain check looks
    lines = [f.format() for f in report.errors]
    assert any("'× 1.5'" in line for line in lines), lines
    for line in lines:
        assert line.startswith("c.yaml:"), line  # file:line of the card's answer
        assert "card 'ring-bytes': explanation (seed " in line
        assert "collectives.all_reduce's explain" in line


def test_the_same_card_passes_once_the_factor_is_proven() -> None:
    collection = _cards(CARD + FACTOR)
    assert not explanation_failures(collection.cards[0], REGISTRY)
    assert run_checks(collection, REGISTRY, seeds=1, explanations=True).ok


def test_a_product_traces_only_when_every_factor_is_proven() -> None:
    size, factor = 512 * MIB, 1.875
    assert traces("1.875 × 512.00 MiB", [factor, size])
    assert traces("1.875·512.00 MiB", [factor, size])
    assert not traces("1.875 × 512.00 MiB", [size])  # the factor is read, not proven
    assert not traces("1.875 × 512.00 MiB", [factor * size])  # its product alone is not enough
    assert traces("× 1.875", [factor]) and not traces("× 1.875", [size])
    assert traces("960.00 MiB", [factor * size])  # a plain figure, within display rounding
    assert traces("0.94 GiB", [factor * size])  # the same figure in other units
    assert not traces("1.2 × 512.00 MiB", [factor, size])


def test_check_fails_on_an_untraced_number_from_the_command_line(tmp_path: Path) -> None:
    # FAIL_ON_UNTRACED is on: plain ``check`` fails as ``--explanations`` does
    from deck.proving.explanations import FAIL_ON_UNTRACED

    assert FAIL_ON_UNTRACED
    path = tmp_path / "c.yaml"
    path.write_text(CARD, encoding="utf-8")
    cmd = [sys.executable, "-m", "quizcoll", "check", "--no-cache", "--seeds", "1", str(path)]
    for extra in ([], ["--explanations"]):
        run = subprocess.run([*cmd, *extra], capture_output=True, text=True, cwd=ROOT, check=False)
        assert run.returncode == 1, (extra, run.stderr)
        assert "untraced number '× 1.5'" in run.stderr


def test_a_constant_traces_only_in_its_own_dimension() -> None:
    from deck.units import Dim

    rate, count = (63e9, Dim.RATE), (63e9, None)
    assert traces("63.00 GB/s", [], [rate])
    assert not traces("63.00 GB/s", [], [count])  # a count that reads 63 G is not a rate
    assert traces("63e9", [], [rate])  # a bare figure names no dimension


# The ring's explain prints "α = 0 ns" when the card asks for the bandwidth limit: the card
# writes that α itself, as an argument of its answer's run, a given like a parameter.
ZERO_ALPHA = CARD.replace(
    'args: {ranks: "{N}", size: "{S}", algorithm: ring}\n      field: max_bytes_sent',
    'args: {ranks: "{N}", size: "{S}", algorithm: ring, latency: 0s}\n      field: max_bytes_sent',
)


def test_a_literal_argument_of_the_answer_is_a_given() -> None:
    from deck.proving.explanations import explanation_numbers
    from deck.proving.heldfields import given_arguments

    resolved = {"size": 4096, "latency": 0.0, "link": "nvlink", "root": 0, "fused": True}
    # only what the card writes (not the executable's default root), and only figures
    assert given_arguments(["size", "latency", "link", "fused"], resolved) == [4096, 0]
    shown = explanation_numbers(_cards(ZERO_ALPHA).cards[0], REGISTRY)
    zero = [n.proven for n in shown if n.text == "0 ns"]
    assert zero and all(zero)
