"""The quizcoll terminal app: screens, the command palette, the collection and the database.

:func:`run_app` is what ``quizcoll`` (no arguments) runs. :class:`QuizApp` takes an
:class:`~quizcoll.tui.services.env.AppEnv` so tests give it temporary paths, a frozen
clock and fixed seeds.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen

from deck.base.errors import DeckError
from deck.review.scheduler import Config
from quizcoll.tui.commands import QuizCommands
from quizcoll.tui.services.database import Database
from quizcoll.tui.services.env import AppEnv

if TYPE_CHECKING:
    from deck.cards.model import Card, Collection
    from deck.cards.registry import Registry
    from quizcoll.compiled import CardRef
    from quizcoll.settings import Change
    from quizcoll.tui.services.editor import Reloaded
    from quizcoll.tui.services.lab import LabRequest
    from quizcoll.tui.services.memory_lab import MemoryRequest
    from quizcoll.tui.services.summary import HomeSummary

MAX_PROBLEM_NOTES = 5
# How long the whole load waits for home to show the counts from the card index: reading
# the collection holds the interpreter lock for tens of milliseconds at a time, which
# would hold up the counts the user is waiting for (a review waits for the whole load).
COUNTS_FIRST_WAIT = 1.0


class QuizApp(App[int]):
    """Home, review, practice, browse, stats and the two labs."""

    TITLE = "quizcoll"
    SUB_TITLE = "interview flashcards with executable answers"
    CSS_PATH = Path(__file__).parent / "styles" / "app.tcss"
    COMMANDS: ClassVar = App.COMMANDS | {QuizCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+t", "toggle_dark", "Theme", show=False),
        Binding("ctrl+z", "undo", "Undo", show=False),
    ]

    def __init__(self, env: AppEnv) -> None:
        super().__init__()
        self.env = env
        self.db = Database(env.db_path)
        self.collection: Collection | None = None
        self.registry: Registry | None = None
        self.config: Config = env.config or Config()
        self.ready = asyncio.Event()
        # Set as soon as the home screen can count: from the card index remembered with the
        # compiled collection (same key), else when the collection is loaded.
        self.counts_ready = asyncio.Event()
        self._index: tuple[CardRef, ...] = ()
        self._counts_shown = threading.Event()
        self._first_summary: Future[HomeSummary] | None = None
        self._config_from_file = env.config is None or env.config_path is not None
        # `quizcoll review` on a terminal opens straight into a session: (deck, practice).
        self.start_review: tuple[str | None, bool] | None = None

    # -- start and stop -------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        from quizcoll.tui.screens.home import HomeScreen

        return HomeScreen()

    def on_load(self) -> None:
        # Before the terminal is set up and home is composed: the counts can be ready by
        # the time home is on screen.
        self.load_collection()

    @work(thread=True, exclusive=True, group="load")
    def load_collection(self) -> None:
        """Read the card files (and the settings) off the interface thread: first the card
        index, so home counts at once, then the whole collection."""
        from quizcoll.collection import cached_index, load

        self.db.open_soon()  # the counts read it; opening overlaps reading the card index
        config = self.config
        path = self.settings_path
        # No settings file (a first run): the defaults, without importing the TOML readers.
        if self._config_from_file and path is not None and os.path.lexists(path):
            from deck.review.scheduler import load_config
            from quizcoll.settings import read_theme

            try:
                config = load_config(path)
            except DeckError as exc:
                self.call_from_thread(self.report, f"{exc}; using the default settings")
            theme = read_theme(path)
            if theme is not None:
                self.call_from_thread(setattr, self, "theme", theme)
        paths = list(self.env.cards) if self.env.cards else None
        indexed = cached_index(paths)
        if indexed is not None:
            from quizcoll.tui.services.summary import home_summary

            # Counted on the database thread at once, while the interface is still
            # composing home, which takes this result instead of asking again.
            self._first_summary = self.db.submit(
                home_summary, indexed[1], config, self.env.clock(), self.env.tz
            )
            self.call_from_thread(self._indexed, indexed[1], config)
            if self.start_review is None:  # a review waits for the cards, not for home
                self._counts_shown.wait(COUNTS_FIRST_WAIT)
        try:
            collection, registry = load(paths, key=indexed[0] if indexed else None)
        except DeckError as exc:
            from deck.cards.model import Collection

            self.call_from_thread(self.report, str(exc))
            collection, registry = Collection(()), None
        self.call_from_thread(self._loaded, collection, registry, config)

    def _indexed(self, index: tuple[CardRef, ...], config: Config) -> None:
        self._index, self.config = index, config
        self.counts_ready.set()

    def take_first_summary(self, *, done: bool = False) -> Future[HomeSummary] | None:
        """The home counts computed from the card index as soon as it was read (once: a
        later refresh of home counts afresh); with ``done``, only if already computed."""
        future = self._first_summary
        if future is None or (done and not future.done()):
            return None
        self._first_summary = None
        return future

    def counts_shown(self) -> None:
        """Home has shown its counts (or failed to): the whole load may go on."""
        self._counts_shown.set()

    def _loaded(self, collection: Collection, registry: Registry | None, config: Config) -> None:
        counted, self._index = self._index, ()
        self.collection, self.registry, self.config = collection, registry, config
        self.counts_ready.set()
        if counted and [(r.id, r.deck) for r in counted] != [
            (c.id, c.deck) for c in collection.cards
        ]:
            # The files changed between the index and the load (the cache was replaced
            # meanwhile): count again from the cards as they are.
            home = self.screen_stack[0] if self.screen_stack else None
            refresh = getattr(home, "refresh_summary", None)
            if callable(refresh):
                refresh()
        problems = collection.problems
        for problem in problems[:MAX_PROBLEM_NOTES]:
            self.report(problem.format(), title="Card file problem")
        if len(problems) > MAX_PROBLEM_NOTES:
            self.report(
                f"{len(problems) - MAX_PROBLEM_NOTES} more problem(s): run `quizcoll check`",
                title="Card file problems",
            )
        self.ready.set()
        if self.start_review is not None:
            deck, practice = self.start_review
            self.start_review = None
            self.open_review(deck=deck, practice=practice)

    async def on_unmount(self) -> None:
        self._counts_shown.set()
        await asyncio.to_thread(self.db.close)

    # -- shared helpers -------------------------------------------------------------------

    @property
    def settings_path(self) -> Path | None:
        """Where settings and the theme are saved: the environment's file, else the user's
        config.toml; None when the environment fixed the settings (tests)."""
        if self.env.config_path is not None:
            return self.env.config_path
        if self.env.config is not None:
            return None
        from deck.review.scheduler import config_path

        return config_path()

    async def save_settings(self, changes: Sequence[Change], theme: str | None) -> Config:
        """Apply ``changes`` to the review defaults and save them (and ``theme``) to the
        settings file, off the interface thread; returns the settings now in force."""
        from dataclasses import replace as with_values

        from deck.review.anki import changed_decks, reschedule_cards
        from quizcoll.settings import parse_config_changes, save_settings

        path = self.settings_path
        before = self.config
        if path is None:
            default = with_values(self.config.default, **parse_config_changes(changes))
            self.config = with_values(self.config, default=default)
        else:
            self.config = await asyncio.to_thread(save_settings, path, changes, theme=theme)
        # A new desired retention (or parameters): existing cards follow, as in Anki.
        decks = changed_decks(before, self.config, self.deck_names())
        if decks:
            moved = await self.db.call(reschedule_cards, self.config, decks)
            if moved:
                self.notify(f"{moved} card(s) rescheduled for the new settings", timeout=5)
        return self.config

    @property
    def cards(self) -> list[Card]:
        return list(self.collection.cards) if self.collection else []

    @property
    def count_cards(self) -> Sequence[Card] | Sequence[CardRef]:
        """What the counts are made of: the collection's cards, or before it is loaded the
        card index (the same ids, decks and tags in the same order)."""
        return self.collection.cards if self.collection else self._index

    def deck_names(self) -> list[str]:
        return self.collection.decks() if self.collection else []

    def tag_names(self) -> list[str]:
        return sorted({t for c in self.cards for t in c.tags})

    def report(self, message: str, *, title: str = "Error", timeout: float = 10) -> None:
        """An error as a notification; the app keeps running."""
        self.notify(message, title=title, severity="error", timeout=timeout, markup=False)

    def _show(self, name: str) -> None:
        """Open an installed screen (created once, so a lab keeps its state) above home."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        if not self.is_screen_installed(name):
            self.install_screen(self._make_screen(name), name=name)
        self.push_screen(name)

    def _make_screen(self, name: str) -> Screen:
        if name == "lab":
            from quizcoll.tui.screens.sim_lab import SimLabScreen

            return SimLabScreen()
        if name == "memory":
            from quizcoll.tui.screens.memory_lab import MemoryLabScreen

            return MemoryLabScreen()
        if name == "browse":
            from quizcoll.tui.screens.browse import BrowseScreen

            return BrowseScreen()
        if name == "stats":
            from quizcoll.tui.screens.stats import StatsScreen

            return StatsScreen()
        raise KeyError(name)

    def open_lab_over(self, preset: LabRequest | MemoryRequest) -> None:
        """A fresh lab preloaded with ``preset``, pushed over the current screen (a review
        keeps its card and session underneath; escape comes back to it). Not the installed
        lab of home, whose own settings stay as they were."""
        from quizcoll.tui.screens.memory_lab import MemoryLabScreen
        from quizcoll.tui.screens.sim_lab import SimLabScreen
        from quizcoll.tui.services.lab import LabRequest

        if isinstance(preset, LabRequest):
            self.push_screen(SimLabScreen(preset=preset))
        else:
            self.push_screen(MemoryLabScreen(preset=preset))

    def open_review(
        self, deck: str | None = None, *, practice: bool = False, tag: str | None = None
    ) -> None:
        from quizcoll.tui.screens.review import ReviewScreen

        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(ReviewScreen(deck=deck, practice=practice, tag=tag))

    async def edit_file(self, path: Path, line: int) -> int:
        """Run the editor on ``path`` at ``line`` with the terminal handed over to it; its
        exit status. (A test environment passes its own editor and has no terminal.)"""
        from textual.app import SuspendNotSupported

        from quizcoll.tui.services.editor import EditorError, editor_command, run_editor

        editor = self.env.editor or run_editor
        try:
            if self.env.editor is None:
                editor_command(path, line)  # a $EDITOR that is no command line: say so here
            with self.suspend():
                return editor(path, line)
        except EditorError as exc:
            self.report(str(exc), title="Edit")
            return 127
        except SuspendNotSupported:
            if self.env.editor is None:
                self.report("this terminal cannot hand itself to an editor", title="Edit")
                return 1
            return editor(path, line)

    def replace_card(self, card: Card) -> None:
        """Use the edited ``card`` (same id) everywhere from now on."""
        if self.collection is not None:
            cards = tuple(card if c.id == card.id else c for c in self.collection.cards)
            self.collection = replace(self.collection, cards=cards)

    async def edit_card(self, card: Card) -> Reloaded | None:
        """``card``'s YAML in the editor at its line; on return the file is loaded and the
        card checked again, its problems reported, and the new card used everywhere from
        now on. What the file now holds, or None where there is no new card (said why)."""
        from quizcoll.collection import card_file
        from quizcoll.paths import builtin_cards_dir, user_cards_dir
        from quizcoll.tui.services.editor import reload_card, user_copy

        path = card_file(card)
        if not path.is_file():
            self.report(f"{path}: the card's file is not there to edit", title="Edit")
            return None
        line, display = card.location.line, card.location.path
        if path.resolve().is_relative_to(builtin_cards_dir().resolve()):
            # The built-in files live inside the installed package: edit a copy that is kept.
            try:
                path, line = await asyncio.to_thread(user_copy, card, path, user_cards_dir())
                display = str(path)
            except (OSError, ValueError) as exc:
                self.report(f"cannot copy {card.id} to your card folder: {exc}", title="Edit")
                return None
            self.report(
                f"{card.id} is a built-in card: you edit your copy in {path} (it replaces "
                "the built-in one and keeps its schedule)",
                title="Edit",
            )
        status = await self.edit_file(path, line)
        if status != 0:
            self.report(f"the editor exited with status {status}", title="Edit")
        reloaded = await asyncio.to_thread(reload_card, path, display, card.id, self.registry)
        for problem in reloaded.problems[:MAX_PROBLEM_NOTES]:
            self.report(problem, title="Card problem")
        if reloaded.card is None:
            still_there = await asyncio.to_thread(_defines, path, card.id)
            if still_there:  # the id is in the file: the card only fails validation
                self.report(
                    f"the edited card {card.id} has problems (above); this session keeps the "
                    "old text until the file is fixed.",
                    title="Edit",
                )
            else:
                self.report(
                    f"{card.id} is no longer in {display}; this session keeps the old "
                    f"text. Its history stays under {card.id}: `quizcoll rename {card.id} "
                    "NEW_ID` carries it to a new id.",
                    title="Edit",
                )
            return None
        self.replace_card(reloaded.card)
        return reloaded

    # -- actions (keys on the home screen; all reachable from the palette) ----------------

    def action_review(self) -> None:
        self.open_review()

    def action_practise(self) -> None:
        self.open_review(practice=True)

    def action_browse(self) -> None:
        self._show("browse")

    def action_lab(self) -> None:
        self._show("lab")

    def action_memory(self) -> None:
        self._show("memory")

    def action_stats(self) -> None:
        self._show("stats")

    def action_interview(self) -> None:
        from quizcoll.tui.screens.interview import InterviewScreen

        self.action_home()
        self.push_screen(InterviewScreen())

    def action_settings(self) -> None:
        from quizcoll.tui.screens.settings import SettingsScreen

        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(SettingsScreen())

    def action_custom_study(self) -> None:
        from quizcoll.tui.screens.custom_study import CustomStudyScreen

        def start(choice: tuple[str | None, str | None] | None) -> None:
            if choice is not None:
                deck, tag = choice
                self.open_review(deck, practice=True, tag=tag)

        self.push_screen(CustomStudyScreen(self.deck_names(), self.tag_names()), start)

    def action_home(self) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def action_help(self) -> None:
        from quizcoll.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            # A review under a revealed answer adds the lab keys that apply to it.
            help_keys = getattr(self.screen, "help_keys", None)
            extra = {"Review": help_keys()} if callable(help_keys) else None
            name = getattr(self.screen, "HELP_NAME", "Home")
            self.push_screen(HelpScreen(name, extra))

    def on_key(self, event: events.Key) -> None:
        """Keys typed into a review's answer box while the focus was still moving to it."""
        from quizcoll.tui.screens.review import ReviewScreen

        screen = self.screen
        if isinstance(screen, ReviewScreen) and screen.take_stray_key(event):
            event.stop()
            event.prevent_default()  # not a binding: App._on_key must not see it

    def action_toggle_dark(self) -> None:
        """ctrl+t: light or dark, remembered in the settings file."""
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"
        if self.settings_path is not None:
            self.save_theme(self.theme)

    @work(thread=True, exclusive=True, group="theme")
    def save_theme(self, theme: str) -> None:
        from quizcoll.settings import save_settings

        path = self.settings_path
        assert path is not None
        try:
            save_settings(path, theme=theme)
        except DeckError as exc:
            self.call_from_thread(self.report, f"the theme is not saved: {exc}", title="Settings")

    def action_undo(self) -> None:
        """ctrl+z: undo in a review; elsewhere there is nothing to undo."""
        from quizcoll.tui.screens.review import ReviewScreen

        if isinstance(self.screen, ReviewScreen):
            self.screen.action_undo()
        else:
            self.notify("Undo works in a review session.", timeout=3)


