"""One run of an interview script: which question comes next, the time budget, the scorecard.

The run is a small state machine driven by its caller (the line protocol, the TUI):
:meth:`InterviewRun.ask` gives the next question (its card, the instance seed, and why it
comes), :meth:`InterviewRun.answer` records the judged answer and follows the script to the
follow-up of its verdict. Time comes from a passed clock (seconds, monotonic), so a test
drives it; the interview ends after the answer that exhausts the time budget, at
``max_questions``, or where the script has no follow-up for a verdict.

Instance seeds are derived from the interview seed and the card id
(:func:`instance_seed`), so one ``--seed`` replays the same interview at the same numbers
and ``quizcoll show CARD --seed S`` shows the instance that was asked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from deck.answers.keypoints import Judgement, PointMatch
from deck.cards.model import Card
from deck.interview.judge import Answered
from deck.interview.model import Question, Script

MAX_SEED = 2**63 - 1


def instance_seed(interview_seed: int, card_id: str) -> int:
    """The seed of ``card_id``'s instance in the interview of ``interview_seed`` (0 to 2³¹−1)."""
    digest = hashlib.sha256(f"{interview_seed}:{card_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Prompt:
    """The next question: its card, the instance seed, why it comes, and its number (1-based)."""

    card: Card
    seed: int
    why: str
    number: int


@dataclass(frozen=True)
class Asked:
    """One asked question and how it went."""

    card: str
    deck: str
    kind: str
    seed: int
    verdict: Judgement
    judged: Judgement | None  # what the judge said before the learner's correction
    given: str
    expected: str
    key_points: tuple[PointMatch, ...]
    bonus_points: tuple[PointMatch, ...]
    seconds: float
    why: str

    @property
    def corrected(self) -> bool:
        return self.judged is not None and self.judged is not self.verdict

    def to_dict(self) -> dict[str, Any]:
        return {
            "card": self.card,
            "deck": self.deck,
            "seed": self.seed,
            "kind": self.kind,
            "verdict": self.verdict.value,
            "judged": None if self.judged is None else self.judged.value,
            "corrected": self.corrected,
            "given": self.given,
            "expected": self.expected,
            "key_points": [m.to_dict() for m in self.key_points],
            "bonus_points": [m.to_dict() for m in self.bonus_points],
            "seconds": round(self.seconds, 3),
            "why": self.why,
        }


class InterviewRun:
    """An interview in progress. ``cards`` maps the script's card ids to cards."""

    def __init__(
        self,
        script: Script,
        seed: int,
        cards: Mapping[str, Card],
        clock: Callable[[], float],
    ) -> None:
        if not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be between 0 and {MAX_SEED}, got {seed}")
        missing = [q.card for q in script.questions if q.card not in cards]
        if missing:
            raise ValueError(f"interview {script.id!r}: no card {missing[0]!r}")
        self.script = script
        self.seed = seed
        self.cards = cards
        self.clock = clock
        self.started = clock()
        self.asked: list[Asked] = []
        self.ended: str | None = None  # completed | time | max_questions | stopped
        self._next: Question | None = script.start
        self._why = script.intro
        self._asked_at: float | None = None

    # -- time ------------------------------------------------------------------------------

    @property
    def budget_s(self) -> float:
        return self.script.minutes * 60.0

    def elapsed(self) -> float:
        return max(0.0, self.clock() - self.started)

    def remaining(self) -> float:
        return max(0.0, self.budget_s - self.elapsed())

    # -- flow ------------------------------------------------------------------------------

    def ask(self) -> Prompt | None:
        """The next question (the same one until it is answered), or None when it is over."""
        if self.ended is not None or self._next is None:
            return None
        if self._asked_at is None:
            self._asked_at = self.clock()
        card = self.cards[self._next.card]
        return Prompt(card, instance_seed(self.seed, card.id), self._why, len(self.asked) + 1)

    def answer(self, answered: Answered, verdict: Judgement | None = None) -> Prompt | None:
        """Record the answer to the current question with its ``verdict`` (the learner's
        correction, or the judge's when None) and move on; returns the next prompt."""
        prompt = self.ask()
        if prompt is None:
            raise RuntimeError("the interview is over: there is no question to answer")
        if answered.invalid:
            raise ValueError("an answer that could not be read is not an attempt")
        final = verdict or answered.judgement
        if final is None:
            raise ValueError("a self-judged answer needs the learner's verdict")
        coverage = answered.coverage
        now = self.clock()
        self.asked.append(
            Asked(
                card=prompt.card.id,
                deck=prompt.card.deck,
                kind=prompt.card.type.value,
                seed=prompt.seed,
                verdict=final,
                judged=answered.judgement,
                given=answered.given,
                expected=answered.expected,
                key_points=coverage.key if coverage else (),
                bonus_points=coverage.bonus if coverage else (),
                seconds=max(0.0, now - (self._asked_at or now)),
                why=prompt.why,
            )
        )
        self._asked_at = None
        question = self.script.by_card[prompt.card.id]
        follow = question.after(final)
        if follow is None:
            self._finish("completed")
        elif len(self.asked) >= self.script.max_questions:
            self._finish("max_questions")
        elif self.elapsed() >= self.budget_s:
            self._finish("time")
        else:
            self._next, self._why = self.script.by_card[follow.card], follow.why
        return self.ask()

    def stop(self) -> None:
        """End early (end of input, the learner leaves): the scorecard covers what was asked."""
        self._finish("stopped")

    def _finish(self, reason: str) -> None:
        if self.ended is None:
            self.ended = reason
            self._next = None

    # -- results ---------------------------------------------------------------------------

    @property
    def score(self) -> float:
        """Percent of the marks: right 1, partial ½, wrong 0 per asked question."""
        if not self.asked:
            return 0.0
        return round(100.0 * sum(a.verdict.credit for a in self.asked) / len(self.asked), 1)

    def topics(self) -> dict[str, dict[str, Any]]:
        """Per deck: questions asked and the score over them."""
        out: dict[str, dict[str, Any]] = {}
        for a in self.asked:
            t = out.setdefault(a.deck, {"questions": 0, "credit": 0.0})
            t["questions"] += 1
            t["credit"] += a.verdict.credit
        return {
            deck: {
                "questions": t["questions"],
                "score": round(100.0 * t["credit"] / t["questions"], 1),
            }
            for deck, t in sorted(out.items())
        }

    def weak_cards(self) -> list[str]:
        """The cards answered wrong or only partly, in the order asked."""
        return [a.card for a in self.asked if a.verdict is not Judgement.RIGHT]

    def scorecard(self) -> dict[str, Any]:
        """The scorecard document (``interview --json``)."""
        return {
            "interview": self.script.id,
            "title": self.script.title,
            "topic": self.script.topic,
            "seed": self.seed,
            "ended": self.ended or "stopped",
            "seconds": round(self.elapsed(), 3),
            "minutes": self.script.minutes,
            "questions": [a.to_dict() for a in self.asked],
            "score": self.score,
            "topics": self.topics(),
            "weak_cards": self.weak_cards(),
        }
