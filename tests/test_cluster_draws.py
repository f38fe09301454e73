""" "Your cluster": a calibrated profile in the cards' link draws and in the simulation lab.

The figures are read from the published log itself (tests/fixtures/nccl_tests, the A3 Mega
sweep: its printed times and bus bandwidths), or from another surface fed the same profile
(``sim --gpu NAME``), never from the code that fills the draws.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given as hypothesis_given
from hypothesis import settings
from hypothesis import strategies as st
from textual.pilot import Pilot
from textual.widgets import Select, Static
from tui_support import SMALL, make_app, plain, run_async, settle

from deck.base.errors import DeckError
from deck.cards.instances import Given, draw
from deck.cards.loader import load_text
from deck.review.store import Store
from deck.review.store.records import Review
from deck.units import Dim
from quizcoll.cli.main import main
from quizcoll.tui.screens.sim_lab import SimLabScreen

LOGS = Path(__file__).parent / "fixtures" / "nccl_tests"
A3 = LOGS / "a3mega_2x8_h100_all_reduce.txt"
CARD = "ring-allreduce-time"


def _printed_rows(path: Path) -> list[list[float]]:
    """The log's result rows, split by hand: size, count, type, redop, root, then
    out-of-place time, algbw, busbw, #wrong and the in-place four."""
    rows = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts and parts[0].isdigit() and len(parts) == 13:
            rows.append([float(parts[0]), float(parts[5]), float(parts[7]), float(parts[9])])
    return rows


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> str:
    monkeypatch.setenv("QUIZCOLL_PROFILES", str(tmp_path / "profiles"))
    assert main(["calibrate", str(A3), "--name", "a3mega"]) == 0
    capsys.readouterr()
    return "a3mega"


def _show(capsys: pytest.CaptureFixture, *extra: str) -> dict:
    assert main(["show", CARD, "--seed", "3", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


# -- the engine: role and given ------------------------------------------------------------

CARDS = """
cards:
  - id: link-time
    type: numeric
    front: "Send {S} over a link of latency {a} and bandwidth {b}: how long?"
    back: "{answer}"
    params:
      S: {choices: [1, 2, 4, 8], unit: MiB}
      a: {choices: [1, 2], unit: us, role: link_latency}
      b: {choices: [10, 20], unit: GB/s, role: link_bandwidth}
    answer: {expr: "a + S/b", unit: us}
"""


def _card(text: str = CARDS):
    cards, problems = load_text(text, "roles.yaml")
    assert not problems, problems
    return cards[0]


def test_a_given_value_takes_the_role_and_the_rest_draws_as_before() -> None:
    card = _card()
    plain_draw = draw(card, 11)
    ours = draw(card, 11, given={"link_latency": Given(3.5e-6, Dim.SECONDS, "your cluster x")})
    assert ours.values["S"] == plain_draw.values["S"]
    assert ours.values["b"] == plain_draw.values["b"]
    assert ours.values["a"] == 3.5e-6
    assert ours.shown["a"] == "3.5 us (your cluster x)"
    assert ours.given == (("link_latency", 3.5e-6),)
    assert plain_draw.given == ()
    # a role the card does not have changes nothing
    assert draw(card, 11, given={"other": Given(1.0, Dim.COUNT)}) == plain_draw


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{choices: [1, 2], unit: us, role: 3}", "expected text"),
        ("{choices: [1, 2], unit: us, role: 'link latency'}", "a role must be"),
        ("{choices: [1, 2], unit: GPUs, role: link_latency}", "physical unit"),
        ("{formula: 'S*2', unit: us, role: link_latency}", "physical unit"),
    ],
)
def test_a_bad_role_is_one_located_problem(spec: str, message: str) -> None:
    text = CARDS.replace("{choices: [1, 2], unit: us, role: link_latency}", spec)
    _, problems = load_text(text, "roles.yaml")
    # the parameter is refused where its role is written (the answer then misses ``a``)
    (problem,) = [p for p in problems if p.field == "params.a.role"]
    assert message in problem.message and problem.line == 9, problems


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan"), float("inf")])
def test_a_given_value_must_be_positive_and_finite(value: float) -> None:
    with pytest.raises(DeckError):
        Given(value, Dim.SECONDS)


def _stored(tmp_path: Path, given: tuple[tuple[str, float], ...] = ()) -> Review:
    from datetime import UTC, datetime

    from deck.cards.rating import Rating
    from deck.review.scheduler import CardState

    with Store.open(tmp_path / "g.db") as store:
        return store.record_review(
            "c",
            Rating.GOOD,
            CardState(),
            reviewed_at=datetime(2026, 1, 1, tzinfo=UTC),
            given=given,
        )


