"""Named hardware profiles on disk: ``profiles/NAME.json`` in the user data directory.

``quizcoll calibrate`` writes them (atomically, never over an existing one without
``--force``). Three surfaces read them as "your cluster":

- ``quizcoll sim --gpu NAME``: the α-β link of the simulation;
- the simulation lab: a choice of its link control;
- the cards' link draws: ``quizcoll --cluster NAME`` (and ``review``/``show``/``grade``)
  gives the cards whose parameters carry ``role: link_latency`` / ``link_bandwidth`` the
  cluster's measured values (:func:`given`) instead of drawn ones.

The link a profile stands for (:func:`link`) is the one nccl-tests' numbers describe: the
bus bandwidth (the ring-equivalent link rate) and the latency floor spread over the steps
of the ring that was measured. ``QUIZCOLL_PROFILES`` names another folder (for tests and
shared setups).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deck.base.errors import DeckError

if TYPE_CHECKING:
    from deck.cards.instances import Given
    from quizcoll.collectives.calibrate import Profile

MAX_PROFILE_BYTES = 4 * 2**20
MAX_PROFILES = 256  # listed for the lab's choice; a folder holding more shows the first ones
LINK_LATENCY, LINK_BANDWIDTH = "link_latency", "link_bandwidth"  # the card roles filled


class ProfileError(DeckError):
    """A profile that cannot be read, written or found (one line, naming the file)."""


def profiles_dir() -> Path:
    from deck.base.safeio import expand

    env = os.environ.get("QUIZCOLL_PROFILES")
    if env:
        return expand(env, "QUIZCOLL_PROFILES")
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizcoll", appauthor=False)) / "profiles"


def profile_path(name: str) -> Path:
    return profiles_dir() / f"{name}.json"


def save(profile: Profile, *, force: bool) -> Path:
    """Write ``profile`` as ``NAME.json``; refuse to replace one unless ``force``."""
    from deck.base.safeio import write_text

    path = profile_path(profile.name)

    def still_new(_tmp: Path) -> None:
        if not force and os.path.lexists(path):
            raise ProfileError(f"{path}: a profile named {profile.name!r} exists; pass --force")

    if not force and os.path.lexists(path):
        raise ProfileError(
            f"{path}: a profile named {profile.name!r} exists; pass --force to replace it "
            "or --name to keep both"
        )
    text = json.dumps(profile.to_json(), indent=2) + "\n"
    return write_text(path, text, what="profile file", check=still_new)


def load(name: str) -> Profile | None:
    """The profile called ``name``, or None when there is none; a clear error for a
    file that is not a profile."""
    from deck.base.safeio import read_text
    from quizcoll.collectives.calibrate import NAME, CalibrationError, Profile

    if not NAME.fullmatch(name):
        return None
    path = profile_path(name)
    if not path.is_file():
        return None
    text = read_text(path, limit=MAX_PROFILE_BYTES, what="profile file")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    try:
        return Profile.from_json(doc, where=str(path))
    except CalibrationError as exc:
        raise ProfileError(str(exc)) from None


def require(name: str, flag: str = "--cluster") -> Profile:
    """The profile ``name``, or a one-line error saying where profiles live."""
    profile = load(name.strip())
    if profile is None:
        raise ProfileError(
            f"{flag} {name!r}: no profile of that name in {profiles_dir()} "
            "(make one with: quizcoll calibrate LOG --name NAME)"
        )
    return profile


def names() -> tuple[str, ...]:
    """The ``NAME.json`` files of the folder, sorted (at most :data:`MAX_PROFILES`; none
    without a folder). Only the names are read (no numpy: ``paths`` stays fast); a file
    that is not a valid profile says so when it is used."""
    folder = profiles_dir()
    try:
        entries = sorted(p.stem for p in folder.glob("*.json") if p.is_file())
    except OSError:
        return ()
    return tuple(entries[:MAX_PROFILES])


def ring_steps(collective: str, ranks: int) -> int:
    """Steps of the ring NCCL runs for ``collective``: 2(n−1) for all-reduce, n−1 else."""
    return 2 * (ranks - 1) if collective == "all_reduce" else ranks - 1


@dataclass(frozen=True)
class Link:
    """The α-β link a profile stands for: latency per ring step (s), bus bandwidth (B/s)."""

    name: str
    latency_s: float
    bandwidth: float

    @property
    def label(self) -> str:
        return f"your cluster {self.name}"


def link(profile: Profile) -> Link:
    """The α-β link of ``profile``: its bus bandwidth (the ring-equivalent link rate
    nccl-tests reports) and its latency floor spread over the measured ring's steps."""
    steps = ring_steps(profile.collective, profile.ranks)
    return Link(profile.name, profile.line.alpha_s / steps, profile.line.busbw)


def given(profile: Profile) -> dict[str, Given]:
    """The card roles a profile fills: ``link_latency`` and ``link_bandwidth``."""
    from deck.cards.instances import Given
    from deck.units import Dim

    ln = link(profile)
    return {
        LINK_LATENCY: Given(ln.latency_s, Dim.SECONDS, ln.label),
        LINK_BANDWIDTH: Given(ln.bandwidth, Dim.RATE, ln.label),
    }


def describe(profile: Profile) -> dict[str, Any]:
    """What a surface says about the profile in use (for ``--json`` and status lines)."""
    ln = link(profile)
    return {"name": profile.name, "latency_s": ln.latency_s, "bandwidth": ln.bandwidth}
