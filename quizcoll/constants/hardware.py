"""Constants of the hardware cards: definitions and published figures, each with its source."""

from __future__ import annotations

from deck.registry import Constant

CONSTANTS: tuple[Constant, ...] = ()
