"""Every app-wide action with its key: one table for the help screen and the command palette."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AppAction:
    """An action of the app: the key that runs it (on its screen), its name and what it does."""

    action: str  # an App action, as App.run_action takes it
    key: str  # as shown to people
    title: str
    help: str
    where: str = "home"  # the screen whose key it is ("app": everywhere)


ACTIONS: tuple[AppAction, ...] = (
    AppAction("review", "r", "Review due cards", "Today's queue: learning, due and new cards"),
    AppAction(
        "practise", "p", "Practise", "Review ahead by weakest cards; the schedule stays as it is"
    ),
    AppAction(
        "custom_study", "c", "Custom study", "Practise one deck or tag; the schedule stays as it is"
    ),
    AppAction("browse", "b", "Browse cards", "Search and filter every card; suspend, unsuspend"),
    AppAction("lab", "l", "Simulation lab", "Step through a collective, rank by rank"),
    AppAction("memory", "m", "Memory lab", "VRAM of a model: weights, KV cache, activations"),
    AppAction(
        "interview", "i", "Mock interview", "Questions that follow your answers; a scorecard"
    ),
    AppAction("stats", "s", "Statistics", "Reviews per day, retention, due forecast, decks"),
    AppAction(
        "settings", "o", "Settings", "Desired retention, daily limits, learning steps, theme"
    ),
    AppAction("help", "?", "Help", "Every screen's keys", "app"),
    AppAction("toggle_dark", "ctrl+t", "Toggle light/dark theme", "Switch the colour theme", "app"),
    AppAction("home", "escape", "Home", "Back to the decks", "app"),
    AppAction("quit", "q", "Quit", "Leave; every rating is already saved"),
)

# Keys of the screens that are not app-wide actions: listed by the help screen.
SCREEN_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "Review": (
        ("enter", "check the typed answer (in the answer box); rate the focused button"),
        ("space", "show the answer (self-graded cards, a wrong answer; an empty box gives up)"),
        ("1 2 3 4", "rate Again, Hard, Good, Easy (a hidden answer is shown first)"),
        ("e / tab", "after a wrong answer: back to the answer box to try again"),
        ("h", "show the card's hint before answering (the review is logged as hinted)"),
        ("u / ctrl+z", "undo the last step: a rating, a suspension or a burial"),
        ("!", "suspend this card (asks first)"),
        ("- / ctrl+b", "bury this card until tomorrow (ctrl+b works in the answer box too)"),
        ("ctrl+o", "edit this card's YAML in $EDITOR; it is checked and asked again"),
        ("pgdn pgup", "scroll a long answer (also ↓ ↑ j k home end)"),
        ("escape", "end the session (every rating is already saved)"),
    ),
    "Simulation lab": (
        ("enter", "run with the chosen collective, algorithm, ranks, size and op"),
        ("← →", "previous / next step"),
        ("home end", "first / last step"),
        ("space", "play / pause"),
    ),
    "Interview": (
        ("enter", 'answer (an empty answer: "I don\'t know"); accept the judgement, next'),
        ("r p w", "correct an explanation's judgement: right, partial, wrong"),
        ("t", "on the scorecard: make the weak cards due now"),
        ("escape", "end the interview (its scorecard is saved); back"),
    ),
    "Memory lab": (("enter", "compute the breakdown for the chosen model and settings"),),
    "Browse": (
        ("/", "search: words, deck:NAME, tag:NAME, type:numeric, is:due, is:suspended"),
        ("enter", "preview the card, with its review history"),
        ("!", "suspend or unsuspend the selected card"),
        ("s", "sort: file order, due, lapses, stability, id"),
        ("L", "the leeches (is:leech)"),
    ),
    "Statistics": (
        ("d", "the next deck's plots (all decks, then each deck)"),
        ("r", "read the database again"),
        ("pgdn pgup", "scroll"),
    ),
    "Settings": (
        ("ctrl+s", "check and save every field to config.toml (enter in a field too)"),
        ("tab", "the next field"),
    ),
    "Everywhere": (("ctrl+p", "command palette: every screen and action"),),
}
