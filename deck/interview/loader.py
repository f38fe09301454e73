"""Loading and validating interview script files, every problem as ``PATH:LINE:COL``.

A script file is a YAML mapping with an ``interviews:`` list (a kind of file of its own: the
card loader leaves such files alone). Each script::

    - id: allreduce-three-questions        # lowercase letters, digits, '-'; unique
      title: The three questions interviewers always ask
      topic: collectives                   # a slug: --topic picks scripts by it
      minutes: 15                          # the time budget (1 to 180)
      max_questions: 8                     # at most this many questions (1 to 30)
      intro: Optional text said before the first question.
      questions:                           # the first one starts the interview
        - card: gather-vs-reduce
          follow_ups:                      # by verdict: right, partial (default: right), wrong
            right: {card: why-allreduce-not-reduce, why: "Good. So why ..."}
            wrong: {card: gather-what-it-does, why: "Let's step back: ..."}

Every follow-up must lead to a question of the same script, the graph must have no cycle
and every question must be reachable from the first. :func:`card_problems` then checks the
card ids against a collection. Every problem is reported and every valid script returned.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from deck.answers.keypoints import Judgement
from deck.base.errors import Problem
from deck.cards.loader.base import _Base, _describe
from deck.cards.registry import suggest
from deck.cards.yamlsource import LList, LMap, Pos, parse_yaml, read_text
from deck.interview.model import FollowUp, Question, Script

ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FILE_KEYS = ("interviews",)
SCRIPT_KEYS = ("id", "title", "topic", "minutes", "max_questions", "intro", "questions")
QUESTION_KEYS = ("card", "follow_ups")
FOLLOW_UP_KEYS = ("card", "why")
VERDICT_KEYS = tuple(j.value for j in Judgement)
MAX_MINUTES = 180
MAX_QUESTIONS = 30
MAX_NODES = 100
SCRIPT_SUFFIXES = (".yaml", ".yml")


def is_script_data(data: Any) -> bool:
    """Whether parsed YAML is an interview script file (an ``interviews:`` key, no ``cards:``)."""
    return isinstance(data, dict) and "interviews" in data and "cards" not in data


def script_files(paths: Iterable[Path]) -> list[Path]:
    """Folders expanded into their YAML files (recursively, sorted); files kept as given."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(
                sorted(f for f in p.rglob("*") if f.suffix in SCRIPT_SUFFIXES and f.is_file())
            )
        else:
            out.append(p)
    return out


def load_scripts(
    paths: Sequence[Path], *, display_root: Path | None = None, skip_other: bool = False
) -> tuple[list[Script], list[Problem]]:
    """Every valid script under ``paths`` and every problem; never raises for bad content.
    Script ids must be unique across all the files. With ``skip_other``, files that are
    not script files (card files) are passed over in silence."""
    scripts: list[Script] = []
    problems: list[Problem] = []
    seen: dict[str, Script] = {}
    for path in script_files(paths):
        shown = _display(path, display_root)
        if not path.exists():
            problems.append(Problem(shown, 0, 0, "no such file or folder"))
            continue
        text, problem = read_text(path, shown)
        if problem is not None:
            if not skip_other:  # else the card loader reports the file
                problems.append(problem)
            continue
        assert text is not None
        if skip_other:
            data, problem = parse_yaml(text, shown)
            if problem is not None or not is_script_data(data):
                continue
        found, file_problems = load_script_text(text, shown)
        problems.extend(file_problems)
        for script in found:
            if script.id in seen:
                loc = script.location
                problems.append(
                    Problem(
                        loc.path,
                        loc.line,
                        loc.col,
                        f"duplicate interview id, first defined at {seen[script.id].location}",
                        None,
                        f"interview {script.id!r}: id",
                    )
                )
                continue
            seen[script.id] = script
            scripts.append(script)
    return scripts, problems


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            pass
    return str(path)


def load_script_text(text: str, path: str) -> tuple[list[Script], list[Problem]]:
    """The valid scripts of one file's text and every problem (``path`` names it in messages)."""
    data, problem = parse_yaml(text, path)
    if problem is not None:
        message = problem.message.replace("'cards:'", "'interviews:'")
        return [], [replace(problem, message=message)]
    return _ScriptValidator(path).file(data)


