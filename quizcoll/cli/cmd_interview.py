"""A mock interview: a chain of questions that follows your answers, timed, with a scorecard.

A script (``--list`` shows them) starts with one question; a right answer leads deeper, a
wrong one to a simpler card or a hint question, and the interviewer says why. Numbers are
fresh each time (``--seed K`` replays one interview). Numeric, formula and choice answers
are graded exactly as ``quizcoll grade`` does; explanations are judged by the key points
they make, and you may correct that judgement. An empty answer means "I don't know".

``--plain`` is the line protocol (also used when stdin or stdout is not a terminal): each
question's header names the card and its instance seed (``quizcoll show CARD --seed S``
shows the same instance); an answer line is read; for an explanation the covered key points
are listed and a judgement line is read (Enter accepts; ``r``, ``p``, ``w`` correct it).
End of input ends the interview cleanly. ``--json`` prints the scorecard as one JSON
document on stdout (the questions then go to stderr).

The scorecard is kept in the review database (``--history`` shows scores over time per
topic); an interview never changes a card's schedule, unless ``--to-review`` asks to make
its weak cards due now.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from quizcoll.cli.common import add_cards_argument, add_db_argument, add_json_argument

if TYPE_CHECKING:
    from collections.abc import Callable

    from deck.cards.registry import Registry
    from deck.interview.engine import InterviewRun, Prompt
    from deck.interview.judge import Answered

MAX_SEED = 2**63 - 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("interview", nargs="?", metavar="ID", help="the script (--list shows them)")
    parser.add_argument("--topic", metavar="T", help="pick a script of this topic")
    parser.add_argument("--seed", type=int, metavar="K", help="replay one interview (0 to 2^63-1)")
    parser.add_argument("--plain", action="store_true", help="line protocol on stdin/stdout")
    parser.add_argument("--list", action="store_true", help="list the interview scripts")
    parser.add_argument("--history", action="store_true", help="scores over time per topic")
    parser.add_argument(
        "--to-review",
        action="store_true",
        help="afterwards, make the weak cards due now (their FSRS state otherwise unchanged)",
    )
    parser.add_argument("--no-save", action="store_true", help="do not keep the scorecard")
    parser.add_argument(
        "--scripts",
        action="append",
        type=Path,
        metavar="PATH",
        help="interview script files or folders (repeatable; default: the built-in scripts)",
    )
    add_cards_argument(parser)
    add_db_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from quizcoll.cli.common import UsageError, default_db_path

    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be between 0 and {MAX_SEED}, got {args.seed}")
    if args.list and args.history:
        raise UsageError("--list and --history are two commands: give one")
    if args.history:
        return _history(args)
    from quizcoll.collection import load
    from quizcoll.interviewing import load_interviews, new_seed, pick_script

    collection, registry = load(args.cards)
    interviews = load_interviews(collection, args.scripts)
    for problem in interviews.problems:
        print(problem.format(), file=sys.stderr)
    if args.list:
        return _list(interviews, args.json)
    seed = new_seed() if args.seed is None else args.seed
    script = pick_script(interviews, args.interview, args.topic, seed)
    db = args.db or default_db_path()
    if not args.plain and not args.json and sys.stdin.isatty() and sys.stdout.isatty():
        if args.to_review or args.no_save:
            raise UsageError(
                "--to-review and --no-save belong to the line protocol: add --plain "
                "(in the app, t on the scorecard sends the weak cards to review)"
            )
        from quizcoll.tui.interview_app import run_interview_app

        return run_interview_app(args.cards, db, script.id, seed, scripts=args.scripts)
    import time
    from datetime import UTC, datetime

    from deck.review.store import Store
    from quizcoll.interviewing import save_run, send_to_review, start_run

    out = sys.stderr if args.json else sys.stdout
    with Store.open(db) as store:
        interview = start_run(script, seed, collection, time.monotonic)
        started = datetime.now(UTC)
        plain_interview(interview, registry, sys.stdin, out)
        if not args.no_save and (record := save_run(store, interview, started)) is not None:
            _say(out, f"saved: interview {record.id} ({record.interview}, {record.score:g}%)")
        if args.to_review:
            moved, left = send_to_review(store, interview, datetime.now(UTC))
            _say(out, f"to review now: {', '.join(moved) or 'none'}")
            if left:
                _say(out, f"already waiting (new or due): {', '.join(left)}")
    if args.json:
        from quizcoll.cli.common import print_json

        print_json(interview.scorecard())
    return 0


def _say(out: TextIO, text: str = "") -> None:
    out.write(text + "\n")
    out.flush()


def _read(stdin: TextIO, out: TextIO, prompt: str) -> str | None:
    """One line (without its newline), or None at end of input; bad bytes become U+FFFD."""
    from deck.base.typed import decoded_line

    out.write(prompt if stdin.isatty() else prompt + "\n")
    out.flush()
    try:
        line = stdin.readline()
    except UnicodeDecodeError:
        line = "\ufffd\n"
    if not line:
        return None
    return decoded_line(line.rstrip("\r\n"))[0]


def plain_interview(
    interview: InterviewRun, registry: Registry | None, stdin: TextIO, out: TextIO
) -> None:
    """Run ``interview`` as the line protocol; returns at its end or at end of input."""
    from deck.base.errors import DeckError

    script = interview.script
    say: Callable[[str], None] = lambda text="": _say(out, text)  # noqa: E731
    say(f"interview: {script.id} · {script.title} · seed {interview.seed}")
    say(
        f"{script.minutes:g} minutes, at most {script.max_questions} questions. "
        'An empty answer means "I don\'t know"; end of input stops.'
    )
    try:
        while (prompt := interview.ask()) is not None:
            say()
            try:
                answered_it = _question(interview, prompt, registry, stdin, out, say)
            except DeckError as exc:
                say(f"cannot check this card: {exc}")
                answered_it = False
            if not answered_it:
                interview.stop()
    except KeyboardInterrupt:
        interview.stop()
    _scorecard(interview, say)


def _question(
    interview: InterviewRun,
    prompt: Prompt,
    registry: Registry | None,
    stdin: TextIO,
    out: TextIO,
    say: Callable[[str], None],
) -> bool:
    """Ask one question and record its verdict; False at end of input (nothing recorded)."""
    from deck.answers.keypoints import Judgement
    from deck.base.typed import AnswerTooLong
    from deck.cards.instances import draw, render_front, render_options
    from deck.cards.model import CardType
    from deck.interview.judge import judge

    card = prompt.card
    instance = draw(card, prompt.seed, registry)
    if prompt.why:
        say(f"→ {prompt.why}")
    remaining = interview.remaining()
    say(
        f"[{prompt.number}] {card.id} · seed {prompt.seed} · {card.deck} · {card.type.value}"
        f" · {int(remaining // 60)}:{int(remaining % 60):02d} left"
    )
    say(render_front(card, instance).strip())
    if card.type is CardType.CHOICE:
        for i, option in enumerate(render_options(card, instance)):
            say(f"  {chr(ord('a') + i)}) {option}")
    while True:
        answer = _read(stdin, out, "answer> ")
        if answer is None:
            return False
        try:
            answered = judge(card, instance, answer, registry)
        except AnswerTooLong as exc:
            say(f"{exc}; type it again")
            continue
        if not answered.invalid:
            break
        say(f"{answered.message} Try again.")
    _report(answered, say)
    verdict = answered.judgement
    if not answered.exact:
        # An explanation: the learner sees the points and may correct the judgement.
        default = answered.judgement or Judgement.PARTIAL
        verdict = None
        while verdict is None:
            line = _read(
                stdin, out, f"judgement [Enter = {default.value}; r right, p partial, w wrong]> "
            )
            if line is None:
                return False
            verdict = Judgement.parse(line) if line.strip() else default
            if verdict is None:
                say("a judgement is r (right), p (partial) or w (wrong); Enter accepts")
    assert verdict is not None
    corrected = answered.judgement is not None and verdict is not answered.judgement
    say(f"verdict: {verdict.value}" + (" (corrected)" if corrected else ""))
    interview.answer(answered, verdict)
    return True


def _report(answered: Answered, say: Callable[[str], None]) -> None:
    """Print the judge's message, the points covered and the model answer."""
    say(answered.message)
    if answered.mistake:
        say(f"mistake: {answered.mistake}")
    if answered.coverage is not None:
        for m in answered.coverage.key:
            said = f"  (said: {', '.join(m.found)})" if m.found else ""
            say(f"  [{'x' if m.covered else ' '}] {m.point.point}{said}")
        for m in answered.coverage.bonus:
            said = f"  (said: {', '.join(m.found)})" if m.found else ""
            say(f"  [{'+' if m.covered else ' '}] bonus: {m.point.point}{said}")
    if answered.solution.strip():
        say(
            "model answer:"
            if answered.coverage is not None or answered.judgement is None
            else "answer:"
        )
        say(answered.solution.strip())


