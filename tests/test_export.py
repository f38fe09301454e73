"""Markdown and Obsidian exports: folded answers, math, checked facts without raw
placeholders, cross-reference links, units that never print 0.00, and Obsidian notes that
the spaced-repetition plugin's own parsing rules read back card by card, answers whole."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from obsidian_sr_parser import Settings, parse_lines, parse_peg

from deck.cards.model import Claim, Computation, ParamSpec
from deck.cards.placeholders import placeholders
from deck.formula import BinOp, Call, Const, Expr, Neg, Num, Var
from deck.formula.latex import formula_latex, to_latex
from deck.interchange.export import export_markdown, export_obsidian, export_obsidian_note
from deck.interchange.export.common import claim_text, link_card_ids, render_card

ROOT = Path(__file__).resolve().parent.parent
RICH = ROOT / "tests" / "fixtures" / "export" / "cards.yaml"
GOLDEN = ROOT / "tests" / "golden"
SEEDS = (0, 1, 7, 2024)
# A quantity shown as zero in a unit too large for it: "0.00 GB", "0.00 GiB".
ZERO_QUANTITY = re.compile(r"(?<![\d.,])0\.0+ ?(?:[KMGTP]i?B|[kMG]B/s|ms|µs|s)\b")


@cache
def collection(path: Path | None = None) -> tuple:
    from quizcoll.collection import load

    col, registry = load([path] if path else None)
    assert not col.problems
    return col.cards, registry


def quizcoll(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizcoll", *args], capture_output=True, text=True, cwd=ROOT
    )


# ----------------------------------------------------------------------------- LaTeX


@pytest.mark.parametrize(
    ("formula", "latex"),
    [
        ("2*(N-1)/N*S", r"\frac{2(N - 1)}{N} \cdot S"),
        ("(N - 1)*s", r"(N - 1) \cdot s"),
        ("2*L*kv*d*b", r"2L \cdot \mathit{kv} \cdot d \cdot b"),
        ("2*h^2 + 3*h*f", r"2h^{2} + 3h \cdot f"),
        ("4 + 20/g", r"4 + \frac{20}{g}"),
        ("log2(N)*S", r"\log_{2}\left(N\right) \cdot S"),
        ("-(a + b)", r"-(a + b)"),
        ("a - (b - c)", r"a - (b - c)"),
        ("(a/b)^2", r"\left(\frac{a}{b}\right)^{2}"),
        ("sqrt(N)*α", r"\sqrt{N} \cdot \alpha"),
        ("S_1*Ψ", r"S_{1} \cdot \Psi"),
        ("2*3", r"2 \cdot 3"),
        ("1e-9*x", r"1 \times 10^{-9} \cdot x"),
        ("ceil(N/2)", r"\left\lceil \frac{N}{2} \right\rceil"),
        ("log(x, 3)", r"\log_{3}\left(x\right)"),
    ],
)
def test_formula_latex(formula: str, latex: str) -> None:
    assert formula_latex(formula) == latex


_leaves = st.one_of(
    st.integers(0, 10**6).map(Num),
    st.sampled_from([0.5, 1e-3, 2.5e10, -3.0]).map(Num),
    st.sampled_from(["N", "S", "kv", "ψ", "S_1"]).map(Var),
    st.sampled_from(["pi", "e"]).map(Const),
)


def _extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return st.one_of(
        st.builds(BinOp, st.sampled_from("+-*/^"), children, children),
        children.map(Neg),
        st.builds(lambda f, a: Call(f, (a,)), st.sampled_from(["sqrt", "log2", "abs", "floor", "exp"]), children),
        st.builds(lambda f, a, b: Call(f, (a, b)), st.sampled_from(["min", "max", "log"]), children, children),
    )  # fmt: skip


@settings(max_examples=300)
@given(st.recursive(_leaves, _extend, max_leaves=16))
def test_latex_of_any_tree_is_well_formed(tree: Expr) -> None:
    tex = to_latex(tree)
    depth = 0
    for ch in tex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    assert tex.count(r"\left") == tex.count(r"\right")
    # Never "$" (would close a $…$ span) nor "*" (Markdown emphasis).
    assert "$" not in tex and "*" not in tex


# ----------------------------------------------------------------------------- claims


@pytest.mark.parametrize(
    ("text", "where", "shown"),
    [
        (
            "KV cache = 524,288 B × T at T = {T}",
            [ParamSpec("T", choices=(1024, 4096, 32768))],
            "KV cache = 524,288 B × T at T ∈ {1,024, 4,096, 32,768}",
        ),
        (
            "model states = 16 × Ψ, Ψ = {p}",
            [ParamSpec("p", choices=(1_000_000_000, 7_000_000_000))],
            "model states = 16 × Ψ, Ψ ∈ {1,000,000,000, 7,000,000,000}",
        ),
        (
            "ring: 2(N−1) steps at N = {N}",
            [ParamSpec("N", range=(2, 32))],
            "ring: 2(N−1) steps at N = 2 … 32",
        ),
        (
            "weights of {b}B in fp32 = 4b GB",
            [ParamSpec("b", choices=(7, 13, 65))],
            "weights of *b*B in fp32 = 4b GB (for b ∈ {7, 13, 65})",
        ),
        (
            "{b} GB = {b} × 0.9313 GiB",
            [ParamSpec("b", choices=(1, 7), unit="GB")],
            "*b* GB = *b* × 0.9313 GiB (for b ∈ {1, 7} GB)",
        ),
        (
            "per layer at s = {s}, h = {h}",
            [ParamSpec("s", choices=(512, 2048)), ParamSpec("h", range=(1, 8), pow2=True)],
            "per layer at s ∈ {512, 2,048}, h = 1 … 8, powers of 2",
        ),
        ("no sweep", [], "no sweep"),
    ],
)
def test_claim_text_spells_out_the_sweep(text: str, where: list[ParamSpec], shown: str) -> None:
    claim = Claim(text, Computation("x.y"), "1", tuple(where))
    assert claim_text(claim) == shown
    assert placeholders(claim_text(claim)) == []


def test_every_shipped_claim_reads_without_placeholders() -> None:
    cards, _ = collection()
    texts = [claim_text(claim) for card in cards for claim in card.verify]
    assert texts and all(placeholders(t) == [] for t in texts)
    assert (
        "model states = 2Ψ + 2Ψ + K·Ψ without ZeRO "
        "(for Ψ ∈ {1,000,000,000, 7,000,000,000, 70,000,000,000}, K ∈ {6, 8, 12})"
    ) in texts


# ----------------------------------------------------------------------------- links


def test_card_ids_become_links_outside_code_blocks() -> None:
    text = "See `ring-formula`, `not-a-card`, [`ring-formula`](x) and\n```\n`ring-formula`\n```\n"
    linked = link_card_ids(text, lambda cid: f"#{cid}" if cid == "ring-formula" else None)
    assert linked.startswith(
        "See [`ring-formula`](#ring-formula), `not-a-card`, [`ring-formula`](x)"
    )
    assert linked.endswith("```\n`ring-formula`\n```\n")


# ----------------------------------------------------------------------------- Markdown


def test_rich_markdown_matches_golden() -> None:
    cards, registry = collection(RICH)
    text = export_markdown(cards, registry, seed=1)
    assert text == (GOLDEN / "export-rich.md").read_text(encoding="utf-8")


def test_rich_obsidian_matches_golden() -> None:
    cards, registry = collection(RICH)
    text = export_obsidian_note(cards, registry, seed=1)
    assert text == (GOLDEN / "export-obsidian.md").read_text(encoding="utf-8")


def test_markdown_folds_answers_and_shows_formulas_as_math_and_code() -> None:
    cards, registry = collection(RICH)
    text = export_markdown(cards, registry, seed=1)
    assert text.count("<details><summary>Answer</summary>") == len(cards)
    assert text.count("<details><summary>Hint</summary>") == 1
    # The formula answer: GitHub math and the typed form; the back's **{answer}** a code span.
    assert r"**Answer:** $\frac{2(N - 1)}{N} \cdot S$ (type it as `2*(N - 1)/N*S`)" in text
    assert "**`2*(N - 1)/N*S`**" in text
    assert "[`gib-of-decimal-bytes`](#gib-of-decimal-bytes)" in text


def test_per_deck_markdown_links_across_files(tmp_path: Path) -> None:
    out = quizcoll("export", "--cards", str(RICH), "-o", f"{tmp_path}/md/")
    assert out.returncode == 0, out.stderr
    units = (tmp_path / "md" / "units.md").read_text(encoding="utf-8")
    assert "[`other-deck-card`](extra.md#other-deck-card)" in units
    assert "[`ring-formula`](#ring-formula)" in units


def _whole_export(seed: int) -> str:
    cards, registry = collection()
    notes = export_obsidian(cards, registry, seed=seed)
    return export_markdown(cards, registry, seed=seed) + "".join(notes.values())


@pytest.mark.parametrize("seed", SEEDS)
def test_whole_export_has_no_placeholder_and_no_zero_quantity(seed: int) -> None:
    text = _whole_export(seed)
    assert placeholders(text) == []
    assert "could not compute" not in text
    assert ZERO_QUANTITY.findall(text) == []
    # Bold that holds a bare * loses it (Markdown emphasis): formulas go in code spans.
    assert re.findall(r"\*\*[^`*\n]+\*[^`*\n]+\*\*", text) == []


def test_kv_bytes_per_token_prints_a_unit_that_fits() -> None:
    cards, registry = collection()
    card = next(c for c in cards if c.id == "kv-bytes-per-token-by-model")
    solution = render_card(card, 0, registry).solution
    assert "× 1 token × batch 1 = 57,344 B = 57.34 KB = 56.00 KiB" in solution


# ----------------------------------------------------------------------------- Obsidian


def _check_plugin_reads_every_card(text: str, cards: list, registry: object, seed: int) -> None:
    """Both the current and the older plugin parser find one multi-line card per exported
    card, with its question and its whole answer (every line of the worked solution)."""
    for parse in (parse_peg, parse_lines):
        found = parse(text, Settings(end_marker="+++"))
        assert [c.kind for c in found] == ["multiline"] * len(cards), parse.__name__
        for card, sr in zip(cards, found, strict=True):
            r = render_card(card, seed, registry)
            # The export keeps "::" from reading as an inline card with a zero-width space.
            front, back = (part.replace("\u200b", "") for part in (sr.front, sr.back))
            assert r.question.splitlines()[-1].strip() in front
            for line in r.solution.splitlines():
                assert line.strip() in back, (parse.__name__, card.id, line)
            assert back.endswith(f"card `{card.id}`")


def test_obsidian_note_is_read_card_by_card_by_the_plugin() -> None:
    cards, registry = collection(RICH)
    text = export_obsidian_note(cards, registry, seed=1)
    ordered = sorted(cards, key=lambda c: c.deck)  # one note, decks in name order
    _check_plugin_reads_every_card(text, ordered, registry, 1)
    # Blank lines in an answer are why the end marker is needed: the default cuts there.
    cut = parse_peg(text, Settings())
    long = next(c for c in cut if "Two paragraphs" in c.front)
    assert long.back == "Reduce-scatter first: N−1 steps of S/N."
    assert 'set "Characters denoting the end of clozes and multiline flashcards" to `+++`' in text


def test_obsidian_export_of_the_whole_collection_survives_the_plugin() -> None:
    cards, registry = collection()
    for deck, text in export_obsidian(cards, registry, seed=3).items():
        assert text.startswith(f"#flashcards/{deck}\n")
        _check_plugin_reads_every_card(text, [c for c in cards if c.deck == deck], registry, 3)


def test_obsidian_question_lines_never_look_like_card_syntax() -> None:
    cards, registry = collection(RICH)
    text = export_obsidian_note(cards, registry, seed=1)
    card = next(c for c in parse_peg(text, Settings(end_marker="+++")) if "C++" in c.front)
    assert "::" not in card.front and ":\u200b:x" in card.front
    assert card.back.splitlines()[1:3] == ["\\?", "\\+++"]


def test_obsidian_output_file_and_folder(tmp_path: Path) -> None:
    target = tmp_path / "cards.md"
    target.write_text("old", encoding="utf-8")
    out = quizcoll("export", "--format", "obsidian", "--cards", str(RICH), "-o", str(target))
    assert out.returncode == 0, out.stderr
    assert target.is_file() and target.read_text(encoding="utf-8").startswith("#flashcards\n")
    out = quizcoll("export", "--format", "obsidian", "--cards", str(RICH), "-o", f"{tmp_path}/v/")
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == ["extra.md", "units.md"]


def test_instances_flag_is_for_apkg_only() -> None:
    out = quizcoll("export", "--cards", str(RICH), "--instances", "2")
    assert out.returncode == 2 and "apkg only" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
