"""`quizcoll optimize`: history → fsrs review logs, the settings-file writer, the refusals,
the missing-extra message, and (only where torch, pandas and tqdm are installed) a real fit."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tomllib
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs
import pytest

from deck.cards.model import Rating
from deck.review.scheduler import (
    CardState,
    ConfigError,
    Phase,
    Scheduler,
    Settings,
    fsrs_card_id,
    load_config,
)
from deck.review.store import Review, Snapshot, Store
from quizcoll import optimize
from quizcoll.cli.main import main

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
# Inside fsrs's bounds and unlike the defaults, so a write is visible.
PARAMS = tuple(
    round(w * 1.05, 4) if i in (0, 1, 2, 3) else w
    for i, w in enumerate(optimize.DEFAULT_PARAMETERS)
)


# -- synthetic histories --------------------------------------------------------------------


def _review(
    card_id: str,
    at: datetime,
    rating: Rating,
    *,
    deck: str = "d",
    phase: Phase = Phase.REVIEW,
    practice: bool = False,
    duration_ms: int | None = 4000,
) -> Review:
    before = (
        CardState()
        if phase is Phase.NEW
        else CardState(phase=phase, stability=3.0, difficulty=5.0, due=at, last_review=at)
    )
    after = CardState(
        phase=Phase.REVIEW,
        stability=4.0,
        difficulty=5.0,
        due=at + timedelta(days=4),
        last_review=at,
        reps=1,
    )
    return Review(
        uid=re.sub(r"[^A-Za-z0-9]", "", f"{card_id}{at.isoformat()}")[-64:],  # a store id
        card_id=card_id,
        deck=deck,
        reviewed_at=at,
        rating=rating,
        before=Snapshot(state=before),
        after=Snapshot(state=after),
        duration_ms=duration_ms,
        practice=practice,
    )


def simulated_history(
    cards: int, reviews_per_card: int, *, deck: str = "d", seed: int = 7
) -> list[Review]:
    """Reviews at each due time as the real scheduler sets it (fuzz off), random ratings."""
    rng = random.Random(seed)
    # Intervals capped at a year: eleven reviews stay within the store's 2000–2199 dates.
    scheduler = Scheduler(Settings(fuzz=False, maximum_interval=365))
    out: list[Review] = []
    for n in range(cards):
        card_id = f"{deck}-card-{n}"
        state = CardState()
        at = T0 + timedelta(hours=n)
        for _ in range(reviews_per_card):
            rating = rng.choices(
                [Rating.AGAIN, Rating.HARD, Rating.GOOD, Rating.EASY], weights=[12, 8, 75, 5]
            )[0]
            after = scheduler.review(state, rating, at, card_id)
            out.append(
                Review(
                    uid=re.sub(r"[^A-Za-z0-9]", "", f"{card_id}{len(out)}"),
                    card_id=card_id,
                    deck=deck,
                    reviewed_at=at,
                    rating=rating,
                    before=Snapshot(state=state),
                    after=Snapshot(state=after),
                    duration_ms=rng.randrange(2000, 20000),
                )
            )
            state = after
            at = max(after.due, at + timedelta(minutes=1))
    return out


def _database(path: Path, reviews: list[Review]) -> Path:
    with Store.open(path) as store:
        store.merge([], reviews)
    return path


# -- history → review logs (no torch) -------------------------------------------------------


def test_history_becomes_review_logs() -> None:
    history = [
        _review("a", T0, Rating.AGAIN, phase=Phase.NEW),
        _review("a", T0 + timedelta(minutes=10), Rating.GOOD, phase=Phase.LEARNING),
        _review("a", T0 + timedelta(days=2), Rating.GOOD, duration_ms=None),
        _review("a", T0 + timedelta(days=2, hours=23), Rating.HARD),  # < 24 h: not spaced
        _review("a", T0 + timedelta(days=9), Rating.EASY),
        _review("a", T0 + timedelta(days=4), Rating.GOOD, practice=True),
        _review("b", T0 + timedelta(hours=1), Rating.GOOD, phase=Phase.NEW, deck="e"),
        _review("b", T0 + timedelta(days=3), Rating.AGAIN, deck="e"),
        _review("c", T0 + timedelta(days=1), Rating.GOOD),  # its history starts mid-way
    ]
    result = optimize.review_logs(reversed(history))  # order of the input does not matter

    assert result.reviews == 7 and result.cards == 2
    assert result.practice_left_out == 1
    assert result.cards_left_out == ("c",)
    assert result.spaced == 3  # a: +2d, +9d; b: +3d
    assert result.decks == ("d", "e")
    a = [log for log in result.logs if log.card_id == fsrs_card_id("a")]
    assert [log.rating for log in a] == [
        fsrs.Rating.Again,
        fsrs.Rating.Good,
        fsrs.Rating.Good,
        fsrs.Rating.Hard,
        fsrs.Rating.Easy,
    ]
    assert [log.review_duration for log in a] == [4000, 4000, None, 4000, 4000]
    assert all(log.review_datetime.tzinfo is UTC for log in result.logs)
    assert fsrs_card_id("a") == zlib.crc32(b"a")  # the scheduler's own mapping

    only_e = optimize.review_logs(history, deck="e")
    assert (only_e.reviews, only_e.spaced, only_e.practice_left_out) == (2, 1, 0)
    assert {log.card_id for log in only_e.logs} == {fsrs_card_id("b")}


def test_card_keys_stay_distinct_on_a_crc32_collision() -> None:
    assert zlib.crc32(b"plumless") == zlib.crc32(b"buckeroo")  # a known collision
    keys = optimize.card_keys(["plumless", "buckeroo", "other"])
    assert len(set(keys.values())) == 3
    assert keys["buckeroo"] == fsrs_card_id("buckeroo")  # first in sorted order keeps it
    assert keys == optimize.card_keys(["other", "buckeroo", "plumless"])  # stable


def test_spaced_count_mirrors_fsrs() -> None:
    day = timedelta(days=1)
    assert optimize.count_spaced([[T0, T0 + day, T0 + day + timedelta(hours=23)]]) == 1
    # only a card's first 64 reviews count
    assert optimize.count_spaced([[T0 + i * day for i in range(100)]]) == 63


# -- writing the settings file (no torch) ---------------------------------------------------

CONFIG = """\
# my review settings
[review]                      # defaults for every deck
desired_retention = 0.85
learning_steps = [
    "1m",   # first step
    "10m",
]

