"""Provable cards: spans, the unproven-text scan, facts, figures, options, constraints,
coverage and the mutation score (docs/card-format.md, "Provable text")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck import units
from deck.base.textpos import origin_at
from deck.cards.loader import load_collection, load_text
from deck.cards.model import Collection
from deck.cards.prose import Kind, unproven
from deck.cards.spans import (
    FormatKind,
    SpanError,
    SpanKind,
    find_spans,
    format_value,
    parse_format,
    parse_number_literal,
)
from deck.proving.coverage import card_coverage
from deck.proving.mutation import run_mutations, text_edits
from deck.proving.verify import run_checks
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
        (6.5625, units.Dim.RATIO, "bits:4", "6.5625 bits"),  # the decimals asked for
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
        ("{=p|count} × ({=a|B} + {=b|B}) per GPU", []),  # brackets join proven values too
        ("**Not even before activations.** {=p|count} × {=a|B}", []),  # emphasis is prose
        ("{=p|count} × ({=a|B} + 4 B)", [(Kind.FORMULA, "× ({=a|B} + 4 B)")]),
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
    from deck.cards.instances import draw, instance_count

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
    # About reading an expect; the worked solution's numbers: tests/test_explanations_check.py
    messages = [
        f.message
        for f in run_checks(_load(CHOICE_NAMED), REGISTRY, seeds=3, explanations=False).errors
    ]
    assert messages and all("distinct instance" in m for m in messages)  # 3 GPUs: too few
    wrong = CHOICE_NAMED.replace('expect: "{gpu}_reported"', 'expect: "2*{gpu}_reported"')
    messages = [
        f.message for f in run_checks(_load(wrong), REGISTRY, seeds=3, explanations=False).errors
    ]
    assert any("closed form" in m for m in messages)


def test_two_choices_name_one_constant_and_a_rate_label_reads() -> None:
    """``{gpu}_peak_{dtype}``: the second placeholder follows ``_`` (no LaTeX in a formula);
    ``tokens/s`` and ``FLOPs/byte`` are answer labels."""
    text = (
        CHOICE_NAMED.replace("a100-80gb, h200]", "h200, b200, l40s]\n      dtype: [bf16, fp8]")
        .replace("run: memory.gpu", "run: gpu.specs")
        .replace('args: {gpu: "{gpu}"}', 'args: {gpu: "{gpu}", dtype: "{dtype}"}')
        .replace("field: reported_bytes", "field: ridge_point")
        .replace("unit: GiB", "unit: FLOPs/byte")
        .replace('"{gpu}_reported"', '"{gpu}_peak_{dtype} / {gpu}_hbm_bandwidth"')
    )
    messages = [f.message for f in run_checks(_load(text), REGISTRY, seeds=5).errors]
    assert messages and all("distinct instance" in m for m in messages)  # 8 instances: too few
    assert units.parse_quantity("295 FLOPs/byte", label="FLOPs/byte").value == 295
    assert units.parse_quantity("150 tokens/s", label="tokens/s").value == 150


EMPTY_FIELD = """\
cards:
  - id: measured
    type: basic
    front: "{=lo|GB/s}"
    back: b
    verify:
      - {name: lo, run: hardware.link, args: {link: hdr}, field: measured_low, expect: "46 GB/s"}
      - {claim: c, run: hardware.link, args: {link: "{x}"}, field: measured_high, expect: "48 GB/s", where: {x: [ndr, xdr]}}
