"""Property-based fuzzing (issue 12): mutated card files, generated command lines and
generated history files. Whatever comes in: no traceback, an exit code of 0, 1 or 2, nothing
written that the command line did not name, and nothing half-imported.

The examples are bounded (``max_examples``, ``deadline=None``) so the file stays well under a
minute on two cores; ``FUZZ_EXAMPLES`` is their total, reported in the issue's closing note.
Valid-but-heavy requests (a 1,024-rank simulation of 1 GiB) are legitimate work, not hostile
input, so the generated numbers are small, or out of range, or junk.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from deck.base.errors import DeckError, Problem
from deck.base.safeio import PathError
from deck.cards.instances import draw, render_front, render_options
from deck.cards.loader import load_text
from deck.cards.model import Rating
from deck.review.history import HistoryError, export_history, import_history, read_history_file
from deck.review.scheduler import CardState, Config, ConfigError, Scheduler, Settings, parse_config
from deck.review.stats import compute_stats
from deck.review.store import Store
from quizcoll.cli.main import build_parser, main
from quizcoll.executables import build_registry

# QUIZCOLL_FUZZ_SCALE=20 runs a deep search (minutes); CI runs scale 1.
SCALE = max(1, int(os.environ.get("QUIZCOLL_FUZZ_SCALE", "1")))
LOADER_EXAMPLES = 400 * SCALE
ARGV_EXAMPLES = 200 * SCALE
HISTORY_EXAMPLES = 250 * SCALE
HISTORY_TEXT_EXAMPLES = 100 * SCALE
SETTINGS_EXAMPLES = 100 * SCALE
HANG_SECONDS = 300
FUZZ_EXAMPLES = (
    LOADER_EXAMPLES + ARGV_EXAMPLES + HISTORY_EXAMPLES + HISTORY_TEXT_EXAMPLES + SETTINGS_EXAMPLES
)


def _settings(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


REGISTRY = build_registry()
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)

SEED_CARDS = """\
deck: fuzz
tags: [fuzz]
cards:
  - id: ring-bytes
    type: numeric
    front: "A ring all-reduce on {n} GPUs over {size}: bytes sent per GPU?"
    back: "**{answer}**"
    params:
      n: [4, 8, 16]
      size: {choices: [256, 1024], unit: MiB}
    answer:
      run: collectives.cost
      args: {collective: all_reduce, algorithm: ring, ranks: "{n}", size: "{size}"}
      field: max_bytes_sent
      unit: MiB
      tolerance: 1%
    verify:
      - claim: "each rank sends 2(N-1)/N S"
        run: collectives.cost
        args: {collective: all_reduce, algorithm: ring, ranks: "{N}", size: "{S}"}
        field: max_bytes_sent
        expect: "2*(N-1)/N*S"
        where: {N: {range: [2, 6]}, S: {choices: [16, 64], unit: MiB}}
        tolerance: 0
  - id: range-card
    type: numeric
    front: "{k} times {m}, with {p} and {q}?"
    params:
      k: {range: [1, 100], step: 3}
      m: {range: [0.5, 2.5]}
      p: {range: [1, 4096], pow2: true, unit: GiB}
      q: {range: [1, 1000], log: true}
      r: {formula: "k * m"}
    answer:
      expr: "k * m"
      tolerance: {rel: 0.01, abs: 0.5}
  - id: formula-card
    type: formula
    front: Per-rank traffic of a ring reduce-scatter?
    variables:
      N: {range: [2, 64], integer: true, meaning: ranks}
      S: {range: [1, 1e9], meaning: bytes}
    answer:
      formula: "(N-1)/N*S"
  - id: choice-card
    type: choice
    deck: other
    front: Which one is a collective?
    options: [AllGather, fopen, qsort]
    correct: [0]
  - id: basic-card
    type: basic
    front: What does Gather do?
    back: The root gets every rank's buffer, in rank order.
    hint: rank order
