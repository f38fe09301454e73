"""Independence you can see: each proof's two sides are classified (simulated, enumerated,
searched, measured, published, closed form) and a computed card counts as independent only
when its answer is held to a side that is not a closed form."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deck.cards.loader import load_text
from deck.cards.model import Card
from deck.cards.registry import Derivation
from deck.proving.independence import card_independence, expect_side
from quizcoll.executables import build_registry

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = build_registry()

CARDS = """\
deck: collectives
cards:
  - id: ring-bytes
    type: numeric
    front: Bytes a rank sends in a ring all-reduce of {S} on {N} ranks?
    back: "{answer}"
    params:
      N: [4, 8]
      S: {choices: [1048576], unit: B}
    answer:
      run: collectives.all_reduce
      args: {ranks: "{N}", size: "{S}", algorithm: ring}
      field: max_bytes_sent
      unit: B
      expect: "2*(N-1)/N*S"
  - id: kv-per-token
    type: numeric
    front: fp16 KV bytes per token of {L} layers, 8 KV heads of 128?
    back: "{answer}"
    params:
      L: [32]
    answer:
      run: memory.kv_cache
      args: {layers: "{L}", kv_heads: 8, head_dim: 128, context: 1}
      field: kv_bytes_per_token
      unit: B
      expect: "2*L*8*128*fp16_bytes"
"""


def _cards():  # type: ignore[no-untyped-def]
    cards, problems = load_text(CARDS, "i.yaml", REGISTRY)
    assert not problems, [p.format() for p in problems]
    return {c.id: c for c in cards}


def test_expect_sides() -> None:
    assert expect_side("3.73 GiB", REGISTRY) is Derivation.PUBLISHED
    assert expect_side("h100_80gb_reported", REGISTRY) is Derivation.PUBLISHED
    assert expect_side("8030261248*bf16_bytes", REGISTRY) is Derivation.PUBLISHED
    assert expect_side("2*(N-1)/N*S", REGISTRY) is Derivation.CLOSED_FORM
    # A formula over published figures is still a formula.
    assert expect_side("llama_3_8b_layers + llama_3_8b_hidden", REGISTRY) is Derivation.CLOSED_FORM
    assert expect_side("x", REGISTRY, {"x": Derivation.SIMULATED}) is Derivation.SIMULATED


def test_a_simulated_answer_is_independent_a_restated_one_is_not() -> None:
    cards = _cards()
    ring = card_independence(cards["ring-bytes"], REGISTRY)
    assert ring.computed and ring.independent
    assert ring.pairs[-1].run_side is Derivation.SIMULATED
    kv = card_independence(cards["kv-per-token"], REGISTRY)
    assert kv.computed and not kv.independent  # a closed form held to its own re-typing
    assert {p.run_side for p in kv.pairs} == {Derivation.CLOSED_FORM}


def test_every_declared_derivation_names_a_real_executable_and_says_why() -> None:
    from quizcoll.executables.derivations import DERIVATIONS

    for name, how, why in DERIVATIONS:
        assert name in REGISTRY, name
        assert REGISTRY.derivation(name) == (how, why)
        assert how is not Derivation.CLOSED_FORM and len(why) > 20


def test_check_coverage_reports_the_collections_count() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "quizcoll", "check", "--coverage", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    body = json.loads(proc.stdout)
    computed = [c for c in body["cards"] if c["computed"]]
    assert body["computed_cards"] == len(computed) > 200
    assert body["independent_cards"] == sum(1 for c in computed if c["independent"])
    # Measured at this commit: 97 of 220. A drop means a proof lost its independent side.
    assert body["independent_cards"] >= 97
    kv = next(c for c in body["cards"] if c["card"] == "kv-cache-size")
    assert {d["run_side"] for d in kv["derivations"]} >= {"enumerated", "closed form"}


RESULT_CARD = """\
deck: memory
cards:
  - id: kv-llama
    type: numeric
    front: KV cache of Llama-3-8B at {T} tokens?
    back: "{answer}: {=result.kv_bytes_per_token|count} B per token, {=result.layers|count} layers."
    params:
      T: [1024]
    answer:
      run: memory.kv_cache
      args: {model: llama-3-8b, context: "{T}"}
      field: kv_cache_bytes
      unit: GiB
      expect: "2*llama_3_8b_layers*llama_3_8b_kv_heads*llama_3_8b_head_dim*fp16_bytes*T"
    verify:
      - {run: memory.kv_cache, claim: "per token", args: CLAIM_ARGS, field: kv_bytes_per_token, expect: "CLAIM_EXPECT"}
"""
# The per-token bytes as the config.json figures multiply out (cited constants only: a
# published figure in other units), and the same bytes re-typed over the question's T.
PUBLISHED = "2*llama_3_8b_layers*llama_3_8b_kv_heads*llama_3_8b_head_dim*fp16_bytes"
RETYPED = "2*llama_3_8b_layers*llama_3_8b_kv_heads*llama_3_8b_head_dim*fp16_bytes*T/T"
SAME_ARGS = '{model: llama-3-8b, context: "{T}"}'


def _result_card(args: str = SAME_ARGS, expect: str = PUBLISHED) -> Card:
    text = RESULT_CARD.replace("CLAIM_ARGS", args).replace("CLAIM_EXPECT", expect)
    cards, problems = load_text(text, "r.yaml", REGISTRY)
    assert not problems, [p.format() for p in problems]
    return cards[0]


def _span_proven(card: Card) -> dict[str, bool]:
    from deck.proving.coverage import card_coverage

    return {i.text: i.proven for i in card_coverage(card, REGISTRY).items}


def test_a_result_span_is_proven_by_an_independent_claim_with_the_answers_arguments() -> None:
    proven = _span_proven(_result_card())
    assert proven["{=result.kv_bytes_per_token}"]  # the claim derives it at this instance
    assert not proven["{=result.layers}"]  # shown straight from the run


def test_a_claim_on_other_arguments_or_a_retyped_formula_does_not_hold_the_span() -> None:
    elsewhere = _result_card(args="{model: llama-3-8b, context: 1}")
    retyped = _result_card(expect=RETYPED)
    for card in (elsewhere, retyped):
        assert not _span_proven(card)["{=result.kv_bytes_per_token}"]


def test_check_fails_an_unheld_result_span_at_its_line_and_column() -> None:
    from deck.proving.heldfields import result_span_failures

    lines = [f.format() for f in result_span_failures(_result_card(), REGISTRY)]
    assert len(lines) == 1, lines  # result.layers; kv_bytes_per_token is held
    assert lines[0].startswith("r.yaml:6:"), lines
    assert "{=result.layers}" in lines[0] and "memory.kv_cache.layers" in lines[0]
    retyped = [f.format() for f in result_span_failures(_result_card(expect=RETYPED), REGISTRY)]
    assert len(retyped) == 2 and any("kv_bytes_per_token" in x for x in retyped), retyped


def test_explanation_numbers_are_traced_to_proven_values() -> None:
    from deck.proving.explanations import explanation_numbers

    numbers = explanation_numbers(_result_card(), REGISTRY)
    assert numbers, "memory.kv_cache explains its figures"
    traced = {n.text for n in numbers if n.proven}
    assert any("GiB" in t or "B" in t for t in traced)  # the answer itself is proven
    # A number the card proves nothing about stays untraced, whatever it is.
    assert all(n.card_id == "kv-llama" for n in numbers)
