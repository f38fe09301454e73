"""Labels of text choices: a question reads ``H100 80GB`` where the executable gets ``h100-80gb``."""

from __future__ import annotations

import pytest

from deck.cards.instances import draw, render_front
from deck.cards.loader import load_text
from deck.cards.registry import Registry
from quizcoll.executables import build_registry
from quizcoll.executables.labels import gpu_label
from quizcoll.memory.catalog import model_names
from quizcoll.memory.gpus import GPUS

REGISTRY = build_registry()

CARD = """\
deck: t
unproven: warn
cards:
  - id: hbm-read
    type: basic
    front: "How fast does one **{gpu}** read its memory, and does {other} differ?"
    back: It depends.
    params:
      gpu: [h100-80gb, mi300x, rtx-4090]
      other: [no-label-here]
"""


def test_every_catalog_gpu_and_model_has_a_label() -> None:
    for gpu in GPUS:
        assert REGISTRY.label(gpu.key) == gpu_label(gpu.name) != gpu.key
    for name in model_names():
        assert REGISTRY.label(name) != name, name
    assert gpu_label("NVIDIA GeForce RTX 4090 24GB") == "RTX 4090 24GB"
    assert gpu_label("AMD Instinct MI300X 192GB") == "MI300X 192GB"


def test_a_question_shows_the_label_and_the_run_gets_the_key() -> None:
    cards, problems = load_text(CARD, "t.yaml", REGISTRY)
    assert not problems, problems
    fronts = set()
    for seed in range(30):
        inst = draw(cards[0], seed, REGISTRY)
        assert inst.values["gpu"] in ("h100-80gb", "mi300x", "rtx-4090")
        fronts.add(render_front(cards[0], inst))
    assert any("**H100 80GB**" in f for f in fronts)
    assert any("**MI300X 192GB**" in f for f in fronts)
    assert all("no-label-here" in f for f in fronts)  # a choice without a label as written
    assert not any("h100-80gb" in f for f in fronts)


def test_a_card_loaded_without_a_registry_shows_choices_as_written() -> None:
    cards, _ = load_text(CARD, "t.yaml", None)
    front = render_front(cards[0], draw(cards[0], 0))
    assert any(key in front for key in ("h100-80gb", "mi300x", "rtx-4090"))


@pytest.mark.parametrize("label", ["", "  ", "{gpu}", "H100 }"])
def test_a_label_must_be_plain_text(label: str) -> None:
    with pytest.raises(ValueError, match="plain, non-empty text"):
        Registry().add_label("h100", label)


def test_a_value_is_labelled_once() -> None:
    registry = Registry()
    registry.add_label("h100", "H100")
    registry.add_label("h100", "H100")  # the same label again is harmless
    with pytest.raises(ValueError, match="labelled twice"):
        registry.add_label("h100", "H100 SXM")
