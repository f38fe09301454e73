"""Personal FSRS parameters fitted from the review history, and stored in the settings file.

Provides

- :func:`review_logs`: the stored reviews as :class:`fsrs.ReviewLog` values, with the
  counts that say how much of the history a fit can learn from (:class:`History`);
- :func:`fit_parameters`: the fit itself, by the ``fsrs`` package's own optimizer
  (``fsrs.optimizer.Optimizer``), with the log loss of the fitted, the default and the
  current parameters where the optimizer can tell it (:class:`Fit`);
- :func:`write_parameters`: ``parameters = [...]`` written into ``config.toml`` under
  ``[review]`` or ``[deck.NAME]``, leaving every other line of the file as it was.

The optimizer needs torch, pandas and tqdm (the ``fsrs[optimizer]`` extra, installed by
``pip install "quizcoll[optimizer]"``). Nothing heavy is imported at module level: only
:func:`fit_parameters` imports them, and their absence is :class:`OptimizerMissing`.

How much history is enough. The optimizer of py-fsrs (``fsrs/optimizer.py``, 6.x) learns
only from reviews that come at least one day (24 h) after the card's previous review,
among each card's first 64 reviews, and with fewer than 512 of those
(its ``mini_batch_size``) ``compute_optimal_parameters`` returns the default parameters
unchanged. :data:`FSRS_MIN_SPACED_REVIEWS` is that 512; it is the default minimum of
``quizcoll optimize`` and is counted the optimizer's way (:attr:`History.spaced`),
so a history that passes the check is one the optimizer really fits.

Practice (cram) reviews are left out: they did not change the schedule, and a card reviewed
early by choice says nothing about when FSRS would have shown it. A card whose stored
history does not begin with its first review (it was not new before its earliest stored
review) is left out too: the optimizer replays every card from new.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import fsrs

from deck.base.errors import DeckError
from deck.review.scheduler import ConfigError, Phase, fsrs_card_id, load_config, utc
from deck.review.store import Review
from quizcoll.config_file import ConfigWriteError, set_key, write_config

FSRS_MIN_SPACED_REVIEWS = 512  # fsrs.optimizer.mini_batch_size: below it, the defaults come back
FSRS_MAX_SEQ_LEN = 64  # fsrs.optimizer.max_seq_len: only a card's first 64 reviews are used
DEFAULT_PARAMETERS: tuple[float, ...] = tuple(float(w) for w in fsrs.Scheduler().parameters)
_DAY = timedelta(days=1)
INSTALL_HINT = 'pip install "quizcoll[optimizer]"'


class OptimizerMissing(DeckError):
    """The ``fsrs[optimizer]`` extra (torch, pandas, tqdm) is not installed."""


# -- history -> review logs -----------------------------------------------------------------


@dataclass(frozen=True)
class History:
    """The review history as the optimizer sees it, with what was left out and why."""

    logs: tuple[fsrs.ReviewLog, ...]
    reviews: int  # schedule reviews turned into logs
    cards: int  # distinct cards among them
    spaced: int  # reviews the optimizer learns from (see the module docstring)
    practice_left_out: int
    cards_left_out: tuple[str, ...]  # history does not start with the card's first review
    decks: tuple[str, ...]  # every deck that has reviews, before any deck filter

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviews": self.reviews,
            "cards": self.cards,
            "spaced_reviews": self.spaced,
            "practice_left_out": self.practice_left_out,
            "cards_left_out": list(self.cards_left_out),
        }


def card_keys(card_ids: Iterable[str]) -> dict[str, int]:
    """A distinct integer per YAML card id: :func:`deck.review.scheduler.fsrs_card_id` (crc32).

    Two ids with the same crc32 would merge into one card for the optimizer; the later id
    in sorted order is moved past 2**32 instead, so the mapping stays stable and distinct.
    """
    keys: dict[str, int] = {}
    taken: set[int] = set()
    for card_id in sorted(set(card_ids)):
        key = fsrs_card_id(card_id)
        while key in taken:
            key += 1 << 32
        keys[card_id] = key
        taken.add(key)
    return keys


def count_spaced(times_by_card: Iterable[Sequence[Any]]) -> int:
    """Reviews at least a day after the card's previous one, within its first 64 reviews.

    This mirrors how ``fsrs.optimizer`` counts the reviews it trains on
    (``(review_datetime - card.last_review).days > 0``).
    """
    total = 0
    for times in times_by_card:
        ordered = sorted(times)[:FSRS_MAX_SEQ_LEN]
        total += sum(1 for a, b in pairwise(ordered) if b - a >= _DAY)
    return total


def review_logs(reviews: Iterable[Review], deck: str | None = None) -> History:
    """The schedule reviews (of ``deck``, or all) as fsrs review logs, oldest first per card."""
    by_card: dict[str, list[Review]] = {}
    practice = 0
    decks: set[str] = set()
    for review in reviews:
        decks.add(review.deck)
        if deck is not None and review.deck != deck:
            continue
        if review.practice:
            practice += 1
            continue
        by_card.setdefault(review.card_id, []).append(review)
    left_out: list[str] = []
    kept: dict[str, list[Review]] = {}
    for card_id, card_reviews in sorted(by_card.items()):
        card_reviews.sort(key=lambda r: (r.reviewed_at, r.id or 0))
        if card_reviews[0].before.state.phase is not Phase.NEW:
            left_out.append(card_id)
        else:
            kept[card_id] = card_reviews
    keys = card_keys(kept)
    logs = tuple(
        fsrs.ReviewLog(
            card_id=keys[card_id],
            rating=fsrs.Rating(int(r.rating)),
            review_datetime=utc(r.reviewed_at),
            review_duration=r.duration_ms,
        )
        for card_id, card_reviews in kept.items()
        for r in card_reviews
    )
    spaced = count_spaced([r.reviewed_at for r in rs] for rs in kept.values())
    return History(
        logs=logs,
        reviews=len(logs),
        cards=len(kept),
        spaced=spaced,
        practice_left_out=practice,
        cards_left_out=tuple(left_out),
        decks=tuple(sorted(decks)),
    )


# -- the fit --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """Fitted parameters beside the defaults. ``parameters`` is None if the fit failed."""

    parameters: tuple[float, ...] | None
    default_parameters: tuple[float, ...] = DEFAULT_PARAMETERS
    log_loss: float | None = None  # mean log loss over the spaced reviews
    default_log_loss: float | None = None
    current_log_loss: float | None = None  # of the parameters in the settings file, if any

    @property
    def changed(self) -> bool:
        """False when the optimizer returned the defaults (too little to learn from)."""
        return self.parameters is not None and self.parameters != self.default_parameters

    def to_dict(self) -> dict[str, Any]:
        return {
            "parameters": None if self.parameters is None else list(self.parameters),
            "default_parameters": list(self.default_parameters),
            "log_loss": self.log_loss,
            "default_log_loss": self.default_log_loss,
            "current_log_loss": self.current_log_loss,
        }


def load_optimizer() -> Any:
    """``fsrs.optimizer.Optimizer``, or :class:`OptimizerMissing` naming the extra to install.

    fsrs itself swallows the ImportError and defines a stand-in that fails only when
    called, so the heavy modules are imported here first to find out.
    """
    try:
        import pandas  # noqa: F401
        import torch  # noqa: F401
        import tqdm  # noqa: F401
        from fsrs.optimizer import Optimizer
    except ImportError as exc:
        missing = getattr(exc, "name", None) or "a module"
        raise OptimizerMissing(
            f"fitting FSRS parameters needs the optimizer extra ({missing} is not installed): "
            f"{INSTALL_HINT}"
        ) from None
    return Optimizer


def fit_parameters(
    logs: Sequence[fsrs.ReviewLog],
    *,
    current: Sequence[float] | None = None,
    progress: bool = False,
) -> Fit:
    """Fit FSRS parameters to ``logs`` with fsrs's optimizer (deterministic: it seeds itself)."""
    optimizer_class = load_optimizer()
    try:
        optimizer = optimizer_class(list(logs))
    except ImportError as exc:  # fsrs's stand-in: an import failed inside fsrs.optimizer
        raise OptimizerMissing(f"{exc}".splitlines()[0] + f": {INSTALL_HINT}") from None
    fitted = optimizer.compute_optimal_parameters(verbose=progress)
    parameters = None if fitted is None else tuple(float(w) for w in fitted)
    return Fit(
        parameters=parameters,
        log_loss=None if parameters is None else _log_loss(optimizer, parameters),
        default_log_loss=_log_loss(optimizer, DEFAULT_PARAMETERS),
        current_log_loss=None if current is None else _log_loss(optimizer, tuple(current)),
    )


