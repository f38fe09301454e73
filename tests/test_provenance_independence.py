"""Independence you can see: each proof's two sides are classified (simulated, enumerated,
searched, measured, published, closed form) and a computed card counts as independent only
when its answer is held to a side that is not a closed form."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deck.cards.loader import load_text
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
      - {run: memory.kv_cache, claim: "per token", args: {model: llama-3-8b, context: 1}, field: kv_bytes_per_token, expect: "2*llama_3_8b_layers*llama_3_8b_kv_heads*llama_3_8b_head_dim*fp16_bytes"}
"""


def test_a_result_span_is_proven_only_by_a_claim_on_its_field() -> None:
    from deck.proving.coverage import card_coverage

    cards, problems = load_text(RESULT_CARD, "r.yaml", REGISTRY)
    assert not problems, [p.format() for p in problems]
    items = {i.text: i for i in card_coverage(cards[0], REGISTRY).items}
    assert items["{=result.kv_bytes_per_token}"].proven  # the claim derives it
    assert not items["{=result.layers}"].proven  # shown straight from the run


def test_explanation_numbers_are_traced_to_proven_values() -> None:
    from deck.proving.explanations import explanation_numbers

    cards, _ = load_text(RESULT_CARD, "r.yaml", REGISTRY)
    numbers = explanation_numbers(cards[0], REGISTRY)
    assert numbers, "memory.kv_cache explains its figures"
    traced = {n.text for n in numbers if n.proven}
    assert any("GiB" in t or "B" in t for t in traced)  # the answer itself is proven
    # A number the card proves nothing about stays untraced, whatever it is.
    assert all(n.card_id == "kv-llama" for n in numbers)
