"""Scheduling: a thin wrapper over the ``fsrs`` package (FSRS-6) and its settings.

Every scheduling decision is made by :class:`fsrs.Scheduler`; this module only

- reads the settings (desired retention, learning and relearning steps, maximum
  interval, daily limits, leech threshold, day rollover) from a TOML file in the
  user config directory, with per-deck overrides (:func:`load_config`);
- holds a card's scheduling state as a frozen :class:`CardState` keyed by the YAML
  card id (fsrs keys cards on integers) and (de)serialises it;
- previews the outcome of each of the four ratings, so a user sees the interval a
  rating gives before pressing it (:meth:`Scheduler.preview`).

Time is always passed in as an aware datetime (converted to UTC, which fsrs requires);
nothing here reads the clock.

The config file (``config.toml`` in ``platformdirs.user_config_dir("quizcoll")``)::

    [review]                      # defaults for every deck
    desired_retention = 0.9
    learning_steps = ["1m", "10m"]
    relearning_steps = ["10m"]
    maximum_interval = 36500      # days
    new_per_day = 20
    reviews_per_day = 200
    leech_threshold = 8           # lapses; 0 turns leech detection off (alerts again every half)
    easy_days = ["sun"]           # weekdays that get as few reviews as possible (default none)
    rollover_hour = 4             # local hour at which a new review day starts
    fuzz = true

    [deck.collectives]            # overrides for one deck
    desired_retention = 0.85

    [app]                         # the application's own settings, not the scheduler's
    theme = "textual-dark"
"""

from __future__ import annotations

import enum
import os
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deck.base.errors import DeckError
from deck.cards.rating import Rating
from deck.units import check_number

if TYPE_CHECKING:  # fsrs is imported where a card is scheduled (counting new cards needs none)
    import fsrs

MAX_CONFIG_BYTES = 1024 * 1024  # config.toml is a few hundred bytes; larger is refused unread


class ConfigError(DeckError):
    """The review settings file is unreadable or holds a bad value."""


class Phase(enum.IntEnum):
    """Where a card is in its life. ``NEW`` has never been reviewed; the rest are fsrs states."""

    NEW = 0
    LEARNING = 1
    REVIEW = 2
    RELEARNING = 3


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime; a naive datetime is refused (it has no meaning)."""
    if moment.tzinfo is None:
        raise ValueError("a naive datetime has no time zone; pass an aware datetime")
    return moment.astimezone(UTC)


def format_time(moment: datetime | None) -> str | None:
    """One fixed ISO 8601 form (UTC, microseconds), so stored times sort as text."""
    return None if moment is None else utc(moment).isoformat(timespec="microseconds")


# Stored and imported times must fall in this window: a review dated year 1 or 9999 is junk
# (and would overflow date arithmetic), while due dates 100 years ahead still fit.
EARLIEST_TIME = datetime(2000, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(2200, 1, 1, tzinfo=UTC)


def parse_time(text: str | None) -> datetime | None:
    """An ISO 8601 time with a zone, as UTC, within [2000, 2200); ``ValueError`` otherwise."""
    if text is None:
        return None
    if not isinstance(text, str) or len(text) > 64:
        raise ValueError(f"expected an ISO 8601 time, got {str(text)[:40]!r}")
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            raise ValueError(f"time {text!r} has no time zone")
        moment = utc(moment)
    except OverflowError:
        raise ValueError(f"time {text!r} is out of range") from None
    if not EARLIEST_TIME <= moment < LATEST_TIME:
        raise ValueError(f"time {text!r} is outside {EARLIEST_TIME.year}–{LATEST_TIME.year - 1}")
    return moment


@dataclass(frozen=True)
class CardState:
    """A card's scheduling state: the fsrs card fields plus review and lapse counts."""

    phase: Phase = Phase.NEW
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime | None = None  # None while new: a new card is due whenever it is introduced
    last_review: datetime | None = None
    reps: int = 0
    lapses: int = 0  # times a card in review was forgotten (rated Again)

    @property
    def is_new(self) -> bool:
        return self.phase is Phase.NEW

    @property
    def interval(self) -> timedelta | None:
        """The scheduled interval: from the last review to the due time."""
        if self.due is None or self.last_review is None:
            return None
        return self.due - self.last_review

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase.name.lower(),
            "step": self.step,
            "stability": self.stability,
            "difficulty": self.difficulty,
            "due": format_time(self.due),
            "last_review": format_time(self.last_review),
            "reps": self.reps,
            "lapses": self.lapses,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CardState:
        """The inverse of :meth:`to_dict`, checking every field (a database row or an
        imported file may hold anything); raises ``ValueError``/``KeyError``/``TypeError``."""
        if not isinstance(data, Mapping):
            raise TypeError(f"expected a state mapping, got {type(data).__name__}")
        phase = data["phase"]
        if not isinstance(phase, str) or phase.upper() not in Phase.__members__:
            raise ValueError(
                f"phase {str(phase)[:40]!r} is not one of new, learning, review, relearning"
            )
        state = cls(
            phase=Phase[phase.upper()],
            step=_optional(data.get("step"), "step", 0, MAX_STEP, integer=True),
            stability=_optional(data.get("stability"), "stability", 0, MAX_STABILITY),
            difficulty=_optional(data.get("difficulty"), "difficulty", 1, 10),
            due=parse_time(data.get("due")),
            last_review=parse_time(data.get("last_review")),
            reps=int(
                check_number(data.get("reps", 0), "reps", low=0, high=MAX_COUNT, integer=True)
            ),
            lapses=int(
                check_number(data.get("lapses", 0), "lapses", low=0, high=MAX_COUNT, integer=True)
            ),
        )
        if state.stability == 0:
            raise ValueError("stability must be above 0")
        if state.phase is not Phase.NEW and None in (state.stability, state.difficulty, state.due):
            raise ValueError(f"a {phase} card needs stability, difficulty and due")
        return state