"""


def test_a_field_the_run_leaves_empty_is_a_failure_not_a_crash() -> None:
    """hardware.link has no published measurement for an HDR NIC: the fact fails (a line, no
    traceback), and so does the swept claim at its XDR point."""
    messages = [f.message for f in run_checks(_load(EMPTY_FIELD), REGISTRY, seeds=1).errors]
    assert any("gave no value" in m for m in messages)
    assert any("x=xdr" in m for m in messages)


def test_ceiling_is_read_as_ceil() -> None:
    """A learner (and sympy) may write ceiling(T/B): the same function as ceil(T/B)."""
    from deck.formula import evaluate

    assert evaluate("B*ceiling(T/B) - T", {"T": 17, "B": 16}) == 15
    assert evaluate("ceiling(2.1)", {}) == evaluate("ceil(2.1)", {}) == 3


# ----------------------------------------------------------------------------- mutations


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("{~3.73 GiB=w}", {"number ×2", "number ÷2", "number +5%", "number −8%", "GB ↔ GiB"}),
        (
            "2*(N-1)/N*S",
            {"number ×2", "number ÷2", "number +5%", "number −8%", "N−1 → N", "2(N−1)/N → (N−1)/N"},
        ),
        (
            "(N-1)/N*S",
            {"number ÷2", "number ×2", "number +5%", "number −8%", "N−1 → N", "(N−1)/N → 2(N−1)/N"},
        ),
        ("{~8 B!=x} and {=w|GiB:2}", set()),  # distractors and formats stay as they are
        ("a GiB is larger than a GB", set()),  # unit words in prose are not quantities
    ],
)
def test_mutation_kinds(text: str, kinds: set[str]) -> None:
    assert {kind for kind, *_ in text_edits(text)} == kinds


@pytest.mark.parametrize(
    ("text", "mutated"),
    [
        ("ZeRO-1/2 keep {~2(N−1)/N·S=ar}", ["1", "2", "2(N−1)", "N−1"]),  # the name is not a claim
        ("GPT-2 at 1,024 positions", ["1,024"]),
        ("`bucket_cap_mb=25` by default, 8 GPUs", ["8"]),  # code is not a claim
        ("as in Patarasuk & Yuan 2009 (Table 3) on 8 GPUs", ["8"]),
    ],
)
def test_card_text_mutations_leave_what_is_not_a_claim_alone(text: str, mutated: list) -> None:
    edits = list(text_edits(text, prose=True))
    assert sorted({text[a:b] for _, a, b, _ in edits}) == sorted(mutated)
    assert len(list(text_edits(text))) > len(edits)  # a value (expect, args) mutates all


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


# ----------------------------------------------------------------------------- ceiling brackets

CEILING_CARD = """
deck: t
cards:
  - id: capacity-brackets
    type: basic
    front: "Expert capacity with T tokens, E experts, top-k, capacity factor f?"
    back: "{~⌈f·T·k/E⌉=cap} assignments per expert"
    verify:
      - name: cap
        run: moe.capacity
        args: {tokens: "{T}", experts: "{E}", top_k: "{k}", capacity_factor: "{f}"}
        field: capacity
        expect: "ceil(f*T*k/E)"
        where: {T: [1000, 4096], E: [8, 64], k: [1, 2], f: [1, 1.25]}
"""


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        ("⌈f·T·k/E⌉", "ceil(f*T*k/E)"),
        ("2⌊x/3⌋", "2*floor(x/3)"),
        ("⌈(p−1)/⌊m/2⌋⌉", "ceil((p-1)/floor(m/2))"),
    ],
)
def test_ceiling_and_floor_brackets_read_as_the_functions(written: str, plain: str) -> None:
    from deck.formula import parse

    assert parse(written) == parse(plain)


@pytest.mark.parametrize("bad", ["⌈x)", "(x⌉", "x⌉", "⌊x⌉", "⌈x"])
def test_mismatched_ceiling_brackets_are_refused(bad: str) -> None:
    from deck.formula import FormulaError, parse

    with pytest.raises(FormulaError):
        parse(bad)


def test_a_formula_written_with_ceiling_brackets_is_checked() -> None:
    cards, problems = load_text(CEILING_CARD, "t.yaml", REGISTRY)
    assert not problems
    assert not run_checks(Collection(cards), REGISTRY).failures
    wrong = CEILING_CARD.replace("{~⌈f·T·k/E⌉=cap}", "{~⌈f·T/E⌉=cap}")
    cards, _ = load_text(wrong, "t.yaml", REGISTRY)
    assert run_checks(Collection(cards), REGISTRY).failures


def test_figures_printed_with_log2_and_ceiling_brackets_are_checked() -> None:
    text = """cards:
  - id: x
    type: basic
    front: "{~⌈log₂N⌉=rounds} rounds; the root sends {~log₂N·S=root}."
    verify:
      - name: rounds
        run: collectives.scatter
        args: {algorithm: binomial, ranks: "{N}", size: 480}
        field: steps
        expect: "ceil(log2(N))"
        where: {N: [2, 3, 5, 6, 8]}
      - name: root
        run: collectives.broadcast
        args: {algorithm: binomial, ranks: "{N}", size: "{S}"}
        field: max_bytes_sent
        expect: "log2(N)*S"
        where: {N: [2, 8, 16], S: {choices: [64, 1024], unit: MiB}}