def test_given_values_round_trip_through_the_store_and_json(tmp_path: Path) -> None:
    values = (("link_bandwidth", 3.4e11), ("link_latency", 4.1e-6))
    review = _stored(tmp_path, values)
    with Store.open(tmp_path / "g.db") as store:
        (read,) = store.reviews("c")
    assert read.given == values
    assert Review.from_dict(review.to_dict()).given == values
    (tmp_path / "plain").mkdir()
    assert "given" not in _stored(tmp_path / "plain").to_dict()  # old JSON stays as it was


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"link_latency": 0}, "above 0"),
        ({"link_latency": "fast"}, "given.link_latency"),
        ({"bad role": 1.0}, "not a role name"),
        ({f"r{i}": 1.0 for i in range(17)}, "at most 16"),
        ([1.0], "given"),
    ],
)
def test_a_stored_review_refuses_junk_given_values(
    tmp_path: Path, given: object, message: str
) -> None:
    doc = _stored(tmp_path).to_dict() | {"given": given}
    with pytest.raises((ValueError, TypeError, KeyError)) as err:
        Review.from_dict(doc)
    assert message in str(err.value)


# -- the profile's link, against the log -----------------------------------------------------


def test_the_cluster_link_is_what_the_log_printed(
    cluster: str, capsys: pytest.CaptureFixture
) -> None:
    rows = _printed_rows(A3)
    doc = _show(capsys, "--cluster", cluster)
    alpha, bandwidth = doc["given_values"]["link_latency"], doc["given_values"]["link_bandwidth"]
    # the bus bandwidth: the largest sizes' printed busbw (338.83 GB/s at 8 GiB)
    assert bandwidth == pytest.approx(rows[-1][2] * 1e9, rel=0.01)
    # the latency floor (about 123 µs printed for 16 B – 1 KiB) over a 16-rank ring's 30 steps
    floor = min(r[1] for r in rows) * 1e-6
    assert alpha * 30 == pytest.approx(floor, rel=0.05)
    assert f"(your cluster {cluster})" in doc["front"]


def test_the_card_answer_is_what_sim_says_on_the_same_profile(
    cluster: str, capsys: pytest.CaptureFixture
) -> None:
    doc = _show(capsys, "--cluster", cluster)
    plain_doc = _show(capsys)
    assert doc["values"]["n"] == plain_doc["values"]["n"]  # only the link changed
    assert doc["answer"] != plain_doc["answer"]
    n = doc["values"]["n"].split()[0]
    size = doc["values"]["size"].replace(",", "").replace(" ", "")
    argv = ["sim", "all_reduce", "--algorithm", "ring", "--gpu", cluster, "--ranks", n]
    assert main([*argv, "--size", size, "--json"]) == 0
    sim = json.loads(capsys.readouterr().out)
    assert doc["answer_value"] == pytest.approx(sim["time_s"], rel=1e-3)


def test_grade_judges_the_instance_the_cluster_drew(
    cluster: str, capsys: pytest.CaptureFixture
) -> None:
    doc = _show(capsys, "--cluster", cluster)
    right = doc["answer"]
    argv = ["grade", CARD, "--seed", "3", "--answer", right]
    assert main([*argv, "--cluster", cluster]) == 0
    assert main(argv) == 1  # the card's own draw has another answer
    capsys.readouterr()


