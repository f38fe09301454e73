"""Scheduling goes through fsrs: same intervals as fsrs itself, settings from TOML, state round trips."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import fsrs
import pytest

from deck.cards.model import Rating
from deck.review.scheduler import (
    CardState,
    Config,
    ConfigError,
    Phase,
    Scheduler,
    Settings,
    format_interval,
    load_config,
    parse_config,
    parse_duration,
)

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
SEQUENCE = [
    Rating.GOOD,
    Rating.GOOD,
    Rating.HARD,
    Rating.GOOD,
    Rating.AGAIN,
    Rating.GOOD,
    Rating.EASY,
    Rating.GOOD,
]


def _run_ours(settings: Settings) -> list[CardState]:
    scheduler = Scheduler(settings)
    state, now, out = CardState(), T0, []
    for rating in SEQUENCE:
        state = scheduler.review(state, rating, now, "card-a")
        out.append(state)
        now = state.due  # review exactly when due: a frozen clock stepped by hand
    return out


def test_intervals_match_fsrs_for_a_fixed_sequence() -> None:
    settings = Settings(fuzz=False)
    ours = _run_ours(settings)
    reference = fsrs.Scheduler(enable_fuzzing=False)
    card, now = fsrs.Card(card_id=1, due=T0), T0
    for rating, mine in zip(SEQUENCE, ours, strict=True):
        card, _ = reference.review_card(card, fsrs.Rating(int(rating)), review_datetime=now)
        assert mine.due == card.due
        assert mine.last_review == card.last_review
        assert mine.stability == pytest.approx(card.stability, rel=1e-12)
        assert mine.difficulty == pytest.approx(card.difficulty, rel=1e-12)
        assert int(mine.phase) == int(card.state)
        assert mine.step == card.step
        now = card.due
    # the sequence reached day-scale intervals and came back from a lapse
    assert any(s.interval and s.interval >= timedelta(days=5) for s in ours)
    assert ours[-1].lapses == 1 and ours[-1].reps == len(SEQUENCE)


def test_settings_reach_fsrs() -> None:
    settings = Settings(
        desired_retention=0.8,
        learning_steps=(timedelta(minutes=5),),
        relearning_steps=(),
        maximum_interval=30,
        fuzz=False,
    )
    ours = Scheduler(settings)
    ref = fsrs.Scheduler(
        desired_retention=0.8,
        learning_steps=(timedelta(minutes=5),),
        relearning_steps=(),
        maximum_interval=30,
        enable_fuzzing=False,
    )
    state, card, now = CardState(), fsrs.Card(card_id=1, due=T0), T0
    for rating in [Rating.AGAIN, Rating.GOOD, Rating.EASY, Rating.EASY, Rating.EASY, Rating.EASY]:
        state = ours.review(state, rating, now)
        card, _ = ref.review_card(card, fsrs.Rating(int(rating)), review_datetime=now)
        assert state.due == card.due
        assert state.interval is not None and state.interval <= timedelta(days=30)
        now = card.due
    assert state.interval == timedelta(days=30)  # the maximum interval caps it


def test_preview_gives_each_rating_outcome() -> None:
    scheduler = Scheduler(Settings(fuzz=False))
    outcomes = scheduler.preview(CardState(), T0)
    assert set(outcomes) == set(Rating)
    assert outcomes[Rating.AGAIN].due == T0 + timedelta(minutes=1)
    assert outcomes[Rating.GOOD].due == T0 + timedelta(minutes=10)
    assert outcomes[Rating.EASY].phase is Phase.REVIEW
    for rating, state in outcomes.items():
        assert state == scheduler.review(CardState(), rating, T0)
    dues = [outcomes[r].due for r in Rating]
    assert dues == sorted(dues)


def test_lapses_count_only_forgotten_review_cards() -> None:
    scheduler = Scheduler(Settings(fuzz=False))
    state = scheduler.review(CardState(), Rating.AGAIN, T0)  # learning: not a lapse
    assert state.lapses == 0
    state = scheduler.review(state, Rating.EASY, T0 + timedelta(minutes=2))
    assert state.phase is Phase.REVIEW
    assert state.due is not None
    state = scheduler.review(state, Rating.AGAIN, state.due)
    assert state.phase is Phase.RELEARNING and state.lapses == 1


def test_retrievability_matches_fsrs() -> None:
    scheduler = Scheduler(Settings(fuzz=False))
    state = scheduler.review(CardState(), Rating.EASY, T0)
    later = T0 + timedelta(days=10)
    ref = fsrs.Scheduler(enable_fuzzing=False)
    card, _ = ref.review_card(fsrs.Card(card_id=1, due=T0), fsrs.Rating.Easy, review_datetime=T0)
    assert scheduler.retrievability(state, later) == pytest.approx(
        ref.get_card_retrievability(card, later)
    )
    assert scheduler.retrievability(CardState(), later) == 0.0


def test_naive_datetime_is_refused() -> None:
    with pytest.raises(ValueError):
        Scheduler().review(CardState(), Rating.GOOD, datetime(2024, 1, 1))


def test_other_time_zones_are_converted_to_utc() -> None:
    scheduler = Scheduler(Settings(fuzz=False))
    tokyo = T0.astimezone(timezone(timedelta(hours=9)))
    assert scheduler.review(CardState(), Rating.GOOD, tokyo) == scheduler.review(
        CardState(), Rating.GOOD, T0
    )


def test_card_state_round_trips() -> None:
    scheduler = Scheduler(Settings(fuzz=False))
    state = CardState()
    for rating in SEQUENCE:
        assert CardState.from_dict(state.to_dict()) == state
        state = scheduler.review(state, rating, state.due or T0)
    assert CardState.from_dict(state.to_dict()) == state


def test_config_file_with_deck_overrides(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        """
[review]
desired_retention = 0.85
learning_steps = ["30s", "5m", "1h"]
new_per_day = 10
leech_threshold = 5

