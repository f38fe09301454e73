"""Startup of the TUI: time from launch to the first screen, against a minimal Textual app
started the same way, printed as a ratio.

Each app runs in a fresh interpreter (so imports count), headless, and reports the
wall-clock time since the parent launched it as soon as its first screen is up (then
leaves at once, so shutdown is not counted): for the baseline, a screen with one Static; for quizcoll, the
home screen mounted (``first screen``), and in a second measurement the home screen with
the deck counts filled in (the cards' ids and decks read, and a new review database created
and read). The counts are what the user waits for, so that is what is timed: the home screen
counts from the card index remembered with the compiled collection, and the rest of the
collection (which a review needs) may still be loading then — the app's ``ready`` is not
waited for. (Until the card index existed this measurement waited for ``ready`` too; that is
the same moment when the counts wait for the whole collection, as on a cache miss.)
The figures are ratios of medians over ``--runs`` launches of each.

The timed subclass does not call ``super().on_mount()``: Textual calls every class's
handler along the MRO itself, so that call (in earlier versions of this file) started the
app's load a second time and timed two loads.

Both apps run with a bytecode cache (``PYTHONPYCACHEPREFIX`` in a temporary folder, filled
by the warm-up launches, ``PYTHONDONTWRITEBYTECODE`` cleared), as an installed package has
its ``.pyc`` files: without it, a checkout run with ``PYTHONDONTWRITEBYTECODE=1`` compiled
every quizcoll module from source at each launch while Textual's came precompiled.

    python bench/bench_tui_startup.py [--runs 7] [--cards DIR] [--total 500]

With ``--total N`` the collection is the built-in cards plus copies under new ids in a
temporary user card folder (:mod:`extra_cards`) up to N cards, with a temporary cache
folder: the first (warm-up) launch fills the compiled-collection cache, as a user's first
run does, and the timed launches read it. The issue's bar: a ratio of at most 1.5 with
counts at 500 cards.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POLL = 0.002

BASELINE = f"""
import os, sys, time
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("hello", id="hello")

    def on_mount(self):
        self.set_interval({POLL}, self.check)

    def check(self):
        if self.query("#hello"):
            print(time.time() - float(sys.argv[1]), flush=True)
            os._exit(0)

Minimal().run(headless=True)
"""

QUIZCOLL = f"""
import os, sys, time
from pathlib import Path
from quizcoll.tui.app import QuizApp
from quizcoll.tui.services.env import AppEnv

full = sys.argv[3] == "counts"
cards = [Path(p) for p in sys.argv[4:]] or None

class Timed(QuizApp):
    def on_mount(self):  # Textual runs QuizApp's own handlers too: no super() call
        self.set_interval({POLL}, self.check)

    def check(self):
        today = self.screen.query("#today")
        if not today:
            return
        if not full or "Loading" not in str(today.first().content):
            print(time.time() - float(sys.argv[1]), flush=True)
            os._exit(0)

Timed(AppEnv(db_path=Path(sys.argv[2]), cards=cards)).run(headless=True)
"""


def launch(code: str, *args: str) -> float:
    """Seconds from launching ``code`` to its report of the first screen."""
    started = repr(time.time())
    done = subprocess.run(
        [sys.executable, "-c", code, started, *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--cards", action="append", default=[], metavar="DIR")
    parser.add_argument("--total", type=int, default=0, metavar="N")
    args = parser.parse_args()
    baseline, first, counts = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.total:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from extra_cards import write_extra_cards

            os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
            os.environ.pop("QUIZCOLL_NO_CACHE", None)
            extra = write_extra_cards(Path(tmp) / "data" / "quizcoll" / "cards", args.total)
            print(f"collection: built-in + {extra} copied cards")
        launch(BASELINE)  # warm the file cache and bytecode for both
        launch(QUIZCOLL, str(Path(tmp) / "warm.db"), "counts", *args.cards)
        for i in range(args.runs):
            baseline.append(launch(BASELINE))
            first.append(launch(QUIZCOLL, str(Path(tmp) / f"f{i}.db"), "first", *args.cards))
            counts.append(launch(QUIZCOLL, str(Path(tmp) / f"c{i}.db"), "counts", *args.cards))
    b, f, c = (statistics.median(x) for x in (baseline, first, counts))
    print(f"minimal Textual app:       {b * 1000:6.0f} ms (median of {args.runs})")
    print(f"quizcoll home screen:      {f * 1000:6.0f} ms")
    print(f"quizcoll home with counts: {c * 1000:6.0f} ms (cards loaded, new database)")
    print(f"ratio (first screen): {f / b:.2f}")
    print(f"ratio (with counts):  {c / b:.2f}")


if __name__ == "__main__":
    main()
