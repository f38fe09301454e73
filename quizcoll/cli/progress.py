"""A one-line progress bar on stderr, shown only on an interactive terminal."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class Progress:
    """``Progress(label)(i, n)`` redraws at most ten times a second; ``done()`` clears it."""

    def __init__(
        self, label: str, *, enabled: bool | None = None, stream: TextIO | None = None
    ) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label = label
        self._last = 0.0
        self._drawn = False

    def __call__(self, i: int, n: int, *_: Any) -> None:
        if not self.enabled or n <= 0:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and i + 1 < n:
            return
        self._last = now
        width = 30
        filled = int(width * (i + 1) / n)
        bar = "█" * filled + "░" * (width - filled)
        self.stream.write(f"\r{self.label} {bar} {i + 1}/{n}")
        self.stream.flush()
        self._drawn = True

    def done(self) -> None:
        if self._drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._drawn = False