def run_app(
    cards: Sequence[Path] | None,
    db_path: Path,
    *,
    review: bool = False,
    deck: str | None = None,
    practice: bool = False,
    cluster: str | None = None,
) -> int:
    """Run the app on ``cards`` (None: the built-in collection) with the database ``db_path``;
    with ``review``, open straight into a review (or practice) session of ``deck``; with
    ``cluster``, the cards' link draws and the lab use that calibrated profile."""
    given = {}
    if cluster is not None:
        from quizcoll import profiles

        given = profiles.given(profiles.require(cluster))
    app = QuizApp(
        AppEnv(
            db_path=Path(db_path),
            cards=list(cards) if cards else None,
            cluster=cluster,
            given=given,
        )
    )
    if review:
        app.start_review = (deck, practice)
    app.run()
    return app.return_code or 0


def _defines(path: Path, card_id: str) -> bool:
    """Whether the card file at ``path`` still has a card with ``card_id``."""
    from deck.base.safeio import PathError, read_bytes
    from deck.cards.yamlsource import MAX_FILE_BYTES
    from quizcoll.tui.services.editor import card_line

    try:
        # a regular file within the loader's cap: an editor may leave a link to /dev/zero
        data = read_bytes(path, limit=MAX_FILE_BYTES, what="card file")
    except (PathError, OSError):
        return False
    return card_line(data.decode("utf-8", errors="replace"), card_id) > 0
