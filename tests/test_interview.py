"""Interview mode: scripts (validation with file:line), the run (right goes deeper, wrong
simpler, time and question limits), the line protocol end to end on a fixture and on every
built-in script, the JSON scorecard, the stored results and sending weak cards to review."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deck.answers.checking import solve
from deck.answers.keypoints import Judgement
from deck.base.typed import MAX_ANSWER_CHARS
from deck.cards.instances import draw, render_front, render_text
from deck.cards.model import CardType, Rating
from deck.interview.engine import InterviewRun, instance_seed
from deck.interview.judge import judge
from deck.interview.loader import load_script_text, load_scripts
from deck.review.scheduler import Scheduler, Settings
from deck.review.store import SCHEMA_VERSION, Store
from quizcoll.cli.cmd_interview import plain_interview
from quizcoll.cli.main import main
from quizcoll.collection import load
from quizcoll.interviewing import load_interviews

FIXTURE = Path(__file__).parent / "fixtures" / "interview"
CARDS = FIXTURE / "cards.yaml"
SCRIPTS = FIXTURE / "scripts.yaml"
HEADER = re.compile(r"^\[(\d+)\] (\S+) · seed (\d+) · ", re.M)


class Clock:
    """Seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def fixture_run_parts():
    collection, registry = load([CARDS])
    scripts, problems = load_scripts([SCRIPTS])
    assert problems == [] and collection.problems == ()
    return collection, registry, scripts[0]


@pytest.fixture(scope="module")
def builtin():
    collection, registry = load()
    return collection, registry, load_interviews(collection)


# -- scripts ------------------------------------------------------------------------------

GOOD = """\
interviews:
  - id: s1
    title: T
    topic: collectives
    minutes: 10
    max_questions: 4
    questions:
      - card: a
        follow_ups:
          right: {card: b, why: "deeper"}
          wrong: {card: c, why: "simpler"}
      - card: b
      - card: c
"""


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("minutes: 10", "minutes: 0", "t.yaml:5:14: interview 's1': minutes: 0 is out of range"),
        (
            "max_questions: 4",
            "max_questions: 2.5",
            "t.yaml:6:20: interview 's1': max_questions: expected a whole number",
        ),
        ("id: s1", "id: S 1", "t.yaml:2:9: interview '#1': id: 'S 1': use lowercase"),
        ("    title: T\n", "", "t.yaml:2:5: interview 's1': title: missing (required)"),
        (
            "{card: b, why",
            "{card: bb, why",
            "t.yaml:10:25: interview 's1': questions[0].follow_ups.right.card: 'bb' is not a question of this interview (did you mean 'b'?)",
        ),
        (
            'why: "simpler"',
            'why: ""',
            "t.yaml:11:33: interview 's1': questions[0].follow_ups.wrong.why: is empty",
        ),
        (
            "          wrong:",
            "          worng:",
            "t.yaml:11:11: interview 's1': questions[0].follow_ups.worng: unknown verdict (did you mean 'wrong'?)",
        ),
        (
            "      - card: c\n",
            "      - card: c\n        follow_ups: {right: {card: a, why: again}}\n",
            "t.yaml:14:36: interview 's1': questions[2].follow_ups.right.card: 'c' → 'a' closes a cycle",
        ),
        (
            "      - card: c\n",
            "      - card: c\n      - card: d\n",
            "t.yaml:14:15: interview 's1': questions[3]: 'd' is never reached",
        ),
        (
            "      - card: c\n",
            "      - card: b\n",
            "t.yaml:13:15: interview 's1': questions[2].card: card 'b' is already a question at line 12",
        ),
        (
            "    topic: collectives\n",
            "    topic: collectives\n    colour: red\n",
            "t.yaml:5:5: interview 's1': colour: unknown key",
        ),
    ],
)
def test_script_problems_name_file_line_col(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    scripts, problems = load_script_text(GOOD.replace(old, new), "t.yaml")
    assert scripts == []
    assert any(p.format().startswith(expected) for p in problems), [p.format() for p in problems]


def test_a_valid_script_and_its_paths() -> None:
    (script,), problems = load_script_text(GOOD, "t.yaml")
    assert problems == []
    assert script.path(Judgement.RIGHT) == ["a", "b"]
    assert script.path(Judgement.WRONG) == ["a", "c"]
    assert script.path(Judgement.PARTIAL) == ["a", "b"]  # partial follows right by default
    assert script.depth() == 2


def test_card_loader_leaves_script_files_alone(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(GOOD, encoding="utf-8")
    collection, _ = load([tmp_path])
    assert collection.problems == () and collection.cards == ()


def test_check_reports_unknown_card_ids_in_scripts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        GOOD.replace("card: a\n", "card: gather-vs-reduc\n")
        .replace("- card: b", "- card: gather-what-it-does")
        .replace("{card: b,", "{card: gather-what-it-does,")
        .replace("- card: c", "- card: reduce-what-it-does")
        .replace("{card: c,", "{card: reduce-what-it-does,"),
        encoding="utf-8",
    )
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        "s.yaml:8:15: interview 's1': questions[0].card: no card with id 'gather-vs-reduc' (did you mean 'gather-vs-reduce'?)"
        in err
    )


