"""What every screen of the app shares: typed access to the app and error reporting."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from quizcoll.tui.app import QuizApp


class QuizScreen(Screen[None]):
    """A screen of :class:`~quizcoll.tui.app.QuizApp`."""

    @property
    def quiz(self) -> QuizApp:
        return cast("QuizApp", self.app)

    async def ready(self) -> None:
        """Wait until the collection is loaded."""
        await self.quiz.ready.wait()
