"""Review due cards. ``--plain`` is the line-by-line session for scripts and screen readers.

Per card: the question is printed, an answer line is read (``h`` first shows the card's
hint, where it has one, and the review is logged as hinted), the verdict, the worked
answer, the interval each rating would give and the suggested rating are printed, a
rating line is read (``1``-``4`` or again/hard/good/easy; empty accepts the suggestion),
and once the review is committed to the database ``saved: CARD_ID RATING`` is printed
and flushed. End of input or Ctrl-C ends the session cleanly: every acknowledged review
is on disk, an unfinished one is simply not stored.

``--practice`` (optionally with ``--tag``/``--deck``) reviews ahead, ignoring due dates
and limits; practice reviews are logged but never change the schedule.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

from quizcoll.cli.common import (
    add_cards_argument,
    add_cluster_argument,
    add_db_argument,
    cluster_given,
    number_flag,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import datetime

    from deck.answers.checking import Verdict
    from deck.cards.instances import Given, Instance
    from deck.cards.model import Card, Rating
    from deck.cards.registry import Registry
    from deck.review.scheduler import Config
    from deck.review.store import Store

RATING_NAMES = {"1": 1, "2": 2, "3": 3, "4": 4, "again": 1, "hard": 2, "good": 3, "easy": 4}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plain", action="store_true", help="line-by-line session on stdin/stdout (no TUI)"
    )
    parser.add_argument("--deck", metavar="D", help="review only this deck")
    parser.add_argument(
        "--limit",
        type=number_flag(low=1, high=10**6),
        metavar="N",
        help="stop after N reviews (1 to 1,000,000)",
    )
    parser.add_argument(
        "--practice",
        action="store_true",
        help="practice (cram): review ahead or by tag without changing the schedule",
    )
    parser.add_argument("--tag", metavar="T", help="practice only cards with this tag")
    add_cards_argument(parser)
    add_db_argument(parser)
    add_cluster_argument(parser)


def run(args: argparse.Namespace) -> int:
    import sys
    from datetime import UTC, datetime

    from deck.review.scheduler import load_config
    from deck.review.store import Store
    from quizcoll.cli.common import UsageError, default_db_path
    from quizcoll.collection import load

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    if args.tag and not args.practice:
        raise UsageError("--tag selects cards to practise; use it with --practice")
    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        if args.tag:
            raise UsageError("--tag works in the line-by-line session: add --plain")
        from quizcoll.tui.app import run_app

        return run_app(
            args.cards,
            args.db or default_db_path(),
            review=True,
            deck=args.deck,
            practice=args.practice,
            cluster=args.cluster,
        )
    given = cluster_given(args)
    config = load_config()
    collection, registry = load(args.cards)
    if collection.problems:
        print(
            f"quizcoll review: {len(collection.problems)} problem(s) in the card files "
            "(run `quizcoll check`); reviewing the valid cards",
            file=sys.stderr,
        )
    cards = collection.cards
    if args.deck is not None and args.deck not in {c.deck for c in cards}:
        raise UsageError(f"no deck {args.deck!r} (decks: {', '.join(collection.decks())})")
    if args.tag is not None and not any(args.tag in c.tags for c in cards):
        raise UsageError(f"no card has the tag {args.tag!r}")
    with Store.open(args.db or default_db_path()) as store:
        store.hold_session()  # a rename meanwhile would split a card's history (F14)
        if args.cards is None and not collection.problems:
            # Only the complete built-in collection decides which ids are gone.
            store.sync_cards((c.id, c.deck) for c in cards)
        return plain_session(
            cards,
            registry,
            store,
            config,
            lambda: datetime.now(UTC),
            sys.stdin,
            sys.stdout,
            deck=args.deck,
            limit=args.limit,
            practice=args.practice,
            tag=args.tag,
            given=given,
        )


def _read(stdin: TextIO, stdout: TextIO, prompt: str) -> str | None:
    """One line from ``stdin`` (without its newline), or None at end of input.

    Bytes that are not UTF-8 become U+FFFD (with a note): the line still counts, so a
    script's answers and ratings stay in step and the review is not lost.
    """
    from deck.base.typed import decoded_line

    interactive = stdin.isatty()
    stdout.write(prompt if interactive else prompt + "\n")
    stdout.flush()
    try:
        line = stdin.readline()
    except UnicodeDecodeError:  # a strict decoder (main() avoids it): the line is lost
        line = "\udcff\n"
    if not line:
        return None
    text, replaced = decoded_line(line.rstrip("\r\n"))
    if replaced:
        stdout.write("(that line was not valid UTF-8 text: undecodable bytes read as \ufffd)\n")
        stdout.flush()
    return text


def _parse_rating(text: str, suggested: Rating) -> Rating | None:
    from deck.cards.model import Rating

    text = text.strip().lower()
    if not text:
        return suggested
    value = RATING_NAMES.get(text)
    return None if value is None else Rating(value)


def _undo(store: Store, last: tuple[Any, Any], say: Callable[[str], None]) -> bool:
    """Undo the session's latest saved review; say what happened. False if it could not be."""
    from deck.review.store import UndoError

    review, _ = last
    try:
        store.undo(review.id)
    except UndoError as exc:
        say(f"cannot undo: {exc}")
        return False
    say(f"undone: {review.card_id} {int(review.rating)}")
    return True


