"""Which of the review screen's keys apply now, as one rule for the footer (offered,
dimmed or hidden), the command palette and the help screen.

Pure: it reads the card on screen and what each lab key would open, nothing of Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from deck.cards.model import Rating
from quizcoll.tui.services.review import Presented

if TYPE_CHECKING:  # the labs pull in numpy: imported once a live result is drawn
    from quizcoll.tui.services.lab import LabRequest
    from quizcoll.tui.services.lab_links import LabLinks
    from quizcoll.tui.services.memory_lab import MemoryRequest

# The lab keys under a revealed answer: the key and what it opens (for the help screen).
LAB_KEYS = {
    "open_lab": ("l", "step through this card's collective in the simulation lab"),
    "open_memory_lab": ("m", "open this card's model and setting in the memory lab"),
}
# Actions about the card on screen: none applies once the session is done.
CARD_ACTIONS = frozenset(
    {
        "reveal",
        "rate",
        "edit",
        "hint",
        "suspend",
        "bury",
        "edit_card",
        "open_lab",
        "open_memory_lab",
        "no_lab",
    }
)


def lab_request(
    action: str, p: Presented | None, links: LabLinks | None
) -> LabRequest | MemoryRequest | None:
    """What lab key ``action`` (:data:`LAB_KEYS`) would open: only under ``p``'s revealed
    answer, and only where its live result (``links``) can be replayed in that lab."""
    if p is None or not p.revealed or links is None:
        return None
    return links.sim if action == "open_lab" else links.memory


def no_lab_message(which: str, p: Presented) -> str:
    """Why the ``which`` lab ("simulation", "memory") does not open on ``p``."""
    if not p.revealed:
        return f"The {which} lab opens under a revealed answer."
    return f"The {which} lab cannot replay this card's answer."


def key_state(
    action: str,
    parameters: tuple[object, ...],
    p: Presented | None,
    *,
    started: bool,
    can_undo: bool,
    lab: Callable[[str], object | None],
) -> bool | None:
    """Whether ``action`` applies, as Textual's ``check_action`` answers: True offered,
    None dimmed (it does nothing now), False hidden.

    ``p`` is the card on screen (None before the session starts and once it is done),
    ``started`` whether the session has begun, ``can_undo`` whether it has a step to undo,
    and ``lab(action)`` what a lab key (:data:`LAB_KEYS`) would open, None for nothing.
    """
    if p is None and started and action != "undo" and action in CARD_ACTIONS:
        return False  # the session is done: its summary has no card to act on
    if action == "rate":
        return True if p is not None and p.answered else None
    if action == "reveal":
        if p is not None and p.revealed and any(map(lab, LAB_KEYS)):
            return False  # a lab key takes its place in an 80-column footer
        return True if p is not None and not p.revealed else None
    if action == "undo":
        return True if can_undo else None
    if action == "edit":
        return True if p is not None and p.retryable else None
    if action in ("suspend", "bury", "edit_card"):
        return True if p is not None else None
    if action == "hint":
        # Shown only on a card that has a hint, until its answer is on screen.
        return p is not None and bool(p.card.hint) and not p.revealed
    if action in LAB_KEYS:
        # Hidden (not just dimmed) where it does not apply: most cards have no lab.
        return lab(action) is not None
    if action == "no_hint":
        return p is not None and not p.card.hint
    if action == "no_lab":
        wanted = "open_lab" if parameters == ("simulation",) else "open_memory_lab"
        return p is not None and lab(wanted) is None
    return True


def palette_items(names: Mapping[Rating, str]) -> list[tuple[str, str, str]]:
    """The review's entries in the command palette, as (action, title, key); ``names``
    are the ratings' names. The palette offers those :func:`key_state` lets through."""
    return [
        ("reveal", "Show the answer", "space"),
        ("edit", "Try again", "e or tab"),
        *((f"rate({int(r)})", f"Rate {names[r]}", str(int(r))) for r in Rating),
        ("undo", "Undo the last step", "u"),
        ("hint", "Show the hint", "h"),
        ("suspend", "Suspend this card", "!"),
        ("bury", "Bury this card until tomorrow", "-"),
        ("edit_card", "Edit this card in $EDITOR", "ctrl+o"),
        ("open_lab", "Open this collective in the simulation lab", "l"),
        ("open_memory_lab", "Open this model in the memory lab", "m"),
    ]


def split_action(action: str) -> tuple[str, tuple[object, ...]]:
    """An action string as a binding names it, as ``check_action`` takes it:
    ``"rate(3)"`` → ``("rate", (3,))``."""
    name, _, arg = action.partition("(")
    return name, (int(arg.rstrip(")")),) if arg else ()