"""
    assert run_checks(_load(text), REGISTRY, seeds=1).ok
    wrong = text.replace("{~⌈log₂N⌉=rounds}", "{~⌊log₂N⌋=rounds}")
    report = run_checks(_load(wrong), REGISTRY, seeds=1)
    assert any("figure '⌊log₂N⌋'" in f.format() for f in report.errors)
    wrong = text.replace("{~log₂N·S=root}", "{~(N−1)·S=root}")
    assert not run_checks(_load(wrong), REGISTRY, seeds=1).ok


# ----------------------------------------------------------------------------- text parameters


BY_DTYPE = """\
cards:
  - id: by-dtype
    type: numeric
    front: "{=p|short} parameters in {dtype}?"
    params:
      b: [1, 7, 13, 70]
      p: {formula: "b * 1e9", unit: params}
      dtype: [fp32, fp16, bf16, int8, int4]
    answer:
      run: memory.weights
      args: {params: "{p}", dtype: "{dtype}"}
      field: weights_bytes
      unit: GB
      expect: "p * {dtype}_bytes"
    verify:
      - name: usable
        run: memory.gpu
        args: {gpu: "{gpu}"}
        field: reported_bytes
        expect: "{gpu}_reported"
    back: "{answer}; a {gpu} reports {=usable|MiB}"
"""


def test_a_closed_form_picks_the_constant_of_a_drawn_text_parameter() -> None:
    # About reading an expect; the worked solution's numbers: tests/test_explanations_check.py
    text = BY_DTYPE.replace("      dtype:", "      gpu: [t4, h100-80gb, mi300x]\n      dtype:")
    report = run_checks(_load(text), REGISTRY, seeds=8, explanations=False)
    assert report.ok, [f.format() for f in report.failures]
    wrong = text.replace('"p * {dtype}_bytes"', '"p * {dtype}_bytes * 2"')
    messages = [
        f.message for f in run_checks(_load(wrong), REGISTRY, seeds=8, explanations=False).errors
    ]
    assert any("closed form (answer.expect) disagree" in m for m in messages)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("int4]", "q4_k]"), "unknown name(s) q4_k_bytes"),  # a choice with no constant
        (('"p * {dtype}_bytes"', '"p * {b}_bytes"'), "bad expression"),  # b is a number
        (('"{gpu}_reported"', '"{gpus}_reported"'), "bad expression"),  # no such parameter
    ],
)
def test_a_closed_form_over_text_parameters_is_read_for_every_choice(
    edit: tuple[str, str], message: str
) -> None:
    text = BY_DTYPE.replace("      dtype:", "      gpu: [t4, l4]\n      dtype:")
    _, problems = load_text(text.replace(*edit), "t.yaml", REGISTRY)
    assert any(message in p.message for p in problems), [p.format() for p in problems]


def test_a_misspelt_constant_in_a_claim_text_gets_its_suggestion() -> None:
    """Constants are not copied into each claim's names, yet a claim's placeholder that
    misspells one is still told the constant it meant."""
    text = BY_DTYPE.replace("      dtype:", "      gpu: [t4, l4]\n      dtype:").replace(
        'expect: "{gpu}_reported"',
        'expect: "{gpu}_reported"\n        claim: "fp16 uses {fp16_byts} bytes"',
    )
    _, problems = load_text(text, "t.yaml", REGISTRY)
    assert any(
        "placeholder {fp16_byts}" in p.message and "did you mean 'fp16_bytes'" in p.message
        for p in problems
    ), [p.format() for p in problems]


BUILT_ON_FACTS = """\
cards:
  - id: states-on-facts
    type: numeric
    front: "Model states of Llama-2-7B under ZeRO-3 on {n} GPUs?"
    params:
      n: {range: [2, 64]}
    verify:
      - name: psi
        run: memory.model_params
        args: {model: llama-2-7b}
        field: parameters
        expect: "2*32000*4096 + 32*(4*4096^2 + 3*4096*11008 + 2*4096) + 4096"
    answer:
      run: memory.training
      args: {params: 6738415616, zero_stage: 3, gpus: "{n}"}
      field: total
      unit: GB
      expect: "psi * adam_mixed_bytes_per_param / n"
    back: "{answer}"