def _next_entries(
    cards: Sequence[Card],
    store: Store,
    config: Config,
    now: datetime,
    *,
    deck: str | None,
    practice: bool,
    tag: str | None,
) -> list[Any]:
    from deck.review.queue import build_queue, practice_queue

    if practice:
        return practice_queue(cards, store, config, now, deck=deck, tag=tag)
    return build_queue(cards, store, config, now, deck=deck)


def _ask(
    card: Card,
    instance: Instance,
    registry: Registry | None,
    stdin: TextIO,
    stdout: TextIO,
    say: Callable[[str], None],
    started: float,
) -> tuple[str, Verdict, bool] | None:
    """Read answers until one can be judged: (the answer, its verdict, whether the hint was
    shown); None at end of input.

    Text that cannot be read is not an attempt: its error is printed and the question asked
    again, the answer still hidden. An empty line reveals the answer (giving up: Again);
    ``h`` shows the card's hint first, where it has one.
    """
    import time

    from deck.answers.checking import answer_dim, check_answer, give_up, reveal
    from deck.answers.examples import answer_hint
    from deck.base.typed import AnswerTooLong, answer_text
    from deck.cards.instances import render_text
    from deck.cards.model import CardType

    if card.type is CardType.BASIC:
        example = ""
    else:
        example = f"{answer_hint(card, answer_dim(card, registry))}; "
    hint = render_text(card.hint, instance).strip() if card.hint else ""
    hinted = False
    while True:
        offer = "h: hint; " if hint and not hinted else ""
        answer = _read(stdin, stdout, f"answer ({example}{offer}Enter reveals)> ")
        if answer is None:
            return None
        try:
            answer_text(answer)  # the length cap, before any checking
        except AnswerTooLong as exc:
            say(f"{exc}; type it again")
            continue
        if offer and answer.strip().lower() == "h":
            hinted = True
            say(f"hint: {hint}")
            continue
        if card.type is CardType.BASIC:
            return answer, reveal(card, instance, registry), hinted
        if not answer.strip():
            return answer, give_up(card, instance, registry), hinted
        elapsed = time.monotonic() - started
        verdict = check_answer(card, instance, answer, registry, elapsed_s=elapsed)
        if not verdict.invalid:
            return answer, verdict, hinted
        say(f"{verdict.message} Try again.")


