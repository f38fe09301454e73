"""Provable cards: spans, the unproven-text scan, facts, figures, options, constraints,
coverage and the mutation score (docs/card-format.md, "Provable text")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck import units
from deck.coverage import card_coverage
from deck.loader import load_collection, load_text
from deck.model import Collection
from deck.mutation import run_mutations, text_edits
from deck.prose import Kind, unproven
from deck.spans import (
    FormatKind,
    SpanError,
    SpanKind,
    find_spans,
    format_value,
    parse_format,
    parse_number_literal,
)
from deck.textpos import origin_at
from deck.verify import run_checks
from quizcoll.executables import build_registry

FIXTURE = Path(__file__).parent / "fixtures" / "provable" / "cards.yaml"
REGISTRY = build_registry()


# ----------------------------------------------------------------------------- spans


@pytest.mark.parametrize(
    ("text", "dim", "value", "tolerance"),
    [
        ("3.73 GiB", None, 3.73 * 2**30, 0.005 * 2**30),
        ("16,384", None, 16384, 0.5),
        ("1.5×", None, 1.5, 0.05),
        ("7.4%", None, 0.074, 0.0005),
        ("2³⁰ B", None, 2**30, 2**30 * 1e-12),
        ("10⁹", None, 1e9, 1e-3),
        ("70B", units.Dim.COUNT, 70e9, 0.7e9),  # trailing zero: at most 1%
        ("8 B", units.Dim.COUNT, 8, 0.5),  # after a space, B is bytes
        ("370 GB/s", None, 370e9, 3.7e9),
        ("100%", None, 1.0, 0.01),
        ("≈ 48 GB/s", None, 48e9, 0.5e9),
        ("1.2e9", None, 1.2e9, 0.05e9),
        ("8 GPUs", units.Dim.COUNT, 8, 0.5),
    ],
)
def test_number_literals_read_with_their_precision(
    text: str, dim: units.Dim | None, value: float, tolerance: float
) -> None:
    lit = parse_number_literal(text, dim)
    assert lit.value == pytest.approx(value, rel=1e-12)
    assert lit.tolerance == pytest.approx(tolerance, rel=1e-9)


@pytest.mark.parametrize("text", ["4 G", "14G"])
def test_a_bare_g_byte_figure_is_refused(text: str) -> None:
    with pytest.raises(SpanError, match="ambiguous"):
        parse_number_literal(text, units.Dim.BYTES)


@pytest.mark.parametrize(
    ("value", "dim", "fmt", "shown"),
    [
        (4e9, units.Dim.BYTES, "GiB", "3.73 GiB"),
        (4e9, units.Dim.BYTES, "GB", "4 GB"),
        (4e9, units.Dim.BYTES, "GiB:1", "3.7 GiB"),
        (0.074, units.Dim.RATIO, "%", "7.4%"),
        (1.5, units.Dim.RATIO, "x", "1.5×"),
        (16384, units.Dim.COUNT, "count", "16,384"),
        (2**30, units.Dim.BYTES, "pow2", "2³⁰"),
        (1e9, units.Dim.COUNT, "pow10", "10⁹"),
        (8.4e22, units.Dim.COUNT, "sci", "8.40×10²²"),
        (9.996e17, units.Dim.COUNT, "sci", "1.00×10¹⁸"),
        (2.5e-8, units.Dim.RATIO, "sci:1", "2.5×10⁻⁸"),
        (7e9, units.Dim.COUNT, "short", "7B"),
        (8, units.Dim.COUNT, "GPUs", "8 GPUs"),
        (1, units.Dim.COUNT, "GPUs", "1 GPU"),
        (14e9, units.Dim.BYTES, "both", "13.04 GiB (14.00 GB)"),
    ],
)
def test_formats(value: float, dim: units.Dim, fmt: str, shown: str) -> None:
    assert format_value(value, dim, parse_format(fmt)) == shown


@given(st.floats(min_value=1e-30, max_value=1e30), st.integers(0, 4))
def test_scientific_figures_read_back_within_their_precision(x: float, decimals: int) -> None:
    shown = format_value(x, units.Dim.COUNT, parse_format(f"sci:{decimals}"))
    assert parse_number_literal(shown).matches(x), shown


def test_spans_are_found_and_escapes_respected() -> None:
    spans, errors = find_spans("a {=w|GiB} b {~3.73 GiB=w} c {~8 B!=x} {{=literal}} \\frac{1}{N}")
    assert [s.kind for s in spans] == [SpanKind.RENDER, SpanKind.CHECK, SpanKind.CHECK]
    assert spans[0].ref == "w" and spans[0].fmt.kind is FormatKind.UNIT
    assert spans[1].literal == "3.73 GiB" and spans[1].expr == "w" and not spans[1].negated
    assert spans[2].negated and not errors


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{=w*2}", "names one value"),
        ("{=w|furlongs}", "unknown format"),
        ("{~=w}", "checked span"),
        ("{~3 GB=}", "checked span"),
    ],
)
def test_malformed_spans_say_why(text: str, message: str) -> None:
    _, errors = find_spans(text)
    assert errors and message in errors[0][1]


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_span_reading_never_fails_on_junk(text: str) -> None:
    spans, errors = find_spans(text)
    for span in spans:
        assert 0 <= span.start < span.end <= len(text)
    assert all(isinstance(m, str) for _, m in errors)


# ----------------------------------------------------------------------------- unproven text


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("A ring sends 2(N−1)/N·S bytes per rank.", [(Kind.FORMULA, "2(N−1)/N·S")]),
        ("fp32 takes 4 B per parameter", [(Kind.NUMBER, "4 B")]),
        ("The KV cache grows linearly with context.", [(Kind.SCALING, "linearly")]),
        ("a GiB is 7.4% larger; 1.5× faster", [(Kind.NUMBER, "7.4%"), (Kind.NUMBER, "1.5×")]),
        ("time = α·log₂N + S/B", [(Kind.FORMULA, "α·log₂N + S/B")]),
        # Exempt: names with digits, terms, code, URLs, list numbers, references, citations.
        ("Llama-3-8B on H100 with fp16, ZeRO-3, GPT-2, NCCL v2.17, PCIe Gen5 x16, log₂", []),
        ("a 1F1B schedule and 3D parallelism", []),
        ("run `NCCL_ALGO=Ring --nproc_per_node=8` or see https://arxiv.org/abs/2104.04473", []),
        ("1. first\n2) second", []),
        ("See Section 4.2, Table 3, Eq. 5 and §3.1", []),
        ("(Rajbhandari et al. 2020), Thakur 2005, (2019)", []),
        ("{=w|GiB} and {~3.73 GiB=w} and {n} GPUs; {=a} × {=b}", []),
    ],
)
def test_unproven_scan(text: str, found: list[tuple[Kind, str]]) -> None:
    assert [(u.kind, u.text) for u in unproven(text, ["1F1B", "3D"])] == found


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_unproven_scan_never_fails_and_stays_in_bounds(text: str) -> None:
    for u in unproven(text):
        assert 0 <= u.start <= u.end <= len(text)


def test_text_positions_of_block_and_flow_scalars() -> None:
    source = "a:\n  b: |\n    first line\n    second 42\n  c: 'x 7'\n"
    block = origin_at(source, source.index("|"), 2, 6)
    value = "first line\nsecond 42\n"
    assert block.locate(value, value.index("42")) == (4, 12)
    flow = origin_at(source, source.index("'x"), 5, 6)
    assert flow.locate("x 7", 2) == (5, 9)


# ----------------------------------------------------------------------------- the fixture


def _load(text: str) -> Collection:
    cards, problems = load_text(text, "t.yaml", REGISTRY)
    assert not problems, [p.format() for p in problems]
    return Collection(tuple(cards))


FIXTURE_TEXT = FIXTURE.read_text(encoding="utf-8")


def test_the_fixture_is_proven_and_fully_covered() -> None:
    collection = load_collection([FIXTURE], REGISTRY)
    assert not collection.problems
    report = run_checks(collection, REGISTRY, seeds=3)
    assert report.ok and not report.warnings, [f.format() for f in report.failures]
    for card in collection.cards:
        coverage = card_coverage(card, REGISTRY)
        assert coverage.total and coverage.proven == coverage.total, card.id


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("{~3.73 GiB=w32}", "{~7.46 GiB=w32}", "figure '7.46 GiB' is not what the run gives"),
        ('- "{~(N−1)/N·S=rs}"', '- "{~2(N−1)/N·S=rs}"', "figure '2(N−1)/N·S'"),
        ("correct: 0", "correct: 1", "marked wrong, but every figure in it is proven right"),
        ('expect: "p * fp32_bytes"', 'expect: "p * fp16_bytes"', "the run and its closed form"),
        ("{~linearly=kvg}", "{~quadratically=kvg}", "'quadratically' vs 'linear'"),
        ("{~7.4%=gib/gb - 1}", "{~7.4%=gib/gb - 2}", "figure '7.4%'"),
        ("{~N−1=steps}", "{~N=steps}", "figure 'N'"),
        ('formula: "2*(N-1)/N*S"', 'formula: "2*N/(N+1)*S"', "collectives.cost.max_bytes_sent"),
        ("memory do {=p|short} parameters", "memory do 1B parameters", "unproven number '1B'"),
        ("grows {~linearly=kvg} with", "grows linearly with", "unproven scaling claim"),
        # A distractor that cannot be evaluated is not proven wrong (formula facts are no numbers).
        ("{~N·S!=rs}", "{~N·S!=rs - steps}", "figure 'N·S' cannot be checked"),
    ],
)
def test_a_wrong_figure_fails_check_at_its_line(old: str, new: str, message: str) -> None:
    assert old in FIXTURE_TEXT
    report = run_checks(_load(FIXTURE_TEXT.replace(old, new, 1)), REGISTRY, seeds=2)
    assert not report.ok
    texts = [f.format() for f in report.errors]
    assert any(message in t for t in texts), texts
    # Located at the edited line, or (an option, a claim, an answer) at the item it breaks.
    edited = FIXTURE_TEXT[: FIXTURE_TEXT.index(old)].count("\n") + 1
    lines = {int(t.split(":")[1]) for t in texts if t.startswith("t.yaml:")}
    assert lines and min(abs(n - edited) for n in lines) <= 25


def test_load_problems_name_the_span_position() -> None:
    text = FIXTURE_TEXT.replace("{=w16|GB}", "{=w61|GB}", 1).replace("{=w8|GB}", "{w8|GB}", 1)
    _, problems = load_text(text, "t.yaml", REGISTRY)
    messages = [p.format() for p in problems]
    line = FIXTURE_TEXT[: FIXTURE_TEXT.index("{=w16|GB}")].count("\n") + 1
    assert any(f"t.yaml:{line}:" in m and "did you mean 'w16'" in m for m in messages)
    assert any("did you mean {=w8|GB}" in m for m in messages)


def test_warn_policy_lists_unproven_numbers_without_failing() -> None:
    text = "unproven: warn\ncards:\n  - id: x\n    type: basic\n    front: Is 4 GB 3.73 GiB?\n"
    report = run_checks(_load(text), REGISTRY, seeds=1)
    assert report.ok and len(report.warnings) == 2
    report = run_checks(_load(text.replace("unproven: warn\n", "")), REGISTRY, seeds=1)
    assert not report.ok and len(report.errors) == 2


def test_typed_and_unchecked_answers_are_unproven() -> None:
    text = (
        "cards:\n  - id: typed\n    type: numeric\n    front: q\n"
        "    answer: {value: 4e9, unit: GB}\n"
        "  - id: no-closed-form\n    type: numeric\n    front: q\n"
        "    answer: {run: units.convert_bytes, args: {bytes: 1e9}, field: bytes, unit: GB}\n"
    )
    messages = [f.message for f in run_checks(_load(text), REGISTRY, seeds=1).errors]
    assert any("typed value" in m for m in messages)
    assert any("no independent closed form" in m for m in messages)


# ----------------------------------------------------------------------------- constraints


CONSTRAINED = """\
cards:
  - id: tp-degree
    type: numeric
    front: "{=tp|count}"
    params:
      heads: [32, 40, 64]
      tp: {range: [1, 8]}
    constraints:
      - "heads / tp == floor(heads / tp)"
    answer:
      run: units.convert_bytes
      args: {bytes: "= heads / tp"}
      field: bytes
      expect: "heads / tp"
