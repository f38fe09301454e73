"""Judging a typed explanation by the key points it makes.

A card's ``key_points`` are what a good answer must say, its ``bonus_points`` what earns
extra credit; each point has terms, any one of which, found in the answer, shows it was
said (matching rules: :mod:`deck.cards.terms`). :func:`match_points` says which points an
answer covers and :func:`coverage_verdict` turns the coverage into a verdict:

- every key point covered: **right**;
- at least half of them: **partial** (the gist, with gaps);
- fewer than half, or an empty answer ("I don't know"): **wrong**.

Bonus points never change the verdict; they are reported (and a right answer that also
makes a bonus point suggests Easy). The learner sees which points were found and may
overrule the verdict (:func:`overruled`): the matcher looks for words, not understanding.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from deck.base.typed import answer_text
from deck.cards.model import Card, KeyPoint, Rating
from deck.cards.terms import index_text


class Judgement(enum.Enum):
    """How an answer did; the order is best first."""

    RIGHT = "right"
    PARTIAL = "partial"
    WRONG = "wrong"

    @property
    def credit(self) -> float:
        """The share of a question's marks: 1, ½ or 0."""
        return {"right": 1.0, "partial": 0.5, "wrong": 0.0}[self.value]

    @property
    def rating(self) -> Rating:
        """The review rating the judgement suggests (right Good, partial Hard, wrong Again)."""
        return {"right": Rating.GOOD, "partial": Rating.HARD, "wrong": Rating.AGAIN}[self.value]

    @classmethod
    def parse(cls, text: str) -> Judgement | None:
        """``r``/``right``, ``p``/``partial``, ``w``/``wrong`` (any case); None otherwise."""
        text = text.strip().lower()
        for j in cls:
            if text in (j.value, j.value[0]):
                return j
        return None


@dataclass(frozen=True)
class PointMatch:
    """One point and the terms of it the answer used (none: not covered)."""

    point: KeyPoint
    found: tuple[str, ...]

    @property
    def covered(self) -> bool:
        return bool(self.found)

    def to_dict(self) -> dict[str, object]:
        return {"point": self.point.point, "covered": self.covered, "found": list(self.found)}


@dataclass(frozen=True)
class Coverage:
    """Which key and bonus points an answer covers, and the verdict that follows."""

    key: tuple[PointMatch, ...]
    bonus: tuple[PointMatch, ...]

    @property
    def covered(self) -> int:
        return sum(m.covered for m in self.key)

    @property
    def bonus_covered(self) -> int:
        return sum(m.covered for m in self.bonus)

    @property
    def judgement(self) -> Judgement:
        return coverage_verdict(self.covered, len(self.key))

    @property
    def suggested(self) -> Rating:
        j = self.judgement
        if j is Judgement.RIGHT and self.bonus_covered:
            return Rating.EASY
        return j.rating

    def summary(self) -> str:
        """``3/4 key points, 1/2 bonus``."""
        text = f"{self.covered}/{len(self.key)} key point(s)"
        if self.bonus:
            text += f", {self.bonus_covered}/{len(self.bonus)} bonus"
        return text


def coverage_verdict(covered: int, total: int) -> Judgement:
    """All points right, at least half partial, fewer wrong (no points at all: wrong)."""
    if total <= 0 or covered <= 0:
        return Judgement.WRONG
    if covered >= total:
        return Judgement.RIGHT
    return Judgement.PARTIAL if 2 * covered >= total else Judgement.WRONG


def match_points(
    answer: str, key_points: Sequence[KeyPoint], bonus_points: Sequence[KeyPoint] = ()
) -> Coverage:
    """Which points ``answer`` covers. The answer is length-capped first
    (:func:`deck.base.typed.answer_text` raises ``AnswerTooLong``); the cost is linear in
    its length plus one lookup per term."""
    terms = [t for p in (*key_points, *bonus_points) for t in p.terms]
    indexed = index_text(answer_text(answer), terms)
    return Coverage(
        tuple(PointMatch(p, tuple(indexed.found(p.terms))) for p in key_points),
        tuple(PointMatch(p, tuple(indexed.found(p.terms))) for p in bonus_points),
    )


def match_card(card: Card, answer: str) -> Coverage:
    """:func:`match_points` with the card's own points."""
    return match_points(answer, card.key_points, card.bonus_points)


def overruled(judged: Judgement, correction: str) -> Judgement:
    """The learner's correction of a judgement (``r``/``p``/``w``), or the judgement itself
    when the correction is empty or not one of those."""
    return Judgement.parse(correction) or judged