# per deck
[deck.collectives]
desired_retention = 0.9
"""


def test_write_parameters_round_trip_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    path.chmod(0o640)

    optimize.write_parameters(path, PARAMS, note="fitted from 600 reviews")
    text = path.read_text(encoding="utf-8")
    added = [line for line in text.splitlines() if line not in CONFIG.splitlines()]
    assert len(added) == 1 and added[0].startswith("parameters = [")
    assert added[0].endswith("# fitted from 600 reviews")
    assert text.replace(added[0] + "\n", "") == CONFIG  # every other byte as it was
    assert text.index("parameters") < text.index("# per deck")  # inside [review]
    assert path.stat().st_mode & 0o777 == 0o640

    config = load_config(path)
    assert config.default.parameters == PARAMS
    assert config.default.desired_retention == 0.85
    assert config.for_deck("collectives").parameters == PARAMS  # decks inherit [review]
    assert config.for_deck("collectives").desired_retention == 0.9
    # and scheduling uses them
    assert Scheduler(config.for_deck("collectives")).fsrs.parameters == PARAMS

    # writing again replaces the key in place
    again = tuple(w * 1.01 if i == 0 else w for i, w in enumerate(PARAMS))
    optimize.write_parameters(path, again)
    text2 = path.read_text(encoding="utf-8")
    assert text2.count("parameters =") == 1
    assert load_config(path).default.parameters == again

    # per deck: into the existing table, and a new table for a deck without one
    optimize.write_parameters(path, PARAMS, "collectives")
    optimize.write_parameters(path, optimize.DEFAULT_PARAMETERS, "memory")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["deck"]["collectives"] == {"desired_retention": 0.9, "parameters": list(PARAMS)}
    assert data["deck"]["memory"] == {"parameters": list(optimize.DEFAULT_PARAMETERS)}
    assert data["review"]["parameters"] == list(again)
    assert data["review"]["learning_steps"] == ["1m", "10m"]
    config = load_config(path)
    assert config.for_deck("collectives").parameters == PARAMS
    assert config.for_deck("memory").parameters == optimize.DEFAULT_PARAMETERS
    assert config.for_deck("other").parameters == again


@pytest.mark.parametrize(
    "before",
    [
        "",  # absent or empty: the table is created
        "[review]\nparameters = [\n"  # a multi-line key, replaced whole
        + "".join(f"  {w},  # w{i}\n" for i, w in enumerate(optimize.DEFAULT_PARAMETERS))
        + "]  # old\nfuzz = false\n",
        "[review]\r\nfuzz = false\r\n",  # CRLF kept
        "[review]\nfuzz = false",  # no newline at the end
        '[deck."odd name"]\nfuzz = false\n',
    ],
    ids=["empty", "multiline", "crlf", "no-final-newline", "quoted-deck"],
)
def test_write_parameters_forms(tmp_path: Path, before: str) -> None:
    path = tmp_path / "sub" / "config.toml"
    if before:
        path.parent.mkdir()
        path.write_bytes(before.encode())
    deck = "odd name" if "odd name" in before else None
    optimize.write_parameters(path, PARAMS, deck)
    raw = path.read_bytes().decode()
    assert load_config(path).for_deck(deck).parameters == PARAMS
    if "\r\n" in before:
        assert "\n" not in raw.replace("\r\n", "")
    if "fuzz = false" in before:
        assert load_config(path).for_deck(deck).fuzz is False
    assert raw.count("parameters") == 1
    assert list(tmp_path.rglob(".*.tmp")) == []


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[review]\ndesired_retention = 2\n", ConfigError),  # quizcoll rejects it already
        ("[review\n", optimize.ConfigWriteError),  # not TOML
        ("[deck]\ncollectives = { fuzz = false }\n", optimize.ConfigWriteError),  # inline table
    ],
    ids=["bad-value", "not-toml", "inline-table"],
)
def test_write_parameters_leaves_a_file_it_cannot_edit(
    tmp_path: Path, text: str, error: type[Exception]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(error) as info:
        optimize.write_parameters(path, PARAMS, "collectives")
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert path.read_text(encoding="utf-8") == text
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


# -- the command: refusals and the missing extra (no torch) ---------------------------------


@pytest.fixture
def settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setattr("deck.review.scheduler.config_path", lambda: path)
    return path


def test_too_few_reviews_is_refused(
    tmp_path: Path, settings_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _database(tmp_path / "r.db", simulated_history(cards=5, reviews_per_card=6))
    assert main(["optimize", "--db", str(db), "--write"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "not enough history" in err and "512" in err and "nothing written" in err
    assert not settings_file.exists()

    assert main(["optimize", "--db", str(db), "--min-reviews", "1000", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["fitted"] is False and doc["written"] is False
    assert doc["reviews"] == 30 and doc["min_reviews"] == 1000

    assert main(["optimize", "--db", str(db), "--deck", "nope"]) == 1
    assert "no reviews of deck 'nope'" in capsys.readouterr().err

    absent = tmp_path / "absent.db"
    assert main(["optimize", "--db", str(absent)]) == 1
    assert not absent.exists()  # nothing created just to find it empty

    assert main(["optimize", "--db", str(db), "--min-reviews", "-1"]) == 2


def test_missing_optimizer_extra_is_one_line_exit_2(
    tmp_path: Path,
    settings_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = _database(tmp_path / "r.db", simulated_history(cards=5, reviews_per_card=6))
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` raises ImportError
    assert main(["optimize", "--db", str(db), "--min-reviews", "1", "--write"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert 'pip install "quizcoll[optimizer]"' in err and "pandas" in err
    assert not settings_file.exists()

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(optimize.OptimizerMissing, match="optimizer"):
        optimize.load_optimizer()


def test_refusal_and_help_import_nothing_heavy(tmp_path: Path) -> None:
    """torch and pandas load only for the fit; --help and a refusal load neither (nor numpy)."""
    db = _database(tmp_path / "r.db", simulated_history(cards=2, reviews_per_card=3))
    code = (
        "import sys\nfrom quizcoll.cli.main import main\n"
        "try:\n    main(['optimize', '--help'])\nexcept SystemExit:\n    pass\n"
        f"assert main(['optimize', '--db', {str(db)!r}]) == 1\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert not {"torch", "pandas", "tqdm", "numpy"} & set(out.stdout.split())


def test_default_minimum_is_fsrs_threshold() -> None:
    from quizcoll.cli import cmd_optimize

    assert cmd_optimize.DEFAULT_MIN_REVIEWS == optimize.FSRS_MIN_SPACED_REVIEWS == 512


# -- a real fit (only with the optimizer extra) ---------------------------------------------

# The test extra installs the optimizer's needs (torch, pandas, tqdm): the real fit always
# runs; a missing one fails here instead of turning into a skip.


def test_fit_writes_parameters_that_scheduling_uses(
    tmp_path: Path, settings_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = simulated_history(cards=90, reviews_per_card=11, deck="collectives")
    history += [  # practice reviews do not count
        _review(
            "collectives-card-0",
            T0 + timedelta(days=3 + i),
            Rating.AGAIN,
            deck="collectives",
            practice=True,
        )
        for i in range(5)
    ]
    db = _database(tmp_path / "r.db", history)
    settings_file.parent.mkdir()
    settings_file.write_text("[review]\ndesired_retention = 0.88\n", encoding="utf-8")

    code = main(["optimize", "--db", str(db), "--deck", "collectives", "--write", "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    doc = json.loads(out.out)
    assert doc["fitted"] is True and doc["written"] is True
    assert doc["practice_left_out"] == 5 and doc["spaced_reviews"] >= 512
    fitted = tuple(doc["parameters"])
    assert len(fitted) == len(optimize.DEFAULT_PARAMETERS) and fitted != doc["default_parameters"]
    assert doc["log_loss"] is not None and doc["default_log_loss"] is not None
    assert doc["log_loss"] <= doc["default_log_loss"] + 1e-9

    config = load_config(settings_file)
    assert config.default.parameters is None and config.default.desired_retention == 0.88
    settings = config.for_deck("collectives")
    assert settings.parameters == fitted and settings.desired_retention == 0.88
    assert Scheduler(settings).fsrs.parameters == fitted

    # the readable report, without writing
    assert main(["optimize", "--db", str(db), "--deck", "collectives"]) == 0
    report = capsys.readouterr().out
    assert "w20" in report and "fitted" in report and "current" in report
    assert "not written" in report