"""


def test_a_closed_form_may_build_on_proven_facts() -> None:
    # About reading an expect; the worked solution's numbers: tests/test_explanations_check.py
    report = run_checks(_load(BUILT_ON_FACTS), REGISTRY, seeds=3, explanations=False)
    assert report.ok, [f.format() for f in report.failures]
    # The fact under the closed form is itself held to its own: a wrong one fails there.
    wrong = BUILT_ON_FACTS.replace("3*4096*11008", "2*4096*11008")
    messages = [
        f.message for f in run_checks(_load(wrong), REGISTRY, seeds=1, explanations=False).errors
    ]
    assert any("the run and its closed form disagree" in m for m in messages)
    # Only the card's facts: an unknown name is a load problem.
    _, problems = load_text(BUILT_ON_FACTS.replace("psi *", "psj *"), "t.yaml", REGISTRY)
    assert any("unknown name(s) psj" in p.message for p in problems)


FORMULA_ON_CONSTANTS = """\
cards:
  - id: distributed-optimizer
    type: basic
    front: "Bytes per parameter with the distributed optimizer over d GPUs?"
    back: "{~6 + 12/d=dist}"
    verify:
      - name: dist
        run: memory.training
        args: {params: 1, zero_stage: 1, gpus: "{d}", grad_bytes: 4}
        field: total
        expect: "bf16_bytes + fp32_bytes + adam_optimizer_bytes_per_param / d"
        where: {d: [1, 2, 8, 64]}
"""


def test_a_formula_checked_against_a_fact_whose_closed_form_uses_constants() -> None:
    report = run_checks(_load(FORMULA_ON_CONSTANTS), REGISTRY, seeds=1)
    assert report.ok, [f.format() for f in report.failures]
    wrong = FORMULA_ON_CONSTANTS.replace("{~6 + 12/d=dist}", "{~6 + 24/d=dist}")
    messages = [f.message for f in run_checks(_load(wrong), REGISTRY, seeds=1).errors]
    assert any("figure '6 + 24/d'" in m for m in messages), messages


_NUMBER_KINDS = ("number ×2", "number ÷2", "number +5%", "number −8%")


def test_mutations_leave_the_names_the_unproven_scan_exempts() -> None:
    text = "ZeRO-3 on Llama-2-7B (Rajbhandari et al. 2020), `N-1`: {~3.73 GiB=w} and N-1 steps"
    edits = {(kind, text[a:b]) for kind, a, b, _ in text_edits(text, prose=True)}
    assert edits == {
        *((kind, figure) for kind in _NUMBER_KINDS for figure in ("3.73", "1")),
        ("GB ↔ GiB", " GiB"),
        ("N−1 → N", "N-1"),
    }
    assert ("number ×2", "3") in {(k, text[a:b]) for k, a, b, _ in text_edits(text)}


SWEPT_NAMES = """\
cards:
  - id: layer-activations
    type: basic
    front: "Activations of one GPT layer?"
    back: "{~34·sbh + 5·a·s²·b=none} per layer"
    verify:
      - name: none
        run: memory.activations
        args: {hidden: "{h}", heads: "{a}", layers: 1, seq_len: "{s}", micro_batch: "{b}"}
        field: per_layer_bytes
        expect: "sbh*(34 + 5*a*s/h)"
        where: {s: [512, 4096], b: [1, 4], h: [4096, 12288], a: [32, 96], sbh: {formula: "s*b*h"}}