MAX_STEP = 1000  # learning-step index
MAX_STABILITY = 1e5  # days; fsrs caps intervals at 36,500 days
MAX_COUNT = 10**7  # reviews or lapses of one card


def _optional(value: Any, what: str, low: float, high: float, *, integer: bool = False) -> Any:
    """None, or a finite number within [low, high] (whole when ``integer``)."""
    if value is None:
        return None
    number = check_number(value, what, low=low, high=high, integer=integer)
    return number if integer else float(number)


def fsrs_card_id(card_id: str) -> int:
    """A stable integer for a YAML card id (fsrs and its optimizer key cards on ints)."""
    return zlib.crc32(card_id.encode("utf-8"))


def to_fsrs(state: CardState, now: datetime, card_id: str = "") -> fsrs.Card:
    """The fsrs card for ``state``; a new card is a fresh fsrs card in its first learning step."""
    import fsrs

    key = fsrs_card_id(card_id)
    if state.is_new:
        return fsrs.Card(card_id=key, state=fsrs.State.Learning, step=0, due=utc(now))
    return fsrs.Card(
        card_id=key,
        state=fsrs.State(int(state.phase)),
        step=state.step,
        stability=state.stability,
        difficulty=state.difficulty,
        due=utc(state.due) if state.due else utc(now),
        last_review=utc(state.last_review) if state.last_review else None,
    )


def from_fsrs(card: fsrs.Card, before: CardState, rating: Rating) -> CardState:
    """The state after ``card`` came back from fsrs, with counts carried over from ``before``."""
    lapsed = before.phase is Phase.REVIEW and rating is Rating.AGAIN
    return CardState(
        phase=Phase(int(card.state)),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=utc(card.due),
        last_review=utc(card.last_review) if card.last_review else None,
        reps=before.reps + 1,
        lapses=before.lapses + (1 if lapsed else 0),
    )


