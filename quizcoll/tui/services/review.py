"""A review session as the review screen drives it: queue, instance, verdict, rating, undo.

The session holds no store: the methods that touch the database take it as their first
argument, so the screen runs them on the database thread (:mod:`.database`), and the
pure steps (drawing an instance, checking an answer) in a worker thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo

from deck.checking import Solution, Verdict, check_answer, reveal, solve
from deck.instances import Instance, draw, render_front, render_options, render_text
from deck.model import Card, CardType, Rating
from deck.queue import EntryKind, QueueEntry, build_queue, practice_queue
from deck.registry import Registry
from deck.scheduler import CardState, Config, Scheduler, format_interval
from deck.store import Review, StaleState, Store
from deck.typed import answer_text
from quizcoll.tui.services.env import Clock, SeedSource


@dataclass
class Presented:
    """The card on screen: its instance, what the user did, and the outcome previews."""

    entry: QueueEntry
    instance: Instance
    shown_at: datetime
    attempts: int = 0
    verdict: Verdict | None = None
    solution: Solution | None = None
    answers: list[str] = field(default_factory=list)
    outcomes: dict[Rating, CardState] = field(default_factory=dict)
    previewed_at: datetime | None = None
    version: int = 0  # the card row's version the outcomes were computed from (CAS token)
    # Whether the exact answer is on screen: a wrong answer keeps it hidden so that it
    # can be retried, until the user asks for it (space) or rates.
    revealed: bool = False

    @property
    def card(self) -> Card:
        return self.entry.card

    @property
    def answered(self) -> bool:
        return self.verdict is not None

    @property
    def retryable(self) -> bool:
        """Checked, wrong, and the answer not shown yet: another attempt makes sense."""
        return (
            self.verdict is not None
            and self.verdict.correct is False
            and not self.revealed
            and self.card.type is not CardType.BASIC
        )

    def front_markdown(self) -> str:
        """The question with the instance's drawn values highlighted as inline code."""
        if not self.instance.shown:
            return render_front(self.card, self.instance)
        marked = {k: f"`{v}`" for k, v in self.instance.shown.items()}
        return render_text(self.card.front, replace(self.instance, shown=marked))

    def options(self) -> list[str]:
        if self.card.type is not CardType.CHOICE:
            return []
        return render_options(self.card, self.instance)

    def interval_labels(self) -> dict[Rating, str]:
        """The interval each rating would give (``10m``, ``3d``), as previewed."""
        if not self.outcomes or self.previewed_at is None:
            return {}
        out = {}
        for rating, state in self.outcomes.items():
            due = state.due or self.previewed_at
            out[rating] = format_interval(due - self.previewed_at)
        return out


@dataclass(frozen=True)
class Committed:
    """A rating stored in the database, and what to restore if it is undone."""

    review: Review
    presented: Presented


