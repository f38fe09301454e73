"""A placeholder followed by the unit it already renders is reported (review-3 row 19)."""

from __future__ import annotations

import pytest

from deck.cards.model import ParamSpec
from deck.cards.unitwords import repeated_units

GPUS = ParamSpec(name="n", range=(2.0, 64.0), unit="GPUs")
PARAMS = ParamSpec(name="p", choices=(7e9,), unit="params")
SIZE = ParamSpec(name="s", choices=(1.0,), unit="MiB")
MODEL = ParamSpec(name="m", choices=("llama-3-8b",))


@pytest.mark.parametrize(
    "text",
    [
        "on {n} GPUs, reducing",  # "296 GPUs GPUs"
        "take on {n} GPUs? (MPICH",
        "on {n}\n      GPUs.",
        "a {p}-parameter model",  # "13,000,000,000 params-parameter"
        "a buffer of {s} MiB",
        "{n} GPU",
    ],
)
def test_repeated_unit_is_found(text: str) -> None:
    found = list(repeated_units(text, [GPUS, PARAMS, SIZE, MODEL]))
    assert len(found) == 1
    assert text[found[0][0] :].startswith("{")


@pytest.mark.parametrize(
    "text",
    [
        "on {n}, reducing",
        "a {=p|short}-parameter model",
        "{m} model on {n} in data parallel",
        "{s} per rank on {n} nodes",
        "{{n}} GPUs",  # literal braces are not a placeholder
    ],
)
def test_unit_shown_once_is_fine(text: str) -> None:
    assert list(repeated_units(text, [GPUS, PARAMS, SIZE, MODEL])) == []
