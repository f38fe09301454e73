"""The answer box: an Input that leaves ``space``, ``u`` and ``!`` (and ``h`` on a card
with a hint) to the screen while it is empty.

An answer never starts with a space, and right after a rating the box is empty, so
``space`` (reveal), ``u`` (undo), ``!`` (suspend) and ``h`` (hint) keep working without
leaving the box. ``-`` (bury) does not: a negative answer starts with it.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

PASS_WHEN_EMPTY = frozenset({" ", "u", "!"})  # no answer starts with these


class AnswerInput(Input):
    """Where the answer is typed; Enter checks it."""

    # The keys an empty box leaves to the screen (the review sets it per card).
    pass_keys: frozenset[str] = PASS_WHEN_EMPTY

    def passes(self, character: str | None) -> bool:
        """Whether this key goes to the screen's bindings instead of into the box."""
        return not self.value and character in self.pass_keys

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if self.passes(character):
            return False
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls each class's handler along the MRO until one prevents the default;
        # preventing it here keeps Input from typing the key, so it reaches the bindings.
        if self.passes(event.character):
            event.prevent_default()
