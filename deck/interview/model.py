"""The interview script model: small frozen dataclasses, the validated form of a script file.

A script is a graph of questions. Each question names a card; its ``follow_ups`` say which
question comes next after a right, a partial or a wrong answer, and *why* (the transition the
interviewer says aloud). The first question is where the interview starts; a question with no
follow-up for a verdict ends the interview there. The graph has no cycles, so an interview
never asks a card twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from deck.answers.keypoints import Judgement
from deck.cards.model import Location


@dataclass(frozen=True)
class FollowUp:
    """Where a verdict leads: the next question's card and the sentence that says why."""

    card: str
    why: str
    location: Location | None = None


@dataclass(frozen=True)
class Question:
    """One question of a script: a card and the follow-up for each verdict."""

    card: str
    follow_ups: Mapping[Judgement, FollowUp] = field(default_factory=dict)
    location: Location | None = None

    def after(self, judgement: Judgement) -> FollowUp | None:
        """The follow-up for ``judgement``; a partial answer without its own follows the
        right one (the gist was there: go on, deeper)."""
        chosen = self.follow_ups.get(judgement)
        if chosen is None and judgement is Judgement.PARTIAL:
            chosen = self.follow_ups.get(Judgement.RIGHT)
        return chosen


@dataclass(frozen=True)
class Script:
    """A validated interview script."""

    id: str
    title: str
    topic: str
    minutes: float
    max_questions: int
    questions: tuple[Question, ...]
    intro: str = ""
    location: Location = field(default_factory=lambda: Location("<memory>"))

    @property
    def start(self) -> Question:
        return self.questions[0]

    @cached_property
    def by_card(self) -> dict[str, Question]:
        return {q.card: q for q in self.questions}

    def depth(self, judgements: tuple[Judgement, ...] = tuple(Judgement)) -> int:
        """Questions on the longest path from the start (following only ``judgements``),
        capped by ``max_questions``: how deep this interview can go."""
        memo: dict[str, int] = {}

        def longest(card: str) -> int:
            if card not in memo:
                q = self.by_card[card]
                nexts = {f.card for j in judgements if (f := q.after(j)) is not None}
                memo[card] = 1 + max((longest(n) for n in nexts), default=0)
            return memo[card]

        return min(longest(self.start.card), self.max_questions)

    def path(self, judgement: Judgement) -> list[str]:
        """The cards asked when every answer gets ``judgement``."""
        out: list[str] = []
        q: Question | None = self.start
        while q is not None and len(out) < self.max_questions:
            out.append(q.card)
            nxt = q.after(judgement)
            q = self.by_card.get(nxt.card) if nxt is not None else None
        return out