def plain_session(
    cards: Sequence[Card],
    registry: Registry | None,
    store: Store,
    config: Config,
    clock: Callable[[], datetime],
    stdin: TextIO,
    stdout: TextIO,
    *,
    deck: str | None = None,
    limit: int | None = None,
    practice: bool = False,
    tag: str | None = None,
    given: Mapping[str, Given] | None = None,
) -> int:
    """Run the line-mode review; returns the exit code (0: ended normally or at end of input).
    ``given``: a calibrated cluster's values for the cards' link roles (``--cluster``)."""
    import secrets
    import time

    from deck.base.errors import DeckError
    from deck.cards.instances import draw, render_front, render_options
    from deck.cards.model import CardType, Rating
    from deck.review.anki import leech_alert
    from deck.review.anki import preview as balanced_preview
    from deck.review.queue import next_entry
    from deck.review.scheduler import Scheduler, format_interval
    from deck.review.store import StaleState

    def say(text: str = "") -> None:
        stdout.write(text + "\n")
        stdout.flush()

    saved = 0
    last: tuple[Any, Any] | None = None  # the session's latest saved review and its queue entry
    try:
        queue = _next_entries(cards, store, config, clock(), deck=deck, practice=practice, tag=tag)
        mode = "practice (schedule unchanged)" if practice else "review"
        say(
            f"{mode}: {len(queue)} card(s){f' in deck {deck}' if deck else ''}. End of input stops."
        )

        def pick() -> Any:
            if practice:
                return queue.pop(0) if queue else None
            # A learning step that has come due is asked at once (as Anki does).
            just = frozenset({last[0].card_id}) if last is not None else frozenset()
            return next_entry(queue, cards, store, config, clock(), deck=deck, exclude=just)

        while (limit is None or saved < limit) and (entry := pick()) is not None:
            card = entry.card
            if not practice:
                # The card may have changed since the queue was built (another session).
                record = store.card(card.id)
                if record is not None and (record.suspended or record.is_buried(clock())):
                    continue
            state, version = store.state_version(card.id)
            settings = config.for_deck(card.deck)
            scheduler = Scheduler(settings)
            seed = secrets.randbits(31)
            instance = draw(card, seed, registry, given=given)
            say()
            say(f"[{saved + 1}] {card.id} · {card.deck} · {entry.kind.value}")
            say(render_front(card, instance).strip())
            options = render_options(card, instance) if card.type is CardType.CHOICE else []
            for i, option in enumerate(options):
                say(f"  {chr(ord('a') + i)}) {option}")
            started = time.monotonic()
            try:
                asked = _ask(card, instance, registry, stdin, stdout, say, started)
            except DeckError as exc:
                say(f"cannot check this card: {exc}")
                continue
            if asked is None:
                break
            answer, verdict, hinted = asked
            say(verdict.message)
            if verdict.mistake is not None:
                say(f"mistake: {verdict.mistake.id}")
            if verdict.solution.strip():
                say(verdict.solution.strip())
            now = clock()
            others = [r.state for r in store.cards().values() if r.card_id != card.id]
            outcomes = balanced_preview(scheduler, state, now, card.id, others)
            if practice:
                say("practice: the schedule does not change")
            else:
                say(
                    "next: "
                    + " · ".join(
                        f"{int(r)} {r.name.lower()} {format_interval(outcomes[r].due - now)}"  # type: ignore[operator]
                        for r in Rating
                    )
                )
            suggested = verdict.suggested
            rating: Rating | None = None
            undo_hint = ", u = undo the previous card" if last is not None else ""
            undone = False
            while rating is None:
                line = _read(
                    stdin,
                    stdout,
                    f"rating [1-4, Enter = {int(suggested)} {suggested.name.lower()}{undo_hint}]> ",
                )
                if line is None:
                    break
                if line.strip().lower() in ("u", "undo") and last is not None:
                    undone = _undo(store, last, say)
                    if undone:
                        # Ask the undone card again, then this one.
                        queue[:0] = [last[1], entry]
                        saved -= 1
                        last = None
                    break
                rating = _parse_rating(line, suggested)
                if rating is None:
                    say(
                        "a rating is 1 (again), 2 (hard), 3 (good) or 4 (easy)"
                        + (", or u" if last else "")
                    )
            if undone:
                continue
            if rating is None:
                break
            while True:
                try:
                    review = store.record_review(
                        card.id,
                        rating,
                        outcomes[rating],
                        reviewed_at=now,
                        deck=card.deck,
                        duration_ms=int((time.monotonic() - started) * 1000),
                        answer=answer,
                        correct=verdict.correct,
                        seed=seed,
                        practice=practice,
                        leech_threshold=settings.leech_threshold,
                        hinted=hinted,
                        expected_version=version,  # compare-and-swap: see StaleState
                        given=instance.given,
                    )
                    break
                except StaleState as stale:
                    say(
                        f"{card.id} was reviewed in another session meanwhile: rescheduled from there"
                    )
                    version = stale.version
                    outcomes = balanced_preview(scheduler, stale.state, now, card.id, others)
            saved += 1
            last = (review, entry)
            say(f"saved: {card.id} {int(rating)}")
            lapsed = review.after.state.lapses > review.before.state.lapses
            if lapsed and leech_alert(review.after.state.lapses, settings.leech_threshold):
                say(
                    f"leech: {card.id} lapsed {review.after.state.lapses} times; tagged and suspended"
                )
        else:
            say()
            say(f"done: {saved} review(s) saved")
            return 0
        say()
        say(f"end of input: {saved} review(s) saved")
        return 0
    except KeyboardInterrupt:
        say()
        say(f"interrupted: {saved} review(s) saved")
        return 0
