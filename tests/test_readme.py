"""The README's card example is a card that passes ``quizcoll check``, as it says."""

from __future__ import annotations

import re
from pathlib import Path

from deck.cards.loader import load_text
from deck.cards.model import Collection
from deck.proving.verify import run_checks
from quizcoll.executables import build_registry

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_card_example_loads_and_proves() -> None:
    section = README.read_text(encoding="utf-8").split("## Writing cards", 1)[1]
    example = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert example is not None
    cards, problems = load_text(example.group(1), "README.md", build_registry())
    assert not problems, [p.format() for p in problems]
    report = run_checks(Collection(tuple(cards)), build_registry(), seeds=3)
    assert report.ok and not report.warnings, [f.format() for f in report.failures]