def _scorecard(interview: InterviewRun, say: Callable[[str], None]) -> None:
    card = interview.scorecard()
    say()
    say(
        f"scorecard: {card['score']:g}% over {len(card['questions'])} question(s) "
        f"(ended: {card['ended']}, {card['seconds']:.0f} s)"
    )
    for deck, t in card["topics"].items():
        filled = round(t["score"] / 10)
        say(f"  {deck:<12} {'█' * filled}{'·' * (10 - filled)} {t['score']:g}% ({t['questions']})")
    say(f"weak cards: {', '.join(card['weak_cards']) or 'none'}")


def _list(interviews: Any, as_json: bool) -> int:
    from quizcoll.cli.common import print_json

    rows = [
        {
            "id": s.id,
            "title": s.title,
            "topic": s.topic,
            "minutes": s.minutes,
            "max_questions": s.max_questions,
            "questions": len(s.questions),
            "depth": s.depth(),
            "cards": [q.card for q in s.questions],
        }
        for s in interviews.scripts
    ]
    if as_json:
        print_json(rows)
        return 0
    width = max((len(r["id"]) for r in rows), default=2)
    for r in rows:
        print(
            f"{r['id']:<{width}}  {r['topic']:<12} {r['depth']:>2} deep, "
            f"{r['questions']:>2} questions, {r['minutes']:g} min  {r['title']}"
        )
    return 0


def _history(args: argparse.Namespace) -> int:
    from quizcoll.cli.common import open_store_read_only, print_json
    from quizcoll.interviewing import history_document

    store, _ = open_store_read_only(args.db)
    with store:
        records = store.interviews(topic=args.topic)
    document = history_document(records)
    if args.json:
        print_json(document)
        return 0
    if not records:
        print("no interviews yet: `quizcoll interview` starts one")
        return 0
    for topic, points in sorted(document["topics"].items()):
        series = " ".join(f"{p['score']:g}" for p in points)
        print(f"{topic:<12} {len(points):>3} interview(s); scores over time: {series}")
    for r in records:
        print(
            f"  {r.started_at:%Y-%m-%d %H:%M}  {r.interview:<28} {r.score:>5g}%  "
            f"{r.questions} question(s), {r.ended}"
        )
    return 0
