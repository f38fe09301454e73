"""Judging one interview answer: exactly as a review grades it, key points for explanations.

- An empty answer means "I don't know": wrong, and the answer is shown.
- Numeric, formula and choice cards are graded by :func:`deck.answers.checking.check_answer`,
  the same function as ``quizcoll grade`` and the review: correct is right, anything else
  wrong; text that cannot be read is not an attempt (:attr:`Answered.invalid`: ask again).
- Explanation (basic) cards with ``key_points`` are judged by their coverage
  (:mod:`deck.answers.keypoints`); without key points the learner judges the answer against
  the model answer (:attr:`Answered.judgement` is None).
"""

from __future__ import annotations

from dataclasses import dataclass

from deck.answers.checking import check_answer, give_up, reveal
from deck.answers.keypoints import Coverage, Judgement, match_card
from deck.base.typed import answer_text
from deck.cards.instances import Instance
from deck.cards.model import Card, CardType
from deck.cards.registry import Registry


@dataclass(frozen=True)
class Answered:
    """The judge's view of one answer."""

    given: str
    judgement: Judgement | None  # None: self-judged (an explanation card without key points)
    expected: str  # the exact answer, or the model answer of an explanation
    solution: str  # the worked answer (Markdown)
    message: str
    coverage: Coverage | None = None
    mistake: str | None = None
    invalid: bool = False

    @property
    def exact(self) -> bool:
        """Whether the judgement is the engine's exact grading (not open to correction)."""
        return self.coverage is None and self.judgement is not None and not self.invalid


def judge(card: Card, instance: Instance, answer: str, registry: Registry | None) -> Answered:
    """Judge ``answer`` (length-capped first: ``AnswerTooLong``) to ``instance`` of ``card``."""
    given = answer_text(answer).strip()
    if not given:
        v = give_up(card, instance, registry)
        said = f"the answer is {v.exact}." if v.exact else "the model answer follows."
        return Answered("", Judgement.WRONG, v.exact, v.solution, f"I don't know: {said}")
    if card.type is CardType.BASIC:
        v = reveal(card, instance, registry)
        if not card.key_points:
            return Answered(given, None, v.exact, v.solution, "Compare with the model answer.")
        coverage = match_card(card, given)
        return Answered(
            given,
            coverage.judgement,
            v.exact,
            v.solution,
            f"{coverage.judgement.value}: {coverage.summary()} covered",
            coverage,
        )
    v = check_answer(card, instance, given, registry)
    if v.invalid:
        return Answered(given, None, v.exact, v.solution, v.message, invalid=True)
    return Answered(
        v.given,
        Judgement.RIGHT if v.correct else Judgement.WRONG,
        v.exact,
        v.solution,
        v.message,
        mistake=v.mistake.id if v.mistake else None,
    )