"""


def test_constraints_keep_draws_realistic_and_count_instances() -> None:
    from deck.instances import draw, instance_count

    card = _load(CONSTRAINED).cards[0]
    for seed in range(40):
        inst = draw(card, seed, REGISTRY)
        assert inst.values["heads"] % inst.values["tp"] == 0
    assert instance_count(card, REGISTRY) == 13  # 32: 1,2,4,8; 40: 1,2,4,5,8; 64: 1,2,4,8
    messages = [f.message for f in run_checks(_load(CONSTRAINED), REGISTRY, seeds=2).errors]
    assert any("only 13 distinct instance(s)" in m for m in messages)


def test_a_constraint_no_instance_meets_is_reported() -> None:
    text = CONSTRAINED.replace("heads / tp == floor(heads / tp)", "tp > 8")
    messages = [f.message for f in run_checks(_load(text), REGISTRY, seeds=1).errors]
    assert any("no instance satisfies the constraints" in m for m in messages)


def test_a_constraint_on_an_unknown_name_is_a_load_problem() -> None:
    _, problems = load_text(CONSTRAINED.replace("heads / tp ==", "kv / tp =="), "t.yaml", REGISTRY)
    assert any("unknown name(s) kv" in p.message for p in problems)


CHOICE_NAMED = """\
cards:
  - id: reported-memory
    type: numeric
    front: "{gpu}"
    params:
      gpu: [h100-80gb, a100-80gb, h200]
    answer:
      run: memory.gpu
      args: {gpu: "{gpu}"}
      field: reported_bytes
      unit: GiB
      expect: "{gpu}_reported"