def test_builtin_scripts(builtin) -> None:
    collection, _, interviews = builtin
    assert interviews.problems == ()
    scripts = interviews.scripts
    assert len(scripts) >= 8
    ids = collection.by_id()
    decks = set()
    for s in scripts:
        assert 5 <= s.depth() <= 12, s.id
        assert (
            5 <= len(s.path(Judgement.RIGHT)) <= 12 and 5 <= len(s.path(Judgement.WRONG)) <= 12
        ), s.id
        decks |= {ids[q.card].deck for q in s.questions}
    assert decks == set(collection.decks())  # every deck of the collection is interviewed
    assert {"vram-answer-template", "collectives-three-questions"} <= {s.id for s in scripts}


# -- the run ------------------------------------------------------------------------------


def _answer_right(card, seed, registry) -> str:
    """What a candidate who knows says: the exact answer, or every key point in a word (or,
    for an explanation without key points, the start of the model answer)."""
    inst = draw(card, seed, registry)
    if card.type is CardType.BASIC:
        if card.key_points:
            return "; ".join(p.terms[0] for p in card.key_points)
        return render_text(card.back, inst)[:MAX_ANSWER_CHARS].replace("\n", " ")
    return solve(card, inst, registry).typed


def test_right_goes_deeper_wrong_simpler(fixture_run_parts) -> None:
    collection, registry, script = fixture_run_parts
    for mode, expected in (
        ("right", ["iv-gather-vs-reduce", "iv-ring-factor", "iv-self-judged"]),
        ("wrong", ["iv-gather-vs-reduce", "iv-gather-only", "iv-which-reduces"]),
    ):
        clock = Clock()
        run = InterviewRun(script, 5, collection.by_id(), clock)
        while (prompt := run.ask()) is not None:
            text = _answer_right(prompt.card, prompt.seed, registry) if mode == "right" else ""
            answered = judge(prompt.card, draw(prompt.card, prompt.seed, registry), text, registry)
            clock.now += 30
            run.answer(answered, answered.judgement or Judgement(mode))
        assert [a.card for a in run.asked] == expected, mode
        assert all(a.seconds == 30 for a in run.asked)
        assert run.ended == "completed"
    assert run.score == 0 and run.weak_cards() == expected


def test_time_budget_and_question_cap(fixture_run_parts) -> None:
    collection, registry, script = fixture_run_parts
    clock = Clock()
    run = InterviewRun(script, 1, collection.by_id(), clock)
    prompt = run.ask()
    assert prompt is not None and prompt.why == "Let's begin."
    clock.now += script.minutes * 60  # the whole budget on one question
    run.answer(judge(prompt.card, draw(prompt.card, prompt.seed, registry), "", registry))
    assert run.ended == "time" and run.ask() is None and run.remaining() == 0