"""


def test_a_written_formula_may_use_every_name_of_the_facts_sweep() -> None:
    report = run_checks(_load(SWEPT_NAMES), REGISTRY, seeds=1)
    assert report.ok, [f.format() for f in report.failures]
    for wrong in ("{~34·sbh + 5·a·s²·b·b=none}", "{~34·sbh + 5·a·s²·x=none}"):
        text = SWEPT_NAMES.replace("{~34·sbh + 5·a·s²·b=none}", wrong)
        assert not run_checks(_load(text), REGISTRY, seeds=1).ok, wrong


def test_parallel_checking_reports_what_serial_checking_does() -> None:
    """Worker processes (fork) prove the cards by index: the same counts and failures, in
    the same order, as one process."""
    from deck.proving import verify

    text = FIXTURE_TEXT.replace("{~3.73 GiB=w32}", "{~7.46 GiB=w32}", 1)
    one = _load(text)
    cards = Collection(one.cards * 25)  # two jobs' worth of cards: the pool is used
    assert len(cards.cards) // verify.MIN_CARDS_PER_JOB >= 2
    serial = run_checks(cards, REGISTRY, seeds=2)
    seen: list[int] = []
    parallel = run_checks(cards, REGISTRY, seeds=2, jobs=2, on_card=lambda i, n, c: seen.append(i))
    assert parallel == serial and not parallel.ok
    assert sorted(seen) == list(range(len(cards.cards)))


# ----------------------------------------------------------------------------- typeset formulas

_TREE_CARD = """\
deck: t
cards:
  - id: tree-steps
    type: basic
    front: How many rounds does the tree take?
    back: "{~FIGURE=steps}"
    verify:
      - name: steps
        run: collectives.all_reduce
        args: {algorithm: double_binary_tree, ranks: "{N}", size: 64MiB}
        field: steps
        expect: "2*ceil(log2(N))"
        where: {N: {range: [2, 33]}}
"""


@pytest.mark.parametrize(
    ("figure", "holds"),
    [
        ("2·⌈log₂N⌉", True),
        ("2⌈log₂N⌉", True),
        ("2·(⌊log₂(N−1)⌋ + 1)", True),  # the same depth, written as NCCL builds it
        ("2·⌊log₂N⌋", False),  # a balanced tree's depth: differs at N = 5
        ("2·log₂N", False),  # right only at powers of two
    ],
)
def test_ceil_floor_and_log2_are_written_as_typeset(figure: str, holds: bool) -> None:
    """⌈x⌉, ⌊x⌋ and log₂N are formula text (the scan flags them), so a checked span must be
    able to read them: they mean ceil(x), floor(x) and log2(N)."""
    report = run_checks(_load(_TREE_CARD.replace("FIGURE", figure)), REGISTRY, seeds=1)
    assert report.ok is holds, [f.format() for f in report.errors]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("⌈log₂N⌉", "ceil(log2(N))"),
        ("log₂N·S", "log2(N)*S"),
        ("log₂(N − 1)", "log2(N - 1)"),
        ("log₁₀ x", "log10(x)"),
        ("⌊N/2⌋", "floor(N/2)"),
        ("ceiling(log(N)/log(2))", "ceil(log(N)/log(2))"),  # sympy's spelling
        ("⌈x)", "unexpected ')' at column 3: '⌈' is open"),
        ("(x⌋", "unexpected '⌋' at column 3: '(' is open"),
        ("log₂", "function 'log₂' at column 1 needs parentheses"),
    ],
)
def test_typeset_formula_text_parses_or_says_why(text: str, read: str) -> None:
    from deck.formula import FormulaError, parse

    try:
        shown = str(parse(text))
    except FormulaError as exc:
        shown = str(exc)
    assert read in shown


_PROTO_CARD = """\
deck: t
cards:
  - id: proto-latency
    type: numeric
    front: "Ring latency with {proto} on {g} H100s?"
    params:
      proto: [LL, LL128, Simple]
      g: {range: [2, 8]}
    answer:
      run: nccl.time
      args: {collective: all_reduce, size: 4KiB, gpus_per_node: "{g}", algorithm: Ring, protocol: "{proto}"}
      field: latency_s
      unit: us
      expect: "nccl_base_ring_{proto} + 2*(g-1)*nccl_nvlink_ring_{proto}"
    back: "{answer}"
"""


def test_a_text_parameter_names_a_constant_anywhere_in_an_expect() -> None:
    """The loader accepts ``nccl_base_ring_{proto}`` (a placeholder after ``_``); check
    must fill it the same way, not read it as a LaTeX subscript."""
    # About reading an expect; the worked solution's numbers: tests/test_explanations_check.py
    collection = _load(_PROTO_CARD)
    assert not collection.problems
    report = run_checks(collection, REGISTRY, seeds=4, explanations=False)
    assert report.ok, [f.format() for f in report.errors]
    wrong = _load(_PROTO_CARD.replace("2*(g-1)*nccl_nvlink", "(g-1)*nccl_nvlink"))
    assert not run_checks(wrong, REGISTRY, seeds=4, explanations=False).ok
