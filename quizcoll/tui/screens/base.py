"""What every screen of the app shares: typed access to the app and error reporting."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from quizcoll.tui.app import QuizApp


# The rules of every screen but home: loaded when the first such screen is shown, so the
# app starts without parsing them (app.tcss holds home's and the shared ones).
SCREENS_CSS = Path(__file__).resolve().parent.parent / "styles" / "screens.tcss"


class QuizScreen(Screen[None]):
    """A screen of :class:`~quizcoll.tui.app.QuizApp`."""

    CSS_PATH: ClassVar = SCREENS_CSS

    @property
    def quiz(self) -> QuizApp:
        return cast("QuizApp", self.app)

    async def ready(self) -> None:
        """Wait until the collection is loaded."""
        await self.quiz.ready.wait()
