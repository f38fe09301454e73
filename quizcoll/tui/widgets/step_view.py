"""The lab's step viewer: focusable, ←/→ move through the rounds, space plays them."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from quizcoll.tui.services.lab import LabRun
from quizcoll.tui.widgets.rank_buffers import legend, render_step, render_transfers, shown_note

PLAY_INTERVAL_S = 0.7


class StepView(Static, can_focus=True):
    """Shows one step of a :class:`LabRun`; ``view`` 0 is the start, ``steps`` the end."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "move(1)", "Next", key_display="→"),
        Binding("left", "move(-1)", "Prev", key_display="←"),
        Binding("home", "jump(0)", "Start", show=False),
        Binding("end", "jump(-1)", "End", show=False),
        Binding("space", "play", "Play"),
    ]

    view: reactive[int] = reactive(0)

    class Moved(Message):
        def __init__(self, view: int) -> None:
            super().__init__()
            self.view = view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.lab: LabRun | None = None
        self._timer: Timer | None = None

    def load(self, lab: LabRun) -> None:
        self.stop()
        self.lab = lab
        self.view = 0
        self.mutate_reactive(StepView.view)

    def watch_view(self, view: int) -> None:
        if self.lab is None:
            return
        note = shown_note(self.lab)
        self.update(
            Group(
                *([note] if note is not None else []),
                render_step(self.lab, view),
                render_transfers(self.lab, view),
                legend(),
            )
        )
        self.border_title = f"step {view}/{self.lab.steps}"
        self.post_message(self.Moved(view))

    def action_move(self, delta: int) -> None:
        if self.lab is not None:
            self.view = max(0, min(self.lab.steps, self.view + delta))

    def action_jump(self, where: int) -> None:
        if self.lab is not None:
            self.view = self.lab.steps if where < 0 else 0

    @property
    def playing(self) -> bool:
        return self._timer is not None

    def action_play(self) -> None:
        if self.lab is None:
            return
        if self.playing:
            self.stop()
            return
        if self.view >= self.lab.steps:
            self.view = 0
        self._timer = self.set_interval(PLAY_INTERVAL_S, self._tick)

    def _tick(self) -> None:
        if self.lab is None or self.view >= self.lab.steps:
            self.stop()
            return
        self.view += 1

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
