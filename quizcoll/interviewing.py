"""Mock interviews as the application runs them: the built-in scripts loaded against the
collection, picking a script, keeping the result, and the history of scores per topic.

Shared by ``quizcoll interview`` (the line protocol) and the TUI's interview screen; the
engine itself (scripts, judging, the run) is :mod:`deck.interview`.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from deck.base.errors import DeckError, Problem
from deck.cards.model import Card, Collection
from deck.cards.registry import suggest
from deck.interview.engine import MAX_SEED, InterviewRun
from deck.interview.loader import load_scripts
from deck.interview.model import Script
from deck.review.store import InterviewRecord, Store
from quizcoll.paths import builtin_scripts_dir


@dataclass(frozen=True)
class Interviews:
    """The scripts whose every card is in the collection, the problems of the script files,
    and the scripts left out because the collection lacks one of their cards (a collection
    of one's own cards, ``--cards``: ``quizcoll check`` reports those as problems)."""

    scripts: tuple[Script, ...]
    problems: tuple[Problem, ...]
    unavailable: tuple[str, ...] = ()

    def by_id(self) -> dict[str, Script]:
        return {s.id: s for s in self.scripts}

    def topics(self) -> list[str]:
        return sorted({s.topic for s in self.scripts})


def load_interviews(collection: Collection, paths: Sequence[Path] | None = None) -> Interviews:
    """The scripts under ``paths`` (default: the built-in ones) that ``collection`` can run."""
    root = builtin_scripts_dir()
    display = Path.cwd() if paths else root.parent.parent
    scripts, problems = load_scripts(list(paths or [root]), display_root=display)
    ids = collection.by_id()
    bad = [s.id for s in scripts if any(q.card not in ids for q in s.questions)]
    return Interviews(tuple(s for s in scripts if s.id not in bad), tuple(problems), tuple(bad))


def new_seed() -> int:
    return secrets.randbits(31)


def pick_script(
    interviews: Interviews, script_id: str | None, topic: str | None, seed: int
) -> Script:
    """The script named ``script_id``; else one of ``topic`` (or of all), chosen by ``seed``.
    A name that matches nothing is a :class:`DeckError` with a did-you-mean."""
    scripts = interviews.by_id()
    if script_id is not None:
        script = scripts.get(script_id)
        if script is None and script_id in interviews.unavailable:
            raise DeckError(f"interview {script_id!r} asks cards that are not loaded")
        if script is None:
            raise DeckError(f"no interview {script_id!r}{suggest(script_id, scripts)}")
        if topic is not None and script.topic != topic:
            raise DeckError(f"interview {script_id!r} is about {script.topic!r}, not {topic!r}")
        return script
    pool = [s for s in interviews.scripts if topic is None or s.topic == topic]
    if not pool and not interviews.scripts:
        raise DeckError(
            "no interview can run on these cards"
            + (
                f" ({len(interviews.unavailable)} script(s) name cards not loaded)"
                if interviews.unavailable
                else ""
            )
        )
    if not pool:
        topics = interviews.topics()
        raise DeckError(
            f"no interview about {topic!r}{suggest(topic or '', topics)} "
            f"(topics: {', '.join(topics) or 'none'})"
        )
    return random.Random(seed).choice(sorted(pool, key=lambda s: s.id))


def start_run(script: Script, seed: int, collection: Collection, clock: Any) -> InterviewRun:
    """A run of ``script`` at ``seed`` over ``collection``'s cards with ``clock`` (seconds)."""
    if not 0 <= seed <= MAX_SEED:
        raise DeckError(f"--seed must be between 0 and {MAX_SEED}, got {seed}")
    cards: dict[str, Card] = collection.by_id()
    return InterviewRun(script, seed, cards, clock)


def save_run(store: Store, run: InterviewRun, started_at: datetime) -> InterviewRecord | None:
    """Keep the scorecard of a run that asked anything (nothing is rescheduled)."""
    if not run.asked:
        return None
    return store.record_interview(run.scorecard(), started_at=started_at)


def send_to_review(store: Store, run: InterviewRun, now: datetime) -> tuple[list[str], list[str]]:
    """Make the run's weak cards due now: (the cards that moved, those left as they were —
    new, or already due). Their FSRS state is otherwise untouched."""
    weak = run.weak_cards()
    decks = {a.card: a.deck for a in run.asked}
    moved = store.make_due(weak, now, decks=decks)
    return moved, [c for c in weak if c not in moved]


def history_document(records: Sequence[InterviewRecord]) -> dict[str, Any]:
    """``interview --history --json``: every interview, and the scores over time per topic
    (the script's topic and, from the scorecards, each deck asked)."""
    topics: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        topics.setdefault(r.topic, []).append(
            {"at": r.to_dict()["started_at"], "score": r.score, "interview": r.interview}
        )
    decks: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        for deck, t in sorted(dict(r.document.get("topics", {})).items()):
            if isinstance(t, dict) and isinstance(t.get("score"), int | float):
                decks.setdefault(deck, []).append(
                    {"at": r.to_dict()["started_at"], "score": t["score"]}
                )
    return {
        "interviews": [r.to_dict() for r in records],
        "topics": topics,
        "decks": decks,
    }
