"""The error raised for a bad model config, model or GPU name, format or value."""

from __future__ import annotations


class MemoryInputError(ValueError):
    """Input the memory calculators cannot use; the message is one line for the user."""