def _log_loss(optimizer: Any, parameters: Sequence[float]) -> float | None:
    """The optimizer's own figure of merit: mean binary cross-entropy over spaced reviews.

    It is a private method of fsrs's optimizer (the one it picks the best epoch with); if a
    later fsrs drops or changes it, the figure is simply not reported.
    """
    compute = getattr(optimizer, "_compute_batch_loss", None)
    if compute is None:
        return None
    try:
        return float(compute(parameters=list(parameters)))
    except (TypeError, ValueError, RuntimeError, ZeroDivisionError):
        return None


# -- writing the settings file --------------------------------------------------------------


def parameters_line(parameters: Sequence[float], note: str | None = None) -> str:
    """``parameters = [...]`` on one line; ``repr`` keeps every float exact."""
    line = "parameters = [" + ", ".join(repr(float(w)) for w in parameters) + "]"
    if note:
        line += "  # " + " ".join(note.split())
    return line


def updated_config_text(
    text: str,
    parameters: Sequence[float],
    deck: str | None = None,
    *,
    where: str = "config.toml",
    note: str | None = None,
) -> str:
    """``text`` with ``parameters`` set under ``[review]`` (or ``[deck.NAME]``), all else kept
    (see :func:`quizcoll.config_file.set_key`)."""
    target = ("review",) if deck is None else ("deck", deck)
    values = [float(w) for w in parameters]
    return set_key(
        text, target, "parameters", values, parameters_line(parameters, note), where=where
    )


def write_parameters(
    path: Path,
    parameters: Sequence[float],
    deck: str | None = None,
    *,
    note: str | None = None,
) -> None:
    """Store ``parameters`` in the settings file at ``path``, atomically.

    The new text is written to a temporary file beside ``path``, read back with
    :func:`deck.review.scheduler.load_config` (so a file quizcoll would reject never replaces a
    good one), and only then renamed over ``path`` (:func:`deck.base.safeio.write_text`: the
    file's permissions are kept; a link or special file is refused).
    """

    def check(tmp: Path) -> None:
        try:
            stored = load_config(tmp).for_deck(deck).parameters
        except ConfigError as exc:
            raise ConfigWriteError(f"{path}: the updated file would not load ({exc})") from None
        if stored != tuple(float(w) for w in parameters):
            raise ConfigWriteError(f"{path}: the updated file does not hold the new parameters")

    write_config(
        path,
        lambda text: updated_config_text(text, parameters, deck, where=str(path), note=note),
        check,
    )
