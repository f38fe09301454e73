"""The answer box: an Input that leaves ``space``, ``u`` and ``!`` (and ``h`` on a card
with a hint) to the screen while it is empty.

An answer never starts with a space, and right after a rating the box is empty, so
``space`` (reveal), ``u`` (undo), ``!`` (suspend) and ``h`` (hint) keep working without
leaving the box. ``-`` (bury) does not: a negative answer starts with it.

The box also takes the keys typed into it while the focus was still moving to it
(:meth:`AnswerInput.take_stray_key`).
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from deck.answers.checking import answer_dim
from deck.answers.examples import answer_hint
from deck.cards.model import Card
from deck.cards.registry import Registry

PASS_WHEN_EMPTY = frozenset({" ", "u", "!"})  # no answer starts with these
KEYS_HINT = "Enter checks, space reveals"


def pass_keys_for(card: Card) -> frozenset[str]:
    """The keys an empty answer box leaves to the screen for ``card``: ``h`` only where
    the card has a hint and no formula variable starts with an h."""
    variables = [v.name for v in card.variables]
    if card.hint and not any(name.startswith("h") for name in variables):
        return PASS_WHEN_EMPTY | {"h"}
    return PASS_WHEN_EMPTY


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

    def clear_for(self, card: Card) -> None:
        """Empty and enabled for a new ``card``, with the keys it leaves to the screen."""
        self.value = ""
        self.disabled = False
        self.pass_keys = pass_keys_for(card)

    def ask(self, card: Card, registry: Registry | None) -> None:
        """Shown and focused for ``card``, with an example answer as its placeholder."""
        self.display = True
        # The example matches the card's quantity: a size, a time, a formula in its names.
        dim = answer_dim(card, registry)
        self.placeholder = f"{answer_hint(card, dim)} — {KEYS_HINT}"
        self.focus()

    def try_again(self) -> None:
        """Back in the box for another attempt, the previous text selected (typing replaces
        it). Focus moves now, not on the next idle, so keys typed right after land here."""
        self.disabled = False
        self.screen.set_focus(self)
        self.select_all()

    def take_stray_key(self, event: events.Key) -> bool:
        """Type ``event`` into the box if it was aimed here; True if it was.

        A key sent right after ``e``/tab (by a fast typist, or a terminal pasting keys)
        was routed to the widget focused before the focus moved, and reaches the app
        unhandled. The box itself stops every key it types, so a printable key that gets
        that far while the box has focus belongs in it.
        """
        if (
            self.screen.focused is not self
            or not event.is_printable
            or event.character is None
            or self.passes(event.character)
        ):
            return False
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(event.character)
        else:
            self.replace(event.character, *selection)
        return True
