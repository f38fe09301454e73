"""What a finished review session did: cards reviewed and right, time, leeches, the next due."""

from __future__ import annotations

from datetime import datetime, tzinfo

from rich.text import Text

from deck import units
from deck.review.scheduler import format_interval
from quizcoll.tui.services.review import SessionSummary


def render_summary(
    s: SessionSummary, now: datetime, tz: tzinfo | None = None, *, practice: bool = False
) -> Text:
    """The end-of-session panel; ``now`` is when it is shown (for "next due in …"), ``tz``
    the zone of the clock time shown (None: the system's)."""
    text = Text()
    if not s.reviewed and not s.suspended and not s.buried:
        text.append("Nothing is due now. ", style="bold")
        text.append("Practise (p on the home screen) reviews ahead.")
    else:
        text.append("Session done. ", style="bold green")
        text.append(f"{s.reviewed} card{'s' if s.reviewed != 1 else ''} reviewed", style="bold")
        if s.reviewed:
            checked = s.correct + s.wrong
            parts = []
            if checked:
                parts.append(f"{s.correct} of {checked} right")
            if s.self_graded:
                parts.append(f"{s.self_graded} self-graded")
            if s.hinted:
                parts.append(f"{s.hinted} with a hint")
            text.append(f" ({', '.join(parts)})" if parts else "")
            if s.seconds:
                text.append(f" in {units.format_seconds(s.seconds, 2)}")
        text.append(".")
        if practice:
            text.append("\nPractice: the schedule did not change.", style="dim")
    for label, ids, style in (
        ("New leeches (suspended)", s.leeches, "bold yellow"),
        ("Suspended", s.suspended, "yellow"),
        ("Buried until tomorrow", s.buried, ""),
    ):
        if ids:
            text.append(f"\n{label}: ", style=style)
            text.append(", ".join(ids))
    text.append("\n")
    if s.next_due is None:
        text.append("\nNo card is waiting to come due.", style="dim")
    else:
        wait = format_interval(s.next_due - now)
        text.append("\nNext card due in ")
        text.append(wait, style="bold")
        text.append(f" ({s.next_due.astimezone(tz):%a %H:%M}).")
    text.append("\nescape: home · u: undo the last step", style="dim")
    return text