def test_an_unknown_cluster_is_one_line(cluster: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["show", CARD, "--cluster", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no profile of that name" in err and "calibrate" in err


def test_a_review_with_the_cluster_is_stored_and_shown_as_asked(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "r.db"
    cards = tmp_path / "cards.yaml"
    cards.write_text(CARDS.replace("id: link-time", "id: ring-time"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 ms\n3\n"))
    argv = ["review", "--plain", "--db", str(db), "--cards", str(cards), "--limit", "1"]
    assert main([*argv, "--cluster", cluster]) == 0
    capsys.readouterr()
    with Store.open(db) as store:
        (review,) = store.reviews("ring-time")
    assert dict(review.given).keys() == {"link_latency", "link_bandwidth"}
    # shown again without --cluster: the stored values, the same question
    assert (
        main(
            [
                "show",
                "ring-time",
                "--review",
                "-1",
                "--db",
                str(db),
                "--cards",
                str(cards),
                "--json",
            ]
        )
        == 0
    )
    again = json.loads(capsys.readouterr().out)
    assert again["given_values"] == dict(review.given)
    assert "as reviewed" in again["front"]
    # and the history export carries them
    assert main(["history", "export", "--db", str(db)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["reviews"][0]["given"] == dict(review.given)


# -- the simulation lab ---------------------------------------------------------------------


async def _lab(pilot: Pilot) -> SimLabScreen:
    """The simulation lab, opened from home ("l") once the app has loaded."""
    for _ in range(2):
        await settle(pilot)
        if isinstance(pilot.app.screen, SimLabScreen):
            break
        await pilot.press("l")
    assert isinstance(pilot.app.screen, SimLabScreen)
    return pilot.app.screen


@run_async
async def test_the_lab_offers_the_cluster_and_prices_with_it(cluster: str, tmp_path: Path) -> None:
    async with make_app(tmp_path / "r.db").run_test(size=SMALL) as pilot:
        screen = await _lab(pilot)
        link = screen.query_one("#lab-link", Select)
        assert link.value == "nvlink"
        before = screen.lab
        assert before is not None
        link.value = f"cluster:{cluster}"
        await settle(pilot)
        lab = screen.lab
        assert lab is not None and lab is not before
        assert lab.request.link_note == f"your cluster {cluster}"
        assert f"your cluster {cluster}: α 4.1" in plain(screen.query_one("#lab-status", Static))
        # 8 ranks, 1 MiB: the cluster's α per step is far above NVLink's 3.4 µs
        assert lab.time_s > before.time_s


@run_async
async def test_the_app_started_on_a_cluster_opens_the_lab_on_it(
    cluster: str, tmp_path: Path
) -> None:
    async with make_app(tmp_path / "r.db", cluster=cluster).run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert f"your cluster {cluster}" in plain(pilot.app.screen.query_one("#today", Static))
        screen = await _lab(pilot)
        assert screen.query_one("#lab-link", Select).value == f"cluster:{cluster}"


def test_a_tui_review_session_draws_and_stores_the_given_values(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from deck.cards.rating import Rating
    from deck.review.scheduler import Config, Settings
    from quizcoll.tui.services.env import fixed_seeds
    from quizcoll.tui.services.review import ReviewSession

    now = datetime(2026, 1, 1, tzinfo=UTC)
    given = {"link_bandwidth": Given(3.4e11, Dim.RATE, "your cluster x")}
    with Store.open(tmp_path / "r.db") as store:
        session = ReviewSession(
            [_card()], None, Config(default=Settings(fuzz=False)), lambda: now, fixed_seeds(5),
            given=given,
        )  # fmt: skip
        session.load(store)
        p = session.advance(store)
        assert p is not None and p.instance.values["b"] == 3.4e11
        session.reveal()
        session.rate(store, Rating.GOOD)
        (review,) = store.reviews("link-time")
    assert review.given == (("link_bandwidth", 3.4e11),)


@settings(max_examples=300)
@hypothesis_given(
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=20)
        ),
        max_leaves=30,
    )
)
def test_any_json_as_given_parses_or_is_refused_cleanly(junk: object) -> None:
    import math

    from deck.review.store.records import _given

    try:
        values = _given(junk)
    except (ValueError, TypeError):
        return
    assert len(values) <= 16
    assert all(math.isfinite(v) and v > 0 for _, v in values)


def test_every_built_in_card_with_a_role_takes_a_clusters_values() -> None:
    """Each link role of the collection, given a cluster's values, is used and shown in
    the parameter's own unit, and the card still solves (its answer runs on them)."""
    from deck.answers.checking import solve
    from quizcoll import profiles
    from quizcoll.collection import load

    collection, registry = load(None)
    given = {
        profiles.LINK_LATENCY: Given(3.3e-6, Dim.SECONDS, "your cluster t"),
        profiles.LINK_BANDWIDTH: Given(4.2e10, Dim.RATE, "your cluster t"),
    }
    with_roles = [c for c in collection.cards if any(s.role for s in c.params)]
    assert len(with_roles) >= 7
    for card in with_roles:
        roles = {s.role for s in card.params if s.role}
        assert roles <= set(given), (card.id, roles)
        inst = draw(card, 1, registry, given=given)
        assert {role for role, _ in inst.given} == roles, card.id
        for spec in card.params:
            if spec.role:
                assert inst.values[spec.name] == given[spec.role].value
                assert inst.shown[spec.name].endswith("(your cluster t)")
        assert solve(card, inst, registry).value is not None, card.id


def test_a_role_given_in_another_dimension_is_a_clear_error() -> None:
    with pytest.raises(DeckError, match="role 'link_latency', whose values are bytes/s"):
        draw(_card(), 1, given={"link_latency": Given(1e9, Dim.RATE)})


def test_paths_lists_the_clusters(cluster: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["paths", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["profile_names"] == [cluster] and doc["profiles"].endswith("profiles")
    assert main(["paths"]) == 0
    assert f"quizcoll --cluster {cluster}" in capsys.readouterr().out
