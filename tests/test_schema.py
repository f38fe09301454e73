"""The shipped JSON Schema agrees with the loader: real cards validate, its keys are the loader's."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from deck.cards.loader import base as loader  # the key lists the validators share

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "deck" / "cards" / "card.schema.json").read_text(encoding="utf-8"))
CARD_FILES = [
    *sorted((ROOT / "quizcoll" / "cards").rglob("*.yaml")),
    ROOT / "tests" / "fixtures" / "engine_cards.yaml",
]


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda p: p.name)
def test_real_card_files_validate(path: Path) -> None:
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), SCHEMA)


def test_schema_keys_match_the_loader() -> None:
    card = SCHEMA["$defs"]["card"]["properties"]
    assert set(card) == set(loader.ALL_CARD_KEYS)
    assert set(SCHEMA["properties"]) == set(loader.FILE_KEYS)
    assert set(SCHEMA["$defs"]["param"]["oneOf"][1]["properties"]) == set(loader.PARAM_KEYS)
    assert set(SCHEMA["$defs"]["claim"]["properties"]) == set(loader.CLAIM_KEYS)
    answer = SCHEMA["$defs"]["card"]["properties"]["answer"]["oneOf"][1]["properties"]
    assert set(answer) == set(loader.ANSWER_KEYS)


def test_schema_rejects_an_unknown_key() -> None:
    bad = {"cards": [{"id": "a", "type": "basic", "front": "q", "bakc": "x"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