"""


def test_a_hyphenated_choice_names_its_constant() -> None:
    """``{gpu}_reported`` with gpu = h100-80gb reads the constant ``h100_80gb_reported``."""
    messages = [f.message for f in run_checks(_load(CHOICE_NAMED), REGISTRY, seeds=3).errors]
    assert messages and all("distinct instance" in m for m in messages)  # 3 GPUs: too few
    wrong = CHOICE_NAMED.replace('expect: "{gpu}_reported"', 'expect: "2*{gpu}_reported"')
    messages = [f.message for f in run_checks(_load(wrong), REGISTRY, seeds=3).errors]
    assert any("closed form" in m for m in messages)


# ----------------------------------------------------------------------------- mutations


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("{~3.73 GiB=w}", {"number ×2", "number ÷2", "GB ↔ GiB"}),
        ("2*(N-1)/N*S", {"number ×2", "number ÷2", "N−1 → N", "2(N−1)/N → (N−1)/N"}),
        ("(N-1)/N*S", {"number ÷2", "number ×2", "N−1 → N", "(N−1)/N → 2(N−1)/N"}),
        ("{~8 B!=x} and {=w|GiB:2}", set()),  # distractors and formats stay as they are
        ("a GiB is larger than a GB", set()),  # unit words in prose are not quantities
    ],
)
def test_mutation_kinds(text: str, kinds: set[str]) -> None:
    assert {kind for kind, *_ in text_edits(text)} == kinds


def test_prose_mutations_leave_names_lists_and_citations_alone() -> None:
    text = "1. Llama-2-7B on {n} GPUs (Kaplan et al. 2020): {~3.73 GiB=w}, not 4 GB\n2. ZeRO-3"
    numbers = sorted(
        text[a:b] for kind, a, b, _ in text_edits(text, prose=True) if "number" in kind
    )
    assert numbers == ["3.73", "3.73", "4", "4"]  # ×2 and ÷2 of the two quantities only
    everything = [text[a:b] for kind, a, b, _ in text_edits(text) if "number" in kind]
    assert "2" in everything and "2020" in everything  # outside prose every number is a value


def test_every_mutation_of_the_fixture_is_caught() -> None:
    report = run_mutations([FIXTURE], REGISTRY, seeds=2)
    assert report.total >= 60
    assert report.score == 1.0, [m.describe() for m in report.survivors]
    kinds = set(report.by_kind)
    assert {"number ×2", "GB ↔ GiB", "N−1 → N", "another option marked correct"} <= kinds
    assert any(k.startswith("argument") for k in kinds)


def test_a_typed_figure_lets_its_mutations_survive(tmp_path: Path) -> None:
    weak = FIXTURE_TEXT.replace("{~3.73 GiB=w32}", "3.73 GiB").replace(
        "deck: memory", "unproven: warn\ndeck: memory"
    )
    path = tmp_path / "weak.yaml"
    path.write_text(weak, encoding="utf-8")
    report = run_mutations([path], REGISTRY, seeds=2)
    survived = {(m.before, m.after) for m in report.survivors}
    assert ("3.73", "7.46") in survived and report.score < 1.0


def test_fact_environments_are_cut_to_the_names_a_formula_reads() -> None:
    from deck.facts import Value, constant_values, names_in, numeric_env
    from deck.registry import Constant, Registry

    assert names_in("6*N*D/(n*{gpu}_peak_bf16*u)", "= gb * s") >= {"N", "D", "n", "u", "gb", "s"}
    env = {"a": Value(2.0), "b": Value("text"), "c": 3, "flag": True}
    assert numeric_env(env) == {"a": 2.0, "c": 3}
    assert numeric_env(env, {"a", "b", "missing"}) == {"a": 2.0}
    registry = Registry()
    registry.add_constant(Constant("k1", 1.0, units.Dim.COUNT, "test"))
    first = constant_values(registry)
    first["scratch"] = Value(0)  # callers extend the dict: the cache must not see it
    assert set(constant_values(registry)) == {"k1"}
    registry.add_constant(Constant("k2", 2.0, units.Dim.COUNT, "test"))
    assert set(constant_values(registry)) == {"k1", "k2"}  # a new constant is seen
