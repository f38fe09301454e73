"""The literature's closed forms, as ``verify`` claims, against every systems executable.

``tests/fixtures/systems_claims.yaml`` holds the claims in the card format; they are loaded
with the real registry and run by the same code as ``quizcoll check``, so a card writer can
copy any of them. Every systems executable must be the subject of at least one claim.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deck.cards.loader import load_text
from deck.proving.verify import check_claim
from quizcoll.executables import build_registry
from quizcoll.executables.common import SYSTEMS_NAMESPACES as SYSTEMS

FIXTURE = Path(__file__).parent / "fixtures" / "systems_claims.yaml"


def _cards() -> list:
    cards, problems = load_text(FIXTURE.read_text(encoding="utf-8"), str(FIXTURE), build_registry())
    assert not problems, [p.format() for p in problems]
    return cards


CLAIMS = [(card, i, claim) for card in _cards() for i, claim in enumerate(card.verify)]


@pytest.mark.parametrize(
    ("card", "index", "claim"), CLAIMS, ids=[f"{c.id}[{i}]" for c, i, _ in CLAIMS]
)
def test_claim_holds(card, index, claim) -> None:
    points, failures = check_claim(card, index, claim, build_registry())
    assert points >= 1
    assert not failures, [f.format() for f in failures]


def test_every_systems_executable_has_a_closed_form_claim() -> None:
    claimed = {claim.computation.run for _, _, claim in CLAIMS}
    systems = {n for n in build_registry().names() if n.split(".")[0] in SYSTEMS}
    assert systems - claimed == set()


def test_a_wrong_closed_form_fails() -> None:
    card, index, claim = next(c for c in CLAIMS if c[2].expect == "(p-1)/(m+p-1)")
    wrong = type(claim)(
        text=claim.text,
        computation=claim.computation,
        expect="(p-1)/m",  # the bubble over the ideal time, not over the iteration
        where=claim.where,
        tolerance=claim.tolerance,
        location=claim.location,
    )
    _, failures = check_claim(card, index, wrong, build_registry())
    assert failures
