"""``quizcoll calibrate``: the nccl-tests parser and the profile fit, against published logs.

Expected figures come from the logs themselves (printed times and bandwidths; see
tests/fixtures/nccl_tests/README.md for where each log was published), never from the
code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.cli.main import main
from quizcoll.collectives.calibrate import fit
from quizcoll.collectives.nccl_tests_log import LogError, parse

LOGS = Path(__file__).parent / "fixtures" / "nccl_tests"
A3 = LOGS / "a3mega_2x8_h100_all_reduce.txt"


@pytest.fixture(autouse=True)
def _profiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "profiles"
    monkeypatch.setenv("QUIZCOLL_PROFILES", str(folder))
    return folder


def test_a3mega_log_as_printed() -> None:
    sweep = parse(A3.read_text(), source=A3.name)
    assert sweep.collective == "all_reduce"  # from the all_reduce_perf command line
    assert (sweep.ranks, sweep.hosts, sweep.gpus_per_host) == (16, 2, 8)
    assert sweep.gpu == "NVIDIA H100 80GB HBM3"
    assert len(sweep.rows) == 31  # 8 B … 8 GiB, doubling
    last = sweep.rows[-1]
    assert (last.size, last.out_of_place.time_us, last.out_of_place.busbw) == (
        8589934592,
        47535,
        338.82,
    )
    assert last.in_place.busbw == 337.35


def test_mpi_prefixes_zero_rows_and_version() -> None:
    f = LOGS / "efa_2x1_t4_all_reduce.txt"
    sweep = parse(f.read_text(), source=f.name, collective="all_reduce")
    assert sweep.nccl_version == "2.12.7"
    assert (sweep.ranks, sweep.hosts, sweep.gpu) == (2, 2, "Tesla T4")
    assert [r.size for r in sweep.rows][:2] == [4, 1024]  # the 0-byte row is left out


def test_old_columns_without_root_and_header() -> None:
    f = LOGS / "h20_2x8_nvlstree_all_reduce.txt"
    sweep = parse(f.read_text(), source=f.name, collective="all_reduce")
    assert [r.out_of_place.time_us for r in sweep.rows][:3] == [47.54, 47.60, 46.25]
    profile = fit(sweep, name="h20", source=f.name, ranks=16)
    # every size is latency-bound: α is the fastest printed time, 46.25 µs at 16 B
    assert profile.line.alpha_s * 1e6 == pytest.approx(46.25)


def test_fit_of_the_a3mega_sweep() -> None:
    profile = fit(parse(A3.read_text(), source=A3.name), name="a3", source=A3.name)
    # the fastest printed time, 123.0 µs at 128 B; 8 B … 16 KiB stay within 25% of it
    assert profile.line.alpha_s == pytest.approx(123.0e-6)
    # the best bandwidth is the 8 GiB row: 8 GiB / (47535 − α) µs × 2·15/16
    best = 8589934592 / ((47535 - profile.line.alpha_s * 1e6) * 1e-6) * 30 / 16
    assert profile.line.busbw == pytest.approx(best, rel=1e-9)
    # the printed 338.82 GB/s with the 123 µs floor taken out of its 47,535 µs
    assert profile.line.busbw / 1e9 == pytest.approx(338.82 * 47535 / (47535 - 123), rel=1e-3)
    # the mid sizes fall far below the α-β line (pipeline fill): 16 MiB printed 32.18 GB/s
    mid = next(p for p in profile.points if p.size == 16 * 2**20)
    assert mid.measured_busbw / 1e9 == pytest.approx(32.18, rel=0.003)
    assert mid.efficiency < 0.3


def test_ranks_from_busbw_over_algbw() -> None:
    f = LOGS / "coreweave_h100_all_reduce.txt"
    sweep = parse(f.read_text(), source=f.name, collective="all_reduce")
    assert sweep.ranks is None  # the README's excerpt has no device lines
    # printed 356.01 / 179.88 = 1.97915 = 2·95/96
    assert fit(sweep, name="cw", source=f.name).ranks == 96


def test_cli_writes_a_profile_once(capsys: pytest.CaptureFixture, _profiles: Path) -> None:
    assert main(["calibrate", str(A3), "--name", "a3mega"]) == 0
    out = capsys.readouterr().out
    assert "saved profile 'a3mega'" in out and "338.83 GB/s" in out
    written = json.loads((_profiles / "a3mega.json").read_text())
    assert written["ranks"] == 16 and len(written["points"]) == 31
    before = (_profiles / "a3mega.json").read_bytes()
    assert main(["calibrate", str(A3), "--name", "a3mega"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists; pass --force" in err
    assert (_profiles / "a3mega.json").read_bytes() == before
    assert main(["calibrate", str(A3), "--name", "a3mega", "--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"].endswith("a3mega.json")


def test_no_save_writes_nothing(capsys: pytest.CaptureFixture, _profiles: Path) -> None:
    assert main(["calibrate", str(A3), "--no-save", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] is None
    assert not _profiles.exists()


def test_sim_with_the_profile_reproduces_the_logged_peak(capsys: pytest.CaptureFixture) -> None:
    assert main(["calibrate", str(A3), "--name", "a3mega"]) == 0
    capsys.readouterr()
    argv = ["sim", "all_reduce", "--gpu", "a3mega", "--ranks", "16", "--size", "8GiB", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    # a ring of 16 over the profile's link: α + 2·15/16·S/busbw = the logged 47,535 µs
    assert doc["time_s"] == pytest.approx(47535e-6, rel=1e-3)


def _broken(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "broken.log"
    f.write_text(text)
    return f


GOOD = A3.read_text().splitlines()
ROW = next(i for i, line in enumerate(GOOD) if line.strip().startswith("1048576 "))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: [*lines[: ROW + 1], lines[ROW + 1][:60]], f"broken.log:{ROW + 2}:"),
        (
            lambda lines: [*lines[:ROW], lines[ROW].replace("203.2", "2o3.2"), *lines[ROW + 1 :]],
            f"broken.log:{ROW + 1}: time '2o3.2' is not a number",
        ),
        (
            lambda lines: [*lines[:ROW], lines[ROW].replace("5.16", "51.6"), *lines[ROW + 1 :]],
            f"broken.log:{ROW + 1}: algbw 51.6 GB/s does not match",
        ),
        (lambda lines: [*lines[: ROW + 1], lines[ROW], *lines[ROW + 1 :]], "appears twice"),
        (
            lambda lines: [*lines[:ROW], lines[ROW].replace("203.2", "inf"), *lines[ROW + 1 :]],
            "is outside",
        ),
        (
            lambda lines: [line for line in lines if not line.strip()[:1].isdigit()],
            "no nccl-tests result rows",
        ),
    ],
)
def test_bad_logs_get_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, edit: object, message: str
) -> None:
    f = _broken(tmp_path, "\n".join(edit(list(GOOD))) + "\n")  # type: ignore[operator]
    assert main(["calibrate", str(f), "--no-save"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err
    assert "Traceback" not in captured.err


def test_not_text_and_not_a_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    binary = tmp_path / "x.log"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["calibrate", str(binary)]) == 2
    assert main(["calibrate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "Traceback" not in err


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=120), max_size=30))
def test_any_text_parses_or_fails_cleanly(lines: list[str]) -> None:
    text = "# nThread 1 nGpus 1 minBytes 8\n" + "\n".join(lines)
    try:
        sweep = parse(text, source="fuzz", collective="all_reduce")
    except LogError as exc:
        assert str(exc).startswith("fuzz")
    else:
        assert all(r.size > 0 and r.out_of_place.time_us > 0 for r in sweep.rows)


def test_tuning_lines_give_each_algorithm_its_own_line() -> None:
    # NCCL_DEBUG_SUBSYS=TUNING prints "<bytes> Bytes -> Algo A proto P time T" per call
    # (format as in NVIDIA/nccl #1453); ids are NCCL's: Algo 0 = Tree, 1 = Ring; proto
    # 0 = LL, 2 = Simple
    head = A3.read_text().split("           8             2")[0]
    rows = [
        ("8", "2", "20.00", "0.00", "0.00"),
        ("1024", "256", "21.00", "0.05", "0.09"),
        ("1048576", "262144", "100.0", "10.49", "19.66"),
        ("16777216", "4194304", "800.0", "20.97", "39.32"),
    ]
    lines = [head.rstrip("\n")]
    tags = {"8": (0, 0), "1024": (0, 0), "1048576": (1, 2), "16777216": (1, 2)}
    for size, count, t, alg, bus in rows:
        a, p = tags[size]
        lines.append(f"host:1:1 [0] NCCL INFO {size} Bytes -> Algo {a} proto {p} time 25.87")
        grp = f"{t:>8} {alg:>7} {bus:>7}      0"
        lines.append(f"{size:>12} {count:>13}     float     sum      -1 {grp} {grp}")
    sweep = parse("\n".join(lines) + "\n", source="tuned")
    assert sweep.algorithm_at(8) == "Tree/LL" and sweep.algorithm_at(16777216) == "Ring/Simple"
    profile = fit(sweep, name="tuned", source="tuned")
    per = dict(profile.per_algorithm)
    assert set(per) == {"Tree/LL", "Ring/Simple"}
    # Ring/Simple's two rows: the best S / t is 16 MiB over 800 µs (no flat sizes: α = 0)
    assert per["Ring/Simple"].alpha_s == 0
    assert per["Ring/Simple"].algbw == pytest.approx(16777216 / 800e-6)


def test_a_log_cut_inside_a_row_names_that_line(capsys: pytest.CaptureFixture) -> None:
    f = LOGS / "dgx_spark_2x1_gb10_truncated.txt"
    with pytest.raises(LogError, match=r"truncated\.txt:16: a result row needs"):
        parse(f.read_text(), source=f.name)
    assert main(["calibrate", str(f), "--no-save"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ":16:" in err
    whole = "\n".join(f.read_text().splitlines()[:15])  # without the cut line
    sweep = parse(whole, source=f.name)
    assert (sweep.collective, sweep.nccl_version) == ("all_reduce", "2.31.2")  # 23102
    assert (sweep.ranks, sweep.hosts, sweep.gpu) == (2, 2, "NVIDIA GB10")
