"""The app's environment: where cards and reviews live, and the clock and seed source.

Tests pass a frozen clock, a fixed seed sequence and UTC so every screen is
deterministic; :func:`default_env` gives the real ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from deck.review.scheduler import Config

if TYPE_CHECKING:
    from deck.cards.instances import Given

Clock = Callable[[], datetime]
SeedSource = Callable[[], int]


def system_clock() -> datetime:
    return datetime.now(UTC)


def random_seed() -> int:
    import secrets  # hmac and hashlib: not needed until the first review draws

    return secrets.randbits(31)


@dataclass(frozen=True)
class AppEnv:
    """Everything the app reads from the outside world, passed in."""

    db_path: Path
    cards: Sequence[Path] | None = None
    clock: Clock = system_clock
    seeds: SeedSource = random_seed
    config: Config | None = None  # None: read the user's config.toml
    tz: tzinfo | None = None  # None: the system's local zone
    # Runs an editor on (file, line) and returns its exit status; None: $EDITOR, with the
    # terminal handed over to it.
    editor: Callable[[Path, int], int] | None = None
    # Where settings (and the theme) are saved; None: the user's config.toml. Tests pass
    # a temporary file, or leave ``config`` set so that nothing is read or written.
    config_path: Path | None = None
    # A calibrated cluster (``quizcoll --cluster NAME``): its link values for the cards'
    # link roles in reviews, and its name for the simulation lab's link choice.
    cluster: str | None = None
    given: Mapping[str, Given] = field(default_factory=dict)


def fixed_seeds(*seeds: int) -> SeedSource:
    """A seed source that returns ``seeds`` in turn, then repeats the last one."""
    values = list(seeds) or [0]
    index = 0

    def next_seed() -> int:
        nonlocal index
        value = values[min(index, len(values) - 1)]
        index += 1
        return value

    return next_seed
