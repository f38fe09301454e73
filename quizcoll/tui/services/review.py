"""A review session as the review screen drives it: queue, instance, verdict, rating, undo.

The session holds no store: the methods that touch the database take it as their first
argument, so the screen runs them on the database thread (:mod:`.database`), and the
pure steps (drawing an instance, checking an answer) in a worker thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo

from deck.answers.checking import Solution, Verdict, check_answer, give_up, reveal, solve
from deck.base.typed import answer_text
from deck.cards.instances import Given, Instance, draw, render_front, render_options, render_text
from deck.cards.model import Card, CardType, Rating
from deck.cards.registry import Registry
from deck.review.anki import leech_alert
from deck.review.anki import preview as balanced_preview
from deck.review.queue import (
    EntryKind,
    QueueEntry,
    build_queue,
    day_bounds,
    next_entry,
    practice_queue,
)
from deck.review.scheduler import CardState, Config, Scheduler, format_interval
from deck.review.store import CardRecord, Review, StaleState, Store
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
    hinted: bool = False  # the hint was shown (logged with the review)

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

    def hint_text(self) -> str:
        """The card's hint for this instance ("" when it has none)."""
        return render_text(self.card.hint, self.instance).strip() if self.card.hint else ""

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


@dataclass(frozen=True)
class Flagged:
    """A card suspended or buried in this session; undoing it restores ``before``."""

    presented: Presented
    what: str  # "suspended" or "buried"
    before: CardRecord | None


