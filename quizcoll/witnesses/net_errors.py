"""The one error the network witnesses raise for arguments they refuse (a ValueError: the
witnesses import nothing from the engine; their executables report it as one line)."""

from __future__ import annotations


class NetWitnessError(ValueError):
    """An argument a network witness cannot step, enumerate or search with."""


def need(ok: bool, message: str) -> None:
    """Refuse with ``message`` unless ``ok``."""
    if not ok:
        raise NetWitnessError(message)