[deck.collectives]
desired_retention = 0.95
reviews_per_day = 50
""",
        encoding="utf-8",
    )
    config = load_config(path)
    assert config.default.desired_retention == 0.85
    assert config.default.learning_steps == (
        timedelta(seconds=30),
        timedelta(minutes=5),
        timedelta(hours=1),
    )
    deck = config.for_deck("collectives")
    assert deck.desired_retention == 0.95 and deck.reviews_per_day == 50
    assert deck.new_per_day == 10 and deck.leech_threshold == 5  # inherited from [review]
    assert config.for_deck("other") == config.default
    assert Scheduler(deck).fsrs.desired_retention == 0.95


def test_missing_config_file_gives_defaults(tmp_path) -> None:
    config = load_config(tmp_path / "absent.toml")
    assert config == Config()
    assert config.default.desired_retention == 0.9
    assert (config.default.new_per_day, config.default.reviews_per_day) == (20, 200)
    assert config.default.leech_threshold == 8


@pytest.mark.parametrize(
    "text",
    [
        "[review]\ndesired_retention = 2\n",
        "[review]\ndesired_retention = 'high'\n",
        "[review]\nlearning_steps = ['ten minutes']\n",
        "[review]\nnew_per_day = -1\n",
        "[review]\nrollover_hour = 24\n",
        "[review]\nmystery = 1\n",
        "[other]\nx = 1\n",
        "[review\n",
        "[review]\nparameters = [1, 2]\n",
        "[deck.x]\nfuzz = 'yes'\n",
    ],
)
def test_bad_config_is_a_one_line_error(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "cfg.toml")
    assert "cfg.toml" in str(info.value) and "\n" not in str(info.value)


def test_durations() -> None:
    assert parse_duration("10m") == timedelta(minutes=10)
    assert parse_duration("1.5h") == timedelta(minutes=90)
    assert parse_duration(90) == timedelta(seconds=90)
    for bad in ("0m", "-1m", "10", True, "5 weeks"):
        with pytest.raises(ValueError):
            parse_duration(bad)


@pytest.mark.parametrize(
    ("interval", "text"),
    [
        (timedelta(seconds=30), "30s"),
        (timedelta(minutes=10), "10m"),
        (timedelta(hours=3), "3h"),
        (timedelta(days=4), "4d"),
        (timedelta(days=63), "2.1mo"),
        (timedelta(days=730), "2.0y"),
    ],
)
def test_format_interval(interval: timedelta, text: str) -> None:
    assert format_interval(interval) == text
