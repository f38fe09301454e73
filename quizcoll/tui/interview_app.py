"""``quizcoll interview`` on a terminal: the app, opened straight on the interview screen."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from quizcoll.tui.app import QuizApp
from quizcoll.tui.screens.interview import InterviewScreen
from quizcoll.tui.services.env import AppEnv


class InterviewApp(QuizApp):
    """The app whose first screen over home is one interview."""

    def __init__(
        self,
        env: AppEnv,
        script_id: str | None,
        seed: int | None,
        scripts: Sequence[Path] | None = None,
    ) -> None:
        super().__init__(env)
        self.interview = (script_id, seed, scripts)

    def on_mount(self) -> None:  # Textual runs QuizApp's own handlers too: no super() call
        script_id, seed, scripts = self.interview
        self.push_screen(InterviewScreen(script_id, seed, scripts=scripts))


def run_interview_app(
    cards: Sequence[Path] | None,
    db_path: Path,
    script_id: str | None,
    seed: int | None,
    *,
    scripts: Sequence[Path] | None = None,
) -> int:
    """Run the app on ``cards`` and ``db_path``, opened on the interview ``script_id``."""
    env = AppEnv(db_path=Path(db_path), cards=list(cards) if cards else None)
    app = InterviewApp(env, script_id, seed, scripts)
    app.run()
    return app.return_code or 0