"""

# Values a mutation puts where a scalar was: numbers out of every range, YAML 1.1 surprises,
# unit overflow, paths, control characters, deep structures, tags.
JUNK_SCALARS = [
    "9" * 400,
    "0x10",
    "010",
    "1:30",
    ".inf",
    "-.inf",
    ".nan",
    "1e300",
    "1.0e+300",
    "-1",
    "0",
    "'inf%'",
    "'1e300 PiB'",
    "'1e29 PiB'",
    "'1G'",
    "../../../../tmp/x",
    '"a\\0b"',
    "~",
    "null",
    "yes",
    "[]",
    "{}",
    "[0.5, 0.7]",
    "{range: [1, 1e12], step: 1}",
    "{range: [1, 1.0e+30], pow2: true}",
    "{range: [0.5, 0.7], integer: true}",
    "{range: [-1.0e+30, 1.0e+30]}",
    "{formula: '10^k'}",
    "!!python/object:os.system ls",
    "&a [*a]",
    "'{nope}'",
    "'= 1/0'",
    "'" + "(" * 500 + "'",
    "[" * 80 + "]" * 80,
    "\t",
    "é" * 100,
]


@contextlib.contextmanager
def _quiet_env(root: Path) -> Iterator[None]:
    """Run with every default path (database, settings) inside ``root`` and cwd there."""
    saved = {k: os.environ.get(k) for k in ("QUIZCOLL_DB", "XDG_CONFIG_HOME", "XDG_DATA_HOME")}
    cwd = os.getcwd()
    os.environ["QUIZCOLL_DB"] = str(root / "env.db")
    os.environ["XDG_CONFIG_HOME"] = str(root / "config")
    os.environ["XDG_DATA_HOME"] = str(root / "data")
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# -- the card loader ----------------------------------------------------------------------


@st.composite
def mutated_cards(draw_: st.DrawFn) -> str:
    lines = SEED_CARDS.splitlines()
    for _ in range(draw_(st.integers(1, 4))):
        i = draw_(st.integers(0, len(lines) - 1))
        kind = draw_(st.sampled_from(["value", "delete", "duplicate", "bytes", "indent"]))
        line = lines[i]
        if kind == "value" and ":" in line:
            head = line.split(":", 1)[0]
            lines[i] = f"{head}: {draw_(st.sampled_from(JUNK_SCALARS))}"
        elif kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, line)
        elif kind == "bytes":
            at = draw_(st.integers(0, len(line)))
            lines[i] = line[:at] + draw_(st.text(max_size=6)) + line[at:]
        else:
            lines[i] = " " * draw_(st.integers(0, 7)) + line.lstrip()
        if not lines:
            break
    return "\n".join(lines) + "\n"


@_settings(LOADER_EXAMPLES)
@given(mutated_cards(), st.integers(0, 2**40))
def test_mutated_card_files_load_or_say_why(text: str, seed: int) -> None:
    cards, problems = load_text(text, "fuzz.yaml", REGISTRY)
    for p in problems:
        assert isinstance(p, Problem)
        assert "Traceback" not in p.format()
    for card in cards:
        assert card.deck.replace("-", "").isalnum()  # a slug: never a path
        try:
            inst = draw(card, seed, REGISTRY)
            render_front(card, inst)
            render_options(card, inst)
        except DeckError:
            pass


# -- every command's arguments ------------------------------------------------------------

SMALL_NUMBERS = ["0", "1", "2", "3", "4", "8", "16", "-1", "1.5", "1e3", "4,096", "6.74B"]
HOSTILE_NUMBERS = [
    "4e19",
    "99999999999999999999",
    "9" * 400,
    "-9" * 50,
    "0x10",
    "nan",
    "inf",
    "-inf",
    "1e300PiB",
    "1e999999999",
    "1G",
    "99999999999999999999xh100",
    "3xh100",
    "",
    " ",
    "\udcff",
    "é",
]
SIZES = ["64B", "1KiB", "4e3", "256", "1MiB", "1e300PiB", "-1GiB", "5us", "1XB", "16MB"]
WORDS = [
    "ring",
    "tree",
    "all_reduce",
    "broadcast",
    "reduce_scatter",
    "all_to_all",
    "hierarchical",
    "nccl",
    "sum",
    "avg",
    "float32",
    "bf16",
    "int4",
    "gptq-g128",
    "q4_k",
    "llama-3-8b",
    "gpt2",
    "mixtral-8x7b",
    "h100",
    "2xh100",
    "rtx-4090",
    "ring-bytes",
    "choice-card",
    "basic-card",
    "fuzz",
    "other",
    "none",
    "full",
    "selective",
    "32k",
    "nvlink",
    "5us",
    "900GB/s",
    "0.9",
    "export",
    "import",
]
PATH_OPTIONS = {"db", "output", "cards", "config", "paths", "file"}


def _paths(root: Path) -> list[str]:
    return [
        str(root / "cards.yaml"),
        str(root / "bad.yaml"),
        str(root / "r.db"),
        str(root / "new.db"),
        str(root / "fifo"),
        str(root / "link"),
        str(root / "dangling"),
        str(root / "dir"),
        f"{root / 'out'}/",
        str(root / "out.md"),
        str(root / "h.json"),
        str(root / "missing" / "deep" / "x"),
        "~nosuchuser-qz/x",
        "",
    ]


INPUT_ONLY = ["/dev/zero", "/dev/null"]  # read, never offered where a command writes


def _setup(root: Path) -> None:
    (root / "cards.yaml").write_text(SEED_CARDS)
    (root / "bad.yaml").write_text(SEED_CARDS.replace('ranks: "{n}"', "ranks: 0x10"))
    (root / "dir").mkdir()
    os.mkfifo(root / "fifo")
    (root / "target.md").write_text("keep")
    (root / "link").symlink_to(root / "target.md")
    (root / "dangling").symlink_to(root / "nowhere")
    with Store.open(root / "r.db") as store:
        for i, rating in enumerate((Rating.GOOD, Rating.AGAIN, Rating.EASY)):
            now = T0 + timedelta(minutes=i)
            state = Scheduler().review(store.state("basic-card"), rating, now, "basic-card")
            store.record_review("basic-card", rating, state, reviewed_at=now, deck="fuzz")
        (root / "h.json").write_text(json.dumps(export_history(store, T0)))


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


PARSER = build_parser()
COMMANDS = [c for c in _subcommands(PARSER) if c != "tui"]  # tui would open the app


@st.composite
def command_lines(draw_: st.DrawFn, root: Path) -> list[str]:
    command = draw_(st.sampled_from(COMMANDS))
    argv = [command]
    parser = _subparser(PARSER, command)
    paths = _paths(root)
    while True:
        nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not nested:
            break
        sub = draw_(st.sampled_from([*nested[0].choices, "bogus"]))
        argv.append(sub)
        if sub == "bogus":
            return argv
        parser = nested[0].choices[sub]
    named = {a.dest for a in parser._actions}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        positional = not action.option_strings
        if not positional and not draw_(st.booleans()):
            continue
        flag = [] if positional else [draw_(st.sampled_from(action.option_strings))]
        if action.nargs == 0:
            argv += flag
            continue
        if action.dest in PATH_OPTIONS:
            pool = paths + (
                INPUT_ONLY if action.dest in ("cards", "config", "paths", "file") else []
            )
        elif action.choices:
            pool = [*map(str, action.choices), "bogus"]
        else:
            pool = SMALL_NUMBERS + HOSTILE_NUMBERS + SIZES + WORDS
        value = draw_(st.sampled_from(pool) | st.text(max_size=12))
        if flag and value.startswith("-"):
            argv.append(f"{flag[0]}={value}")  # so argparse reads "-1" as a value
        else:
            argv += [*flag, value]
    # Keep runs small: the built-in collection is checked elsewhere, here the tmp cards.
    if "cards" in named and "--cards" not in argv:
        argv += ["--cards", str(root / "cards.yaml")]
    if command == "check" and not any(a.startswith(str(root)) or a in INPUT_ONLY for a in argv):
        argv.append(str(root / "cards.yaml"))
    if "db" in named and "--db" not in argv:
        argv += ["--db", str(root / "r.db")]
    return argv


@contextlib.contextmanager
def _hang_guard(argv: list[str]) -> Iterator[None]:
    """Turn a hang (a blocking open of the FIFO: how `check --mutate FIFO` was found) into a
    failure naming the command line, instead of a test run that never ends. Not a speed limit:
    every example here takes well under a second."""

    def hung(signum: int, frame: object) -> None:
        raise AssertionError(f"hung: {argv}")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if not p.name.startswith(".")}


def _named(argv: list[str], root: Path) -> set[Path]:
    """Paths the command line (or QUIZCOLL_DB) names: the only places a write may land."""
    out = {root / "env.db", root / "env.db.sessions", root / "config", root / "data"}
    for arg in argv:
        flag_form = arg.startswith("-") and "=" in arg  # --db=PATH
        text = (arg.split("=", 1)[1] if flag_form else arg).rstrip("/")
        if not text or "\x00" in text:
            continue
        p = root / text  # a relative path lands in the cwd, which is root
        # SQLite's -wal/-shm, and the review-session lock (deck.review.store.sessions)
        siblings = ("-wal", "-shm", ".sessions")
        out |= {p, *(p.with_name(p.name + s) for s in siblings)}
    return out


@_settings(ARGV_EXAMPLES)
@given(st.data())
def test_every_command_line_ends_cleanly(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _setup(root)
        argv = data.draw(command_lines(root), label="argv")
        lines = data.draw(st.lists(st.sampled_from(["1", "3", "a", "u", "", "\udcff", "9" * 5000])))
        before = _files(root)
        stdout, stderr = io.StringIO(), io.StringIO()
        saved = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = io.StringIO("\n".join(lines)), stdout, stderr
        try:
            with _quiet_env(root), _hang_guard(argv):
                code = main(argv)
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
        err = stderr.getvalue()
        event(f"{argv[0]} exit {code}")
        assert code in (0, 1, 2), (argv, code, err)
        assert "Traceback" not in err, (argv, err)
        if code == 2:  # bad input is named on stderr (or in the JSON document asked for)
            assert err.strip() or "--json" in argv, argv
        new = _files(root) - before
        allowed = _named(argv, root)
        # a named path, inside a named folder, or a folder on the way to a named path
        stray = [
            p for p in new if not any(p == a or a in p.parents or p in a.parents for a in allowed)
        ]
        assert not stray, (argv, stray)
        assert (root / "target.md").read_text() == "keep"  # never written through the link
        assert (root / "link").is_symlink() and (root / "fifo").is_fifo()


# -- history import -----------------------------------------------------------------------

JSON_JUNK = st.one_of(
    st.sampled_from(
        [
            float("nan"),
            float("inf"),
            -1,
            0,
            10**30,
            2**70,
            True,
            None,
            "",
            "\udcff",
            "../x",
            "0001-01-01T00:00:00+00:00",
            "9999-12-31T23:59:59+00:00",
            "2024-03-01T09:00:00",
            "2024-13-45T99:00:00+00:00",
            "limbo",
            "learning",
            "review",
            [],
            {},
            [[[[]]]],
        ]
    ),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
)


def _leaves(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(doc, dict):
        return [path] + [q for k, v in doc.items() for q in _leaves(v, (*path, k))]
    if isinstance(doc, list):
        return [path] + [q for i, v in enumerate(doc) for q in _leaves(v, (*path, i))]
    return [path]


def _history() -> dict[str, Any]:
    with Store.in_memory() as store:
        sched = Scheduler()
        for i, rating in enumerate((Rating.GOOD, Rating.AGAIN, Rating.GOOD, Rating.EASY)):
            card = f"card-{i % 2}"
            now = T0 + timedelta(days=i)
            state = sched.review(store.state(card), rating, now, card)
            store.record_review(card, rating, state, reviewed_at=now, deck="d", seed=i, answer="x")
        return export_history(store, T0 + timedelta(days=9))


HISTORY = _history()
LEAVES = [p for p in _leaves(HISTORY) if p]


@_settings(HISTORY_EXAMPLES)
@given(st.lists(st.tuples(st.sampled_from(LEAVES), JSON_JUNK), min_size=1, max_size=3))
def test_history_import_is_all_or_nothing(changes: list[tuple[tuple[Any, ...], Any]]) -> None:
    doc = copy.deepcopy(HISTORY)
    for path, value in changes:
        target: Any = doc
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change replaced a parent
    with Store.in_memory() as store:
        try:
            import_history(store, doc, "fuzz.json")
        except HistoryError as exc:
            event("refused")
            assert "\n" not in str(exc)
            assert store.review_count() == 0 and store.cards() == {}
            return
        event("imported")
        # Whatever was accepted is usable: it reads back, schedules and counts.
        cards = store.cards()
        reviews = store.reviews()
        compute_stats(store, [], Config(), T0 + timedelta(days=30))
        for record in cards.values():
            Scheduler().review(record.state, Rating.GOOD, T0 + timedelta(days=400), record.card_id)
        assert len(reviews) <= len(doc["reviews"])


@_settings(HISTORY_TEXT_EXAMPLES)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(str.encode),
        st.sampled_from([b"[" * 100_000, b"1" * 5000, b'{"format": "quizcoll-history"}']),
    )
)
def test_history_files_of_any_bytes(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "h.json"
        path.write_bytes(data)
        try:
            doc = read_history_file(path)
            with Store.in_memory() as store:
                import_history(store, doc, str(path))
        except (HistoryError, PathError) as exc:
            assert "\n" not in str(exc)


# -- the settings file ----------------------------------------------------------------------

TOML_VALUES = st.one_of(
    st.sampled_from(
        [
            "nan",
            "inf",
            "-inf",
            "1e300",
            "0",
            "-1",
            "9" * 30,
            "true",
            '"10m"',
            '"1e300d"',
            '"99999999999d"',
            '"-5m"',
            "[]",
            '["1m", "10m"]',
            "[nan]",
            "[inf]",
            "[1e300]",
            "[[1]]",
            '["x"]',
            "0.9",
            "0.5",
            "{}",
            "[" * 200 + "]" * 200,
        ]
    ),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.lists(st.floats(allow_nan=False, allow_infinity=False).map(repr), max_size=25).map(
        lambda xs: "[" + ", ".join(xs) + "]"
    ),
)
SETTING_KEYS = [f.name for f in fields(Settings)] + ["unknown"]


@_settings(SETTINGS_EXAMPLES)
@given(
    st.lists(
        st.tuples(st.sampled_from(SETTING_KEYS), TOML_VALUES),
        max_size=4,
        unique_by=lambda kv: kv[0],
    )
)
def test_settings_files_load_or_say_why(entries: list[tuple[str, str]]) -> None:
    text = "[review]\n" + "".join(f"{key} = {value}\n" for key, value in entries)
    try:
        config = parse_config(text)
    except ConfigError as exc:
        assert "\n" not in str(exc)
        return
    settings_ = config.default
    sched = Scheduler(settings_)  # usable: schedules a review
    sched.review(
        Scheduler().review(CardState(), Rating.GOOD, T0), Rating.GOOD, T0 + timedelta(days=2)
    )