class ReviewSession:
    """One sitting: the queue of cards, the card on screen, and the reviews committed."""

    def __init__(
        self,
        cards: Sequence[Card],
        registry: Registry,
        config: Config,
        clock: Clock,
        seeds: SeedSource,
        *,
        deck: str | None = None,
        practice: bool = False,
        tz: tzinfo | None = None,
    ) -> None:
        self.cards = list(cards)
        self.registry = registry
        self.config = config
        self.clock = clock
        self.seeds = seeds
        self.deck = deck
        self.practice = practice
        self.tz = tz
        self.queue: list[QueueEntry] = []
        self.current: Presented | None = None
        self.committed: list[Committed] = []
        self.planned = 0  # cards in the queue when the session started, plus any re-queued

    # -- database steps (run with the store on the database thread) -----------------------

    def load(self, store: Store) -> int:
        """Build the queue; returns its length."""
        self.queue = self._entries(store)
        self.planned = len(self.queue)
        return len(self.queue)

    def _entries(self, store: Store) -> list[QueueEntry]:
        now = self.clock()
        if self.practice:
            return practice_queue(self.cards, store, self.config, now, deck=self.deck)
        return build_queue(self.cards, store, self.config, now, deck=self.deck, tz=self.tz)

    def advance(self, store: Store) -> Presented | None:
        """Show the next card (refilling from learning steps when the queue runs dry)."""
        if not self.queue and not self.practice:
            seen = {c.review.card_id for c in self.committed[-1:]}
            refill = [e for e in self._entries(store) if e.card.id not in seen]
            self.planned += len(refill)
            self.queue = refill
        while self.queue:
            entry = self.queue.pop(0)
            if not self.practice:
                record = store.card(entry.card.id)
                if record is not None and (record.suspended or record.is_buried(self.clock())):
                    continue
                entry = replace(entry, state=store.state(entry.card.id))
            self.current = Presented(
                entry, draw(entry.card, self.seeds(), self.registry), self.clock()
            )
            return self.current
        self.current = None
        return None

    def preview(self, store: Store) -> dict[Rating, str]:
        """Compute each rating's outcome for the card on screen; its interval labels."""
        p = self._require()
        now = self.clock()
        if self.practice:
            state = p.entry.state
        else:
            state, p.version = store.state_version(p.card.id)
        scheduler = Scheduler(self.config.for_deck(p.card.deck))
        p.outcomes = scheduler.preview(state, now, p.card.id)
        p.previewed_at = now
        return p.interval_labels()

    def rate(self, store: Store, rating: Rating) -> Review:
        """Commit the card on screen with ``rating``; returns the stored review."""
        p = self._require()
        if not p.outcomes:
            self.preview(store)
        assert p.previewed_at is not None
        while True:
            try:
                review = store.record_review(
                    p.card.id,
                    rating,
                    p.outcomes[rating],
                    reviewed_at=p.previewed_at,
                    deck=p.card.deck,
                    duration_ms=max(0, int((self.clock() - p.shown_at).total_seconds() * 1000)),
                    answer=p.answers[-1] if p.answers else None,
                    correct=None if p.verdict is None else p.verdict.correct,
                    seed=p.instance.seed,
                    practice=self.practice,
                    leech_threshold=self.config.for_deck(p.card.deck).leech_threshold,
                    expected_version=p.version,
                )
                break
            except StaleState:
                self.preview(store)  # another session reviewed it: schedule from its new state
        self.committed.append(Committed(review, p))
        self.current = None
        return review

    def undo(self, store: Store) -> Presented:
        """Remove the last rating of this session and put its card back on screen, answered."""
        if not self.committed:
            raise LookupError("nothing to undo in this session")
        last = self.committed[-1]
        store.undo(last.review.id)
        self.committed.pop()
        if self.current is not None:
            self.queue.insert(0, self.current.entry)
        restored = last.presented
        restored.entry = replace(restored.entry, state=last.review.before.state)
        restored.outcomes = {}
        self.current = restored
        return restored

    def suspend(self, store: Store) -> str:
        """Suspend the card on screen (it leaves every queue); returns its id."""
        p = self._require()
        store.suspend(p.card.id, True, deck=p.card.deck)
        self.current = None
        return p.card.id

    # -- pure steps -----------------------------------------------------------------------

    def check(self, text: str) -> Verdict | None:
        """Judge ``text`` for the card on screen (runs its executable once per instance).

        A blank answer is not an attempt: it changes nothing and returns None.
        A wrong answer keeps the exact answer hidden (see :attr:`Presented.revealed`).
        """
        p = self._require()
        if not text.strip():
            return None
        if p.revealed and p.verdict is not None:
            return p.verdict  # the answer is on screen: another attempt would prove nothing
        answer_text(text)  # the length cap: a DeckError the screen shows as a notice
        p.attempts += 1
        p.answers.append(text)
        if p.solution is None:
            p.solution = solve(p.card, p.instance, self.registry)
        elapsed = (self.clock() - p.shown_at).total_seconds()
        p.verdict = check_answer(
            p.card,
            p.instance,
            text,
            self.registry,
            attempts=p.attempts,
            elapsed_s=elapsed,
            solution=p.solution,
        )
        p.revealed = bool(p.verdict.correct)
        return p.verdict

    def reveal(self) -> Verdict:
        """Show the answer: a self-graded card's back, the answer to a wrong attempt
        (whose verdict stays), or give up on an unanswered card (Again)."""
        p = self._require()
        p.revealed = True
        if p.card.type is CardType.BASIC:
            p.verdict = reveal(p.card, p.instance, self.registry)
            p.solution = p.verdict.detail
            return p.verdict
        if p.verdict is not None:
            return p.verdict
        if p.solution is None:
            p.solution = solve(p.card, p.instance, self.registry)
        p.verdict = Verdict(
            False,
            "",
            p.solution.text,
            p.solution.markdown(),
            Rating.AGAIN,
            f"Revealed: the answer is {p.solution.text}.",
            p.solution,
        )
        return p.verdict

    # -- progress -------------------------------------------------------------------------

    @property
    def done(self) -> int:
        return len(self.committed)

    @property
    def total(self) -> int:
        return max(self.planned, self.done + len(self.queue) + (self.current is not None))

    def kind_label(self) -> str:
        p = self.current
        if p is None:
            return ""
        if self.practice:
            return "practice"
        return {EntryKind.NEW: "new", EntryKind.LEARNING: "learning", EntryKind.REVIEW: "review"}[
            p.entry.kind
        ]

    def _require(self) -> Presented:
        if self.current is None:
            raise LookupError("no card on screen")
        return self.current
