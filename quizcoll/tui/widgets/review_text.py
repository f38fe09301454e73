"""The review screen's text: its title line, a choice card's options, the hint, the
verdict on an answer and what a saved rating says. Pure functions of the session's state
(no Textual), so the screen only decides where each one goes."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from deck.answers.checking import answer_sentence
from quizcoll.tui.services.review import Presented, ReviewSession

RETRY_HINT = "e or tab: try again · space: show the answer · 1–4: rate"


def review_title(
    session: ReviewSession | None, *, practice: bool, deck: str | None, tag: str | None
) -> Text:
    """The line above the card: review or practice, the deck or tag asked for, the card's
    kind and how far the session has come."""
    text = Text()
    text.append("Practice" if practice else "Review", style="bold")
    if deck:
        text.append(f" · {deck}")
    if tag:
        text.append(f" · tag {tag}")
    if session and session.current:
        # the card's deck only where the session mixes decks; its kind only in a review
        # ("Practice · … · practice" said it twice and pushed the count off an 80-column line)
        where = "" if deck else f" · {session.current.card.deck}"
        kind = "" if practice else f" · {session.kind_label()}"
        text.append(f"{where}{kind}", style="dim")
    if session:
        text.append(f"  {session.done}/{session.total}")
    return text


def options_table(options: list[str]) -> Table:
    """The choice options, the letter in its own column so a wrapped option's text lines
    up under its first line, not under its letter."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()
    for i, option in enumerate(options):
        table.add_row(Text(f" {chr(ord('a') + i)} ", style="bold reverse"), option)
    return table


def hint_text(p: Presented) -> Text:
    """The card's hint, labelled."""
    text = Text("Hint: ", style="bold")
    text.append(p.hint_text())
    return text


def sentence(text: str) -> str:
    """``text`` ending as a sentence ("Correct" → "Correct.")."""
    return text if text.endswith((".", "!", "?")) else f"{text}."


def verdict_text(p: Presented) -> Text:
    """The verdict on ``p``'s answer; while a wrong answer can be retried, without the
    answer (and with the keys that retry, reveal or rate)."""
    verdict = p.verdict
    assert verdict is not None
    text = Text()
    if verdict.correct is True:
        text.append("✔ ", style="bold green")
    elif verdict.correct is False:
        text.append("✘ ", style="bold red")
    text.append(sentence(verdict.feedback))
    if not p.retryable:
        if verdict.feedback != verdict.message:
            text.append(answer_sentence(verdict.exact))
        if verdict.exact and verdict.exact not in verdict.message:
            text.append("\nAnswer: ", style="bold")
            text.append(verdict.exact)
    if p.attempts > 1:
        text.append(f"\nattempt {p.attempts}", style="dim")
    if p.retryable:
        text.append(f"\n{RETRY_HINT}", style="dim")
    return text


def saved_note(card_id: str, rating: str, interval: str | None, *, leech: bool) -> str:
    """What a committed rating says: the card, the rating (``rating``, its name), when the
    card comes back (``interval``; None in practice, which changes no schedule) and
    whether it just became a leech."""
    note = f"Saved {card_id}: {rating}"
    if interval is not None:
        note += f", next in {interval}"
    if leech:
        note += " — a leech now, suspended"
    return note