# -- settings -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Review settings of one deck. ``parameters=None`` means the fsrs default weights."""

    desired_retention: float = 0.9
    learning_steps: tuple[timedelta, ...] = (timedelta(minutes=1), timedelta(minutes=10))
    relearning_steps: tuple[timedelta, ...] = (timedelta(minutes=10),)
    maximum_interval: int = 36500
    fuzz: bool = True
    new_per_day: int = 20
    reviews_per_day: int = 200
    leech_threshold: int = 8
    rollover_hour: int = 4
    learn_ahead: timedelta = timedelta(minutes=20)
    parameters: tuple[float, ...] | None = None
    # Weekdays ("mon" … "sun") given as few reviews as possible by the load balancer,
    # which spreads due days within fsrs's fuzz range whenever fuzz is on (deck.review.anki).
    easy_days: tuple[str, ...] = ()


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)\s*$")
_DURATION_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_DURATION_S = 36500 * 86400  # a step or the learn-ahead window: at most 100 years
MAX_STEPS = 100


def parse_duration(value: Any) -> timedelta:
    """``"10m"``, ``"1h"``, ``"30s"``, ``"2d"``, or a number of seconds."""
    if isinstance(value, bool):
        raise ValueError(f"expected a duration such as '10m', got {value!r}")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value)[:100])
        if not match:
            raise ValueError(f"expected a duration such as '10m' or '1h', got {value!r}")
        seconds = float(match[1]) * _DURATION_SECONDS[match[2]]
    if not 0 < seconds <= MAX_DURATION_S:  # also refuses NaN and infinity
        raise ValueError(f"a step must be above 0 and at most 36500d, got {value!r}")
    return timedelta(seconds=seconds)


def _check_int(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _apply(base: Settings, table: Mapping[str, Any], where: str) -> Settings:
    """``base`` with the keys of one TOML table applied; every bad key or value is an error."""
    known = {f.name for f in fields(Settings)}
    changes: dict[str, Any] = {}
    for key, value in table.items():
        try:
            if key not in known:
                raise ValueError(f"unknown setting (known: {', '.join(sorted(known))})")
            if key == "desired_retention":
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"expected a number, got {value!r}")
                if not 0.7 <= float(value) <= 0.99:
                    raise ValueError(f"must be between 0.7 and 0.99, got {value}")
                changes[key] = float(value)
            elif key in ("learning_steps", "relearning_steps"):
                if not isinstance(value, list) or len(value) > MAX_STEPS:
                    raise ValueError(
                        f"expected a list of at most {MAX_STEPS} steps such as ['1m', '10m']"
                    )
                changes[key] = tuple(parse_duration(v) for v in value)
            elif key == "learn_ahead":
                changes[key] = parse_duration(value)
            elif key == "maximum_interval":
                changes[key] = _check_int(key, value, 1, 36500)
            elif key in ("new_per_day", "reviews_per_day"):
                changes[key] = _check_int(key, value, 0, 100_000)
            elif key == "leech_threshold":
                changes[key] = _check_int(key, value, 0, 1000)
            elif key == "rollover_hour":
                changes[key] = _check_int(key, value, 0, 23)
            elif key == "fuzz":
                if not isinstance(value, bool):
                    raise ValueError(f"expected true or false, got {value!r}")
                changes[key] = value
            elif key == "easy_days":
                days = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
                if not isinstance(value, list) or not all(v in days for v in value):
                    raise ValueError(f"expected a list of weekdays from {', '.join(days)}")
                if len(set(value)) == len(days):
                    raise ValueError("at least one weekday must take reviews")
                changes[key] = tuple(dict.fromkeys(value))
            elif key == "parameters":
                if not isinstance(value, list):
                    raise ValueError("expected a list of numbers")
                params = tuple(float(v) for v in value)
                import fsrs

                fsrs.Scheduler(parameters=params)  # fsrs validates count and bounds
                changes[key] = params
        except (ValueError, TypeError, OverflowError) as exc:
            raise ConfigError(f"{where}: {key}: {exc}".replace("\n", "; ")) from None
    return replace(base, **changes)


@dataclass(frozen=True)
class Config:
    """The settings for every deck: defaults plus per-deck overrides."""

    default: Settings = field(default_factory=Settings)
    decks: tuple[tuple[str, Settings], ...] = ()

    def for_deck(self, deck: str | None) -> Settings:
        for name, settings in self.decks:
            if name == deck:
                return settings
        return self.default


