"""The command palette: every app action and a review or practice of each deck."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from quizcoll.tui.actions import ACTIONS

if TYPE_CHECKING:
    from quizcoll.tui.app import QuizApp


class QuizCommands(Provider):
    """Commands reaching every screen and action, with their keys."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app: QuizApp = self.app  # type: ignore[assignment]
        out: list[tuple[str, str, Callable[[], object]]] = []
        # The screen the palette was opened on may offer its own actions (a review: rate,
        # undo, suspend…), so that keys hidden from a narrow footer stay reachable here.
        screen_commands = getattr(self.screen, "palette_commands", None)
        if callable(screen_commands):
            out.extend(screen_commands())
        on_home = len(app.screen_stack) <= 1
        for a in ACTIONS:
            # A home key is named only on home: elsewhere that key does something else.
            key = f"  [{a.key}]" if a.where == "app" or on_home else ""
            out.append((a.title, f"{a.help}{key}", partial(app.run_action, a.action)))
        for deck in app.deck_names():
            out.append(
                (
                    f"Review deck: {deck}",
                    "Today's queue of this deck",
                    partial(app.open_review, deck),
                )
            )
            out.append(
                (
                    f"Practise deck: {deck}",
                    "Review ahead in this deck",
                    partial(app.open_review, deck, practice=True),
                )
            )
        return out

    async def discover(self) -> Hits:
        for title, help_, run in self._commands():
            yield DiscoveryHit(title, run, help=escape(help_))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_, run in self._commands():
            score = matcher.match(title)
            if score > 0:
                # help is read as markup: escaped, "[b]" is a key and not bold
                yield Hit(score, matcher.highlight(title), run, help=escape(help_))