def card_problems(scripts: Iterable[Script], card_ids: Collection[str]) -> list[Problem]:
    """A problem for every question or follow-up that names a card not in ``card_ids``."""
    out: list[Problem] = []
    for script in scripts:
        for i, q in enumerate(script.questions):
            if q.card not in card_ids:
                loc = q.location or script.location
                out.append(
                    Problem(
                        loc.path,
                        loc.line,
                        loc.col,
                        f"no card with id {q.card!r}{suggest(q.card, card_ids)}",
                        None,
                        f"interview {script.id!r}: questions[{i}].card",
                    )
                )
    return out


class _ScriptValidator(_Base):
    """Validates one parsed script file, collecting problems instead of stopping."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []
        self.card_id = None
        self.registry = None
        self.constant_names = frozenset()
        self.script_id: str | None = None

    def report(self, pos: Pos | None, field: str | None, message: str) -> None:
        line, col = (pos.line, pos.col) if pos else (0, 0)
        if self.script_id is not None:
            field = f"interview {self.script_id!r}" + (f": {field}" if field else "")
        self.problems.append(Problem(self.path, line, col, message, None, field))

    def file(self, data: Any) -> tuple[list[Script], list[Problem]]:
        if not isinstance(data, LMap):
            self.report(
                Pos(1, 1),
                None,
                f"expected a mapping with an 'interviews:' list, found {_describe(data)}",
            )
            return [], self.problems
        self.unknown_keys(data, FILE_KEYS, "", " in an interview script file")
        raw = data.get("interviews")
        if not isinstance(raw, LList) or not raw:
            self.report(
                data.where("interviews"), "interviews", "expected a non-empty list of interviews"
            )
            return [], self.problems
        scripts: list[Script] = []
        seen: dict[str, Pos] = {}
        for i, item in enumerate(raw):
            self.script_id = None
            script = self.script(item, raw.where(i), i)
            if script is None:
                continue
            if script.id in seen:
                first = seen[script.id]
                self.report(
                    raw.where(i),
                    "id",
                    f"duplicate interview id, first defined at {self.path}:{first.line}:{first.col}",
                )
                continue
            seen[script.id] = raw.where(i)
            scripts.append(script)
        self.script_id = None
        self.problems.sort(key=lambda p: (p.line, p.col))
        return scripts, self.problems

    def script(self, m: Any, pos: Pos, index: int) -> Script | None:
        if not isinstance(m, LMap):
            self.report(
                pos,
                f"interviews[{index}]",
                f"expected an interview (a mapping), found {_describe(m)}",
            )
            return None
        before = len(self.problems)
        self.script_id = f"#{index + 1}"
        script_id = self.slug(m, "id")
        self.script_id = script_id or self.script_id
        self.unknown_keys(m, SCRIPT_KEYS, "")
        title = self.text(m, "title", "title", required=True)
        if title is not None and not title.strip():
            self.report(m.where("title"), "title", "is empty")
        topic = self.slug(m, "topic")
        intro = self.text(m, "intro", "intro") or ""
        minutes = self.bounded(m, "minutes", 1, MAX_MINUTES, integer=False)
        max_questions = self.bounded(m, "max_questions", 1, MAX_QUESTIONS, integer=True)
        questions = self.questions(m)
        if len(self.problems) > before or None in (script_id, title, topic, minutes, max_questions):
            return None
        return Script(
            id=str(script_id),
            title=str(title).strip(),
            topic=str(topic),
            minutes=float(minutes or 0),
            max_questions=int(max_questions or 0),
            questions=questions,
            intro=intro.strip(),
            location=self.loc(pos),
        )

    def slug(self, m: LMap, key: str) -> str | None:
        value = self.text(m, key, key, required=True)
        if value is None:
            return None
        if not ID_PATTERN.match(value):
            self.report(m.where(key), key, f"{value[:60]!r}: use lowercase letters, digits and '-'")
            return None
        return value

    def bounded(self, m: LMap, key: str, low: int, high: int, *, integer: bool) -> float | None:
        if key not in m:
            self.report(m.pos, key, "missing (required)")
            return None
        value = self.number(m[key], m.where(key), key, m.raw.get(key))
        if value is None:
            return None
        if integer and value != int(value):
            self.report(m.where(key), key, f"expected a whole number, found {value}")
            return None
        if not low <= value <= high:
            self.report(m.where(key), key, f"{value:g} is out of range: {low} to {high}")
            return None
        return value

    def questions(self, m: LMap) -> tuple[Question, ...]:
        raw = m.get("questions")
        if not isinstance(raw, LList) or not raw:
            self.report(
                m.where("questions") if "questions" in m else m.pos,
                "questions",
                "expected a non-empty list of questions",
            )
            return ()
        if len(raw) > MAX_NODES:
            self.report(
                m.where("questions"), "questions", f"{len(raw)} questions; at most {MAX_NODES}"
            )
            return ()
        out: list[Question] = []
        where: dict[str, Pos] = {}
        for i, item in enumerate(raw):
            field = f"questions[{i}]"
            if not isinstance(item, LMap):
                self.report(raw.where(i), field, "expected a question: a mapping with 'card'")
                continue
            self.unknown_keys(item, QUESTION_KEYS, f"{field}.")
            card = self.text(item, "card", f"{field}.card", required=True)
            if card is None:
                continue
            if not ID_PATTERN.match(card):
                self.report(item.where("card"), f"{field}.card", f"{card[:60]!r} is not a card id")
                continue
            if card in where:
                first = where[card]
                self.report(
                    item.where("card"),
                    f"{field}.card",
                    f"card {card!r} is already a question at line {first.line}: ask a card once",
                )
                continue
            where[card] = item.where("card")
            out.append(Question(card, self.follow_ups(item, field), self.loc(item.where("card"))))
        self.graph(out)
        return tuple(out)

    def follow_ups(self, item: LMap, field: str) -> dict[Judgement, FollowUp]:
        if "follow_ups" not in item:
            return {}
        raw = item["follow_ups"]
        if not isinstance(raw, LMap):
            self.report(
                item.where("follow_ups"),
                f"{field}.follow_ups",
                f"expected a mapping of right/partial/wrong, found {_describe(raw)}",
            )
            return {}
        out: dict[Judgement, FollowUp] = {}
        for key, value in raw.items():
            sub = f"{field}.follow_ups.{key}"
            if key not in VERDICT_KEYS:
                self.report(
                    raw.key_pos.get(key),
                    sub,
                    f"unknown verdict{suggest(str(key), VERDICT_KEYS)}; "
                    "expected right, partial or wrong",
                )
                continue
            if not isinstance(value, LMap):
                self.report(
                    raw.where(key), sub, f"expected {{card, why}}, found {_describe(value)}"
                )
                continue
            self.unknown_keys(value, FOLLOW_UP_KEYS, f"{sub}.")
            card = self.text(value, "card", f"{sub}.card", required=True)
            why = self.text(value, "why", f"{sub}.why", required=True)
            if why is not None and not why.strip():
                # Reported; still an edge of the graph, so no "never reached" follows from it.
                self.report(
                    value.where("why"), f"{sub}.why", "is empty: say why this question comes next"
                )
            if card is None or why is None:
                continue
            out[Judgement(key)] = FollowUp(card, why.strip(), self.loc(value.where("card")))
        return out

    def graph(self, questions: list[Question]) -> None:
        """Follow-ups lead to questions of the script, without cycles, reaching every one."""
        cards = {q.card: q for q in questions}
        index = {q.card: i for i, q in enumerate(questions)}
        for q in questions:
            for j, f in q.follow_ups.items():
                if f.card not in cards:
                    self.report(
                        self.pos_of(f),
                        f"questions[{index[q.card]}].follow_ups.{j.value}.card",
                        f"{f.card!r} is not a question of this interview{suggest(f.card, cards)}",
                    )
        # Depth-first search; a grey node met again closes a cycle.
        colour: dict[str, int] = {}

        def visit(card: str) -> None:
            colour[card] = 1
            for j, f in cards[card].follow_ups.items():
                if f.card not in cards:
                    continue
                if colour.get(f.card) == 1:
                    self.report(
                        self.pos_of(f),
                        f"questions[{index[card]}].follow_ups.{j.value}.card",
                        f"{card!r} → {f.card!r} closes a cycle: an interview never asks a "
                        "card twice",
                    )
                elif f.card not in colour:
                    visit(f.card)
            colour[card] = 2

        if not questions:
            return
        visit(questions[0].card)
        unreached = [q for q in questions if q.card not in colour]
        for q in unreached:
            loc = q.location
            self.report(
                Pos(loc.line, loc.col) if loc else None,
                f"questions[{index[q.card]}]",
                f"{q.card!r} is never reached from the first question ({questions[0].card!r})",
            )
        for q in unreached:
            if q.card not in colour:
                visit(q.card)

    @staticmethod
    def pos_of(f: FollowUp) -> Pos | None:
        return Pos(f.location.line, f.location.col) if f.location else None