def config_path() -> Path:
    """Where the settings file lives: ``config.toml`` in the user config directory."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("quizcoll", appauthor=False)) / "config.toml"


def parse_config(text: str, where: str = "config.toml") -> Config:
    """Settings from TOML text (see the module docstring for the layout)."""
    import tomllib  # only where there is a settings file to read (not at every start)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply to be a settings file") from None
    # [app] holds the application's own settings (its theme): not the scheduler's to check.
    unknown = set(data) - {"review", "deck", "app"}
    if unknown:
        raise ConfigError(f"{where}: unknown table(s): {', '.join(sorted(unknown))}")
    review = data.get("review", {})
    decks = data.get("deck", {})
    if not isinstance(review, dict) or not isinstance(decks, dict):
        raise ConfigError(f"{where}: [review] and [deck.NAME] must be tables")
    default = _apply(Settings(), review, f"{where}: [review]")
    per_deck = []
    for name, table in sorted(decks.items()):
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: deck.{name} must be a table")
        per_deck.append((name, _apply(default, table, f"{where}: [deck.{name}]")))
    return Config(default=default, decks=tuple(per_deck))


def load_config(path: Path | None = None) -> Config:
    """The settings file at ``path`` (default :func:`config_path`); defaults if it is absent."""
    from deck.base.safeio import PathError, read_text

    path = config_path() if path is None else path
    if not os.path.lexists(path):
        return Config()
    try:
        text = read_text(path, limit=MAX_CONFIG_BYTES, what="settings file")
    except PathError as exc:
        raise ConfigError(str(exc)) from None
    return parse_config(text, str(path))


# -- scheduling ---------------------------------------------------------------------------


class Scheduler:
    """FSRS scheduling of :class:`CardState` values for one deck's settings."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self._fsrs: fsrs.Scheduler | None = None  # built on first use: see :attr:`fsrs`

    @property
    def fsrs(self) -> fsrs.Scheduler:
        """The underlying fsrs scheduler (for callers that need its full API); built the
        first time a card is scheduled, so counting never-reviewed cards needs no fsrs."""
        if self._fsrs is None:
            import fsrs

            kwargs: dict[str, Any] = {}
            if self.settings.parameters is not None:
                kwargs["parameters"] = self.settings.parameters
            self._fsrs = fsrs.Scheduler(
                desired_retention=self.settings.desired_retention,
                learning_steps=self.settings.learning_steps,
                relearning_steps=self.settings.relearning_steps,
                maximum_interval=self.settings.maximum_interval,
                enable_fuzzing=self.settings.fuzz,
                **kwargs,
            )
        return self._fsrs

    def review(
        self, state: CardState, rating: Rating, now: datetime, card_id: str = ""
    ) -> CardState:
        """The state after rating the card ``rating`` at ``now``."""
        import fsrs

        rating = Rating(int(rating))
        card, _log = self.fsrs.review_card(
            to_fsrs(state, now, card_id), fsrs.Rating(int(rating)), review_datetime=utc(now)
        )
        return from_fsrs(card, state, rating)

    def preview(
        self, state: CardState, now: datetime, card_id: str = ""
    ) -> dict[Rating, CardState]:
        """The outcome of each rating at ``now``.

        With fuzzing on, fsrs draws the fuzz at review time; committing the previewed
        outcome (rather than reviewing again) makes the shown interval the real one.
        """
        return {rating: self.review(state, rating, now, card_id) for rating in Rating}

    def retrievability(self, state: CardState, now: datetime) -> float:
        """Probability of recall at ``now`` (0 for a new card), as fsrs computes it."""
        if state.is_new:
            return 0.0
        return float(self.fsrs.get_card_retrievability(to_fsrs(state, now), utc(now)))


def format_interval(interval: timedelta) -> str:
    """A short human form of an interval, as Anki shows it: ``1m``, ``10m``, ``3h``, ``4d``, ``2.1mo``."""
    seconds = interval.total_seconds()
    if seconds < 60:
        return f"{max(seconds, 0):.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    if seconds < 86400:
        return f"{seconds / 3600:.0f}h"
    days = seconds / 86400
    if days < 30:
        return f"{days:.0f}d"
    if days < 365:
        return f"{days / 30:.1f}mo"
    return f"{days / 365:.1f}y"