def test_seeds_are_stable_and_show_the_same_instance(
    fixture_run_parts, capsys: pytest.CaptureFixture[str]
) -> None:
    collection, registry, _ = fixture_run_parts
    assert instance_seed(42, "iv-ring-factor") == instance_seed(42, "iv-ring-factor")
    assert instance_seed(42, "iv-ring-factor") != instance_seed(43, "iv-ring-factor")
    seed = instance_seed(42, "iv-ring-factor")
    card = collection.by_id()["iv-ring-factor"]
    assert main(["show", card.id, "--seed", str(seed), "--json", "--cards", str(CARDS)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["front"].strip() == render_front(card, draw(card, seed, registry)).strip()


def test_key_point_verdicts_and_correction(fixture_run_parts) -> None:
    collection, registry, _ = fixture_run_parts
    card = collection.by_id()["iv-gather-vs-reduce"]
    inst = draw(card, 0, registry)
    half = judge(card, inst, "Gather concatenates things.", registry)
    assert half.judgement is Judgement.PARTIAL and not half.exact
    assert [m.covered for m in half.coverage.key] == [True, False]
    full = judge(
        card, inst, "Gather 拼接; Reduce computes a SUM into one combined buffer", registry
    )
    assert full.judgement is Judgement.RIGHT and full.coverage.suggested is Rating.EASY
    numeric = collection.by_id()["iv-ring-factor"]
    graded = judge(numeric, draw(numeric, 0, registry), "7 S", registry)
    assert graded.judgement is Judgement.WRONG and graded.exact
    unreadable = judge(numeric, draw(numeric, 0, registry), "lots", registry)
    assert unreadable.invalid


# -- the line protocol --------------------------------------------------------------------


def _plain(argv: list[str], stdin: str, monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["interview", *argv, "--cards", str(CARDS), "--scripts", str(SCRIPTS)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plain_right_answers_follow_the_deeper_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    collection, registry = load([CARDS])
    by_id = collection.by_id()
    ring = by_id["iv-ring-factor"]
    ring_answer = _answer_right(ring, instance_seed(9, ring.id), registry)
    stdin = "\n".join(
        [
            "Gather concatenates; Reduce computes a sum",  # both key points
            "",  # accept: right
            ring_answer,
            "the kv cache and activations",  # self-judged (no key points)
            "r",
        ]
    )
    db = tmp_path / "r.db"
    code, out, _ = _plain(
        ["iv-test", "--seed", "9", "--plain", "--db", str(db)], stdin, monkeypatch, capsys
    )
    assert code == 0
    assert [m[1] for m in HEADER.findall(out)] == [
        "iv-gather-vs-reduce",
        "iv-ring-factor",
        "iv-self-judged",
    ]
    assert f"[2] iv-ring-factor · seed {instance_seed(9, ring.id)} · collectives · numeric" in out
    assert "  [x] Gather concatenates the inputs unchanged  (said: concatenate)" in out
    assert "→ Deeper: put a number on a ring." in out
    assert "scorecard: 100% over 3 question(s) (ended: completed" in out
    assert "saved: interview 1 (iv-test, 100%)" in out


def test_plain_wrong_answers_follow_the_simpler_branch_and_eof_ends_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    code, out, _ = _plain(
        ["iv-test", "--seed", "3", "--plain", "--db", str(db)], "\n\nwrong\n", monkeypatch, capsys
    )
    assert code == 0
    assert [m[1] for m in HEADER.findall(out)] == [
        "iv-gather-vs-reduce",
        "iv-gather-only",
        "iv-which-reduces",
    ]
    assert "→ Simpler: Gather alone." in out
    # The third question got "wrong", which is not a choice answer: asked again, then EOF.
    assert "Try again." in out and "ended: stopped" in out
    assert "scorecard: 0% over 2 question(s)" in out


def test_json_scorecard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    code, out, err = _plain(
        ["iv-test", "--seed", "3", "--json", "--db", str(db)],
        "Gather concatenates\n\n",
        monkeypatch,
        capsys,
    )
    assert code == 0 and "[1] iv-gather-vs-reduce" in err  # the questions go to stderr
    doc = json.loads(out)
    assert {"interview", "seed", "questions", "score", "topics", "weak_cards"} <= set(doc)
    assert doc["interview"] == "iv-test" and doc["seed"] == 3
    (q,) = doc["questions"]
    assert {"card", "seed", "kind", "verdict", "given", "expected", "key_points", "seconds"} <= set(
        q
    )
    assert q["card"] == "iv-gather-vs-reduce" and q["kind"] == "basic" and q["verdict"] == "partial"
    assert q["seed"] == instance_seed(3, "iv-gather-vs-reduce")
    assert [k["covered"] for k in q["key_points"]] == [True, False]
    assert doc["score"] == 50.0 and doc["topics"] == {
        "collectives": {"questions": 1, "score": 50.0}
    }
    assert doc["weak_cards"] == ["iv-gather-vs-reduce"]


def test_history_and_weak_cards_to_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    t0 = datetime.now(UTC)  # the command makes cards due at its own "now"
    sched = Scheduler(Settings())
    with Store.open(db) as store:  # a card with real FSRS state, due in the future
        state = sched.review(store.state("iv-gather-only"), Rating.GOOD, t0, "iv-gather-only")
        store.record_review(
            "iv-gather-only", Rating.GOOD, state, reviewed_at=t0, deck="collectives"
        )
        before = store.state("iv-gather-only")
    assert before.due is not None and before.due > t0
    _plain(
        ["iv-test", "--seed", "3", "--plain", "--db", str(db), "--to-review"],
        "\n\n",
        monkeypatch,
        capsys,
    )
    with Store.open(db) as store:
        after = store.state("iv-gather-only")
        assert store.review_count() == 1  # the interview logged no review
    # Practice never reschedules: only --to-review moved the weak card's due time, nothing else.
    assert after.due is not None and after.due < before.due
    assert (
        after.stability,
        after.difficulty,
        after.reps,
        after.lapses,
        after.last_review,
        after.phase,
    ) == (
        before.stability,
        before.difficulty,
        before.reps,
        before.lapses,
        before.last_review,
        before.phase,
    )
    code, out, _ = _plain(["--history", "--json", "--db", str(db)], "", monkeypatch, capsys)
    doc = json.loads(out)
    assert code == 0 and [i["interview"] for i in doc["interviews"]] == ["iv-test"]
    assert doc["topics"]["collectives"][0]["score"] == 0.0
    code, out, _ = _plain(["--history", "--db", str(db)], "", monkeypatch, capsys)
    assert "collectives" in out and "1 interview(s)" in out


def test_no_save_and_unknown_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    _plain(["iv-test", "--plain", "--no-save", "--db", str(db)], "\n", monkeypatch, capsys)
    with Store.open(db) as store:
        assert store.interviews() == []
    code, _, err = _plain(["iv-tset", "--plain", "--db", str(db)], "", monkeypatch, capsys)
    assert code == 2 and "no interview 'iv-tset' (did you mean 'iv-test'?)" in err
    code, _, err = _plain(
        ["--topic", "cooking", "--plain", "--db", str(db)], "", monkeypatch, capsys
    )
    assert code == 2 and "no interview about 'cooking'" in err


def test_list_json(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _plain(["--list", "--json"], "", monkeypatch, capsys)
    (row,) = json.loads(out)
    assert code == 0 and row["id"] == "iv-test" and row["depth"] == 4 and row["questions"] == 5


class Oracle(io.TextIOBase):
    """An interviewee who reads the last question printed and answers it right (or says
    "I don't know"), through the line protocol."""

    def __init__(self, out: io.StringIO, collection, registry, right: bool) -> None:
        self.out, self.cards, self.registry, self.right = out, collection.by_id(), registry, right
        self.lines = 0

    def isatty(self) -> bool:
        return False

    def readline(self, size: int = -1) -> str:
        self.lines += 1
        if self.lines > 100:  # an answer asked again and again: give up (the test fails)
            return ""
        text = self.out.getvalue()
        if text.rstrip().endswith("answer>"):
            _, card_id, seed = HEADER.findall(text)[-1]
            card = self.cards[card_id]
            if not self.right:
                return "\n"
            return _answer_right(card, int(seed), self.registry) + "\n"
        _, card_id, _ = HEADER.findall(text)[-1]
        # An explanation judged by its key points is accepted as judged; without key
        # points the interviewee judges it.
        return "\n" if self.cards[card_id].key_points else ("r\n" if self.right else "w\n")


@pytest.mark.parametrize("right", [True, False], ids=["right", "wrong"])
def test_every_builtin_script_in_plain(builtin, right: bool) -> None:
    collection, registry, interviews = builtin
    for script in interviews.scripts:
        out = io.StringIO()
        run = InterviewRun(script, 11, collection.by_id(), Clock())
        plain_interview(run, registry, Oracle(out, collection, registry, right), out)
        expected = script.path(Judgement.RIGHT if right else Judgement.WRONG)
        assert [a.card for a in run.asked] == expected, (script.id, out.getvalue()[-2000:])
        assert all(a.verdict is (Judgement.RIGHT if right else Judgement.WRONG) for a in run.asked)
        assert run.ended in ("completed", "max_questions")


# -- the store ----------------------------------------------------------------------------


def test_a_version_4_database_is_migrated_and_keeps_its_reviews(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    with Store.open(db) as store:
        state = Scheduler(Settings()).review(store.state("x"), Rating.GOOD, t0, "x")
        store.record_review("x", Rating.GOOD, state, reviewed_at=t0)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TABLE interviews")
    conn.execute("ALTER TABLE reviews DROP COLUMN given")  # schema version 6
    conn.execute("PRAGMA user_version = 4")
    conn.close()
    with Store.open(db) as store:
        assert store.schema_version == SCHEMA_VERSION and store.review_count() == 1
        record = store.record_interview(
            {
                "interview": "s",
                "topic": "t",
                "seed": 1,
                "score": 50.0,
                "questions": [{}],
                "ended": "completed",
            },
            started_at=t0 + timedelta(hours=1),
        )
        assert [r.id for r in store.interviews(topic="t")] == [record.id]
        assert store.interviews(topic="other") == []
