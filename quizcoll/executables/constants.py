"""Registers the declared constants and the digit-initial terms with the engine."""

from __future__ import annotations

from deck.cards.registry import Registry
from quizcoll.constants import TERMS, all_constants


def register(registry: Registry) -> None:
    for constant in all_constants():
        registry.add_constant(constant)
    registry.add_terms(*TERMS)
