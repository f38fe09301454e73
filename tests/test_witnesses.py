"""The second methods (quizcoll.witnesses) are registered as ``witness.*`` executables, each
declaring how it reaches its result; a witness declared a closed form would count for
nothing in the independence report, so it is refused here."""

from __future__ import annotations

from deck.cards.registry import Derivation
from quizcoll.executables import build_registry, witness_modules


def test_every_witness_declares_a_derivation_other_than_a_closed_form() -> None:
    registry = build_registry()
    names = [n for n in registry.names() if n.startswith("witness.")]
    assert len(names) >= len(witness_modules())
    closed = [n for n in names if registry.derivation(n)[0] is Derivation.CLOSED_FORM]
    assert not closed, f"witnesses declared (or left) closed forms: {closed}"