@dataclass(frozen=True)
class SessionSummary:
    """What a session did, for the screen at its end."""

    reviewed: int
    correct: int
    wrong: int
    self_graded: int
    hinted: int
    seconds: float  # time spent on the rated cards
    next_due: datetime | None  # the next card of this session's scope to come due
    leeches: tuple[str, ...]  # cards that became leeches (and were suspended) now
    suspended: tuple[str, ...]
    buried: tuple[str, ...]


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
        tag: str | None = None,
        tz: tzinfo | None = None,
        given: Mapping[str, Given] | None = None,
    ) -> None:
        self.cards = list(cards)
        # a calibrated cluster's link values for the cards' link roles (quizcoll --cluster)
        self.given = dict(given or {})
        self.registry = registry
        self.config = config
        self.clock = clock
        self.seeds = seeds
        self.deck = deck
        self.practice = practice
        self.tag = tag
        self.tz = tz
        self.queue: list[QueueEntry] = []
        self.current: Presented | None = None
        self.actions: list[Committed | Flagged] = []  # in order; undo takes the last
        self.planned = 0  # cards in the queue when the session started, plus any re-queued

    @property
    def committed(self) -> list[Committed]:
        """The ratings stored in this session, in order."""
        return [a for a in self.actions if isinstance(a, Committed)]

    # -- database steps (run with the store on the database thread) -----------------------

    def load(self, store: Store) -> int:
        """Build the queue; returns its length."""
        self.queue = self._entries(store)
        self.planned = len(self.queue)
        return len(self.queue)

    def _entries(self, store: Store) -> list[QueueEntry]:
        now = self.clock()
        if self.practice:
            return practice_queue(self.cards, store, self.config, now, deck=self.deck, tag=self.tag)
        return build_queue(self.cards, store, self.config, now, deck=self.deck, tz=self.tz)

    def advance(self, store: Store) -> Presented | None:
        """Show the next card: a learning card as soon as its step is due, else the queue's
        next card, else one within the learn-ahead limit (:func:`next_entry`)."""
        while True:
            now = self.clock()
            if self.practice:
                entry = self.queue.pop(0) if self.queue else None
            else:
                queued = {e.card.id for e in self.queue}
                last = {c.review.card_id for c in self.committed[-1:]}
                scope = self.cards
                entry = next_entry(
                    self.queue,
                    scope,
                    store,
                    self.config,
                    now,
                    deck=self.deck,
                    exclude=frozenset(last),
                )
                if entry is not None and entry.card.id not in queued:
                    self.planned += 1  # a learning step come due: not in the plan yet
            if entry is None:
                self.current = None
                return None
            if not self.practice:
                record = store.card(entry.card.id)
                if record is not None and (record.suspended or record.is_buried(now)):
                    continue
                entry = replace(entry, state=store.state(entry.card.id))
            self.current = Presented(
                entry, draw(entry.card, self.seeds(), self.registry, given=self.given), now
            )
            return self.current

    def preview(self, store: Store) -> dict[Rating, str]:
        """Compute each rating's outcome for the card on screen; its interval labels."""
        p = self._require()
        now = self.clock()
        if self.practice:
            state = p.entry.state
        else:
            state, p.version = store.state_version(p.card.id)
        scheduler = Scheduler(self.config.for_deck(p.card.deck))
        others = [r.state for r in store.cards().values() if r.card_id != p.card.id]
        p.outcomes = balanced_preview(scheduler, state, now, p.card.id, others, tz=self.tz)
        p.previewed_at = now
        # Practice never changes the schedule: no interval to promise on the buttons (N20).
        return {} if self.practice else p.interval_labels()

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
                    hinted=p.hinted,
                    expected_version=p.version,
                    given=p.instance.given,
                )
                break
            except StaleState:
                self.preview(store)  # another session reviewed it: schedule from its new state
        self.actions.append(Committed(review, p))
        self.current = None
        return review

    def undo(self, store: Store) -> tuple[Presented, str]:
        """Take back the session's last action (a rating, a suspension or a burial) and put
        its card back on screen as it was; returns the card and what was undone."""
        if not self.actions:
            raise LookupError("nothing to undo in this session")
        last = self.actions[-1]
        if isinstance(last, Committed):
            store.undo(last.review.id)
            what = f"rating {last.review.rating.name.capitalize()}"
        else:
            before = last.before
            deck = last.presented.card.deck
            store.suspend(last.presented.card.id, bool(before and before.suspended), deck=deck)
            store.bury(last.presented.card.id, before.buried_until if before else None, deck=deck)
            what = "suspension" if last.what == "suspended" else "burial"
        self.actions.pop()
        if self.current is not None:
            self.queue.insert(0, self.current.entry)
        restored = last.presented
        if isinstance(last, Committed):
            restored.entry = replace(restored.entry, state=last.review.before.state)
            restored.outcomes = {}
        self.current = restored
        return restored, what

    def _flag(self, store: Store, what: str) -> Flagged:
        p = self._require()
        before = store.card(p.card.id)
        if what == "suspended":
            store.suspend(p.card.id, True, deck=p.card.deck)
        else:
            now = self.clock()
            _, tomorrow = day_bounds(now, self.config.for_deck(p.card.deck).rollover_hour, self.tz)
            store.bury(p.card.id, tomorrow, deck=p.card.deck)
        flagged = Flagged(p, what, before)
        self.actions.append(flagged)
        self.current = None
        return flagged

    def suspend(self, store: Store) -> str:
        """Suspend the card on screen (it leaves every queue); returns its id."""
        return self._flag(store, "suspended").presented.card.id

    def bury(self, store: Store) -> str:
        """Hide the card on screen until the next review day; returns its id."""
        return self._flag(store, "buried").presented.card.id

    def summary(self, store: Store) -> SessionSummary:
        """What this session did, and when the next card of its scope comes due."""
        from quizcoll.tui.services.summary import next_due

        reviews = [c.review for c in self.committed]
        flagged = [a for a in self.actions if isinstance(a, Flagged)]
        scope = [c for c in self.cards if self.deck is None or c.deck == self.deck]
        return SessionSummary(
            reviewed=len(reviews),
            correct=sum(r.correct is True for r in reviews),
            wrong=sum(r.correct is False for r in reviews),
            self_graded=sum(r.correct is None for r in reviews),
            hinted=sum(r.hinted for r in reviews),
            seconds=sum((r.duration_ms or 0) for r in reviews) / 1000,
            next_due=next_due(store, scope, self.clock()),
            leeches=tuple(
                r.card_id
                for r in reviews
                if r.after.state.lapses > r.before.state.lapses
                and leech_alert(r.after.state.lapses, self.config.for_deck(r.deck).leech_threshold)
            ),
            suspended=tuple(f.presented.card.id for f in flagged if f.what == "suspended"),
            buried=tuple(f.presented.card.id for f in flagged if f.what == "buried"),
        )

    def replace_card(self, card: Card) -> Presented | None:
        """Use the edited ``card`` (same id) from now on; the card on screen, if it is that
        card, is asked afresh with the same seed (its schedule is keyed on the id)."""
        self.cards = [card if c.id == card.id else c for c in self.cards]
        self.queue = [replace(e, card=card) if e.card.id == card.id else e for e in self.queue]
        p = self.current
        if p is None or p.card.id != card.id:
            return p
        self.current = Presented(
            replace(p.entry, card=card),
            draw(card, p.instance.seed, self.registry, given=self.given),
            p.shown_at,
        )
        return self.current

    def hint(self) -> str:
        """Show the hint of the card on screen ("" when it has none); logged with its rating."""
        p = self._require()
        text = p.hint_text()
        if text:
            p.hinted = True
        return text

    # -- pure steps -----------------------------------------------------------------------

    def check(self, text: str) -> Verdict | None:
        """Judge ``text`` for the card on screen (runs its executable once per instance).

        A blank answer is not an attempt: it changes nothing and returns None. Nor is text
        that cannot be read (:attr:`Verdict.invalid`): its verdict says where reading failed
        and nothing else changes. A wrong answer keeps the exact answer hidden (see
        :attr:`Presented.revealed`).
        """
        p = self._require()
        if not text.strip():
            return None
        if p.revealed and p.verdict is not None:
            return p.verdict  # the answer is on screen: another attempt would prove nothing
        answer_text(text)  # the length cap: a DeckError the screen shows as a notice
        if p.solution is None:
            p.solution = solve(p.card, p.instance, self.registry)
        elapsed = (self.clock() - p.shown_at).total_seconds()
        verdict = check_answer(
            p.card,
            p.instance,
            text,
            self.registry,
            attempts=p.attempts + 1,
            elapsed_s=elapsed,
            solution=p.solution,
        )
        if verdict.invalid:
            return verdict
        p.attempts += 1
        p.answers.append(text)
        p.verdict = verdict
        p.revealed = bool(verdict.correct)
        return verdict

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
        p.verdict = give_up(p.card, p.instance, self.registry, p.solution)
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
