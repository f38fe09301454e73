"""`quizcoll sim`: the JSON contract, the table, the trace and one-line errors."""

from __future__ import annotations

import json

import pytest

from quizcoll.cli.main import main

DESIGN_KEYS = {
    "collective",
    "algorithm",
    "ranks",
    "size_bytes",
    "steps",
    "bytes_sent",
    "bytes_received",
    "max_bytes_sent",
    "total_bytes",
    "time_s",
    "algbw",
    "busbw",
    "verified",
}


def sim_json(capsys: pytest.CaptureFixture, *argv: str) -> dict:
    assert main(["sim", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keys_and_values(capsys: pytest.CaptureFixture) -> None:
    doc = sim_json(capsys, "all_reduce", "--ranks", "8", "--size", "1GiB")
    assert doc.keys() >= DESIGN_KEYS
    assert "trace" not in doc
    assert doc["collective"] == "all_reduce" and doc["algorithm"] == "ring"
    assert doc["size_bytes"] == 2**30 and doc["steps"] == 14
    assert doc["bytes_sent"] == [7 * 2**30 // 4] * 8 == doc["bytes_received"]
    assert doc["max_bytes_sent"] == 7 * 2**30 // 4
    assert doc["total_bytes"] == 8 * doc["max_bytes_sent"]
    assert doc["verified"] is True  # simulated at a smaller count: 8 GiB exceeds the budget
    assert doc["verified_elements"] < 2**28
    assert doc["busbw"] == pytest.approx(doc["algbw"] * 1.75)
    assert doc["time_s"] == pytest.approx(14 * 3e-6 + 1.75 * 2**30 / 450e9)


def test_latency_bandwidth_and_link(capsys: pytest.CaptureFixture) -> None:
    doc = sim_json(
        capsys,
        "all_reduce",
        "--ranks",
        "4",
        "--size",
        "4MB",
        "--latency",
        "0s",
        "--bandwidth",
        "100GB/s",
    )
    assert doc["time_s"] == pytest.approx(1.5 * 4e6 / 100e9)
    ib = sim_json(capsys, "all_reduce", "--ranks", "4", "--size", "4MB", "--link", "infiniband")
    assert ib["time_s"] > doc["time_s"]


@pytest.mark.parametrize(
    "argv",
    [
        ["broadcast", "--algorithm", "scatter_allgather", "--root", "3"],
        ["scatter", "--algorithm", "direct", "--root", "2"],
        ["gather", "--root", "7"],
        ["reduce", "--op", "max", "--algorithm", "reduce_scatter_gather"],
        ["all_reduce", "--algorithm", "double_binary_tree", "--dtype", "int32", "--op", "prod"],
        ["all_gather", "--algorithm", "recursive_doubling", "--ranks", "6"],
        ["reduce_scatter", "--algorithm", "recursive_halving", "--op", "avg"],
        ["all_to_all", "--dtype", "float64"],
        ["all_reduce", "--dtype", "bf16", "--ranks", "5", "--size", "10B"],
    ],
)
def test_every_collective_verifies(capsys: pytest.CaptureFixture, argv: list[str]) -> None:
    doc = (
        sim_json(capsys, *argv, "--size", "96KiB")
        if "--size" not in argv
        else sim_json(capsys, *argv)
    )
    assert doc["verified"] is True
    assert len(doc["bytes_sent"]) == doc["ranks"]


def test_trace_json(capsys: pytest.CaptureFixture) -> None:
    doc = sim_json(capsys, "all_reduce", "--ranks", "4", "--size", "64B", "--trace")
    trace = doc["trace"]
    assert len(trace) == doc["steps"] == 6
    assert trace[0][0].keys() == {"src", "dst", "chunk", "bytes"}
    assert all(len(step) == 4 for step in trace)
    assert sum(t["bytes"] for step in trace for t in step if t["src"] == 0) == doc["bytes_sent"][0]


def test_table_and_trace_text(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "all_reduce", "--ranks", "4", "--size", "64B", "--trace"]) == 0
    out = capsys.readouterr().out
    assert "steps (rounds)     6" in out
    assert "= 1.5 × S" in out
    assert "rank 0 → rank 1  chunk 3  16 B  +" in out
    assert "rank 0 [ 4 4 4 4 ]" in out  # the end: every chunk holds all four contributions
    assert "verified           yes" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["allreduce_x"], "unknown collective 'allreduce_x'; choose one of broadcast"),
        (["all_reduce", "--algorithm", "tree"], "choose one of ring, naive"),
        (["all_reduce", "--op", "mean"], "choose one of sum, prod, max, min, avg"),
        (["all_reduce", "--dtype", "fp8"], "unknown dtype 'fp8'; choose one of"),
        (["all_reduce", "--size", "1XB"], "--size: unknown unit 'XB'"),
        (["all_reduce", "--size", "0"], "--size: 0 is not a positive whole number"),
        (["all_reduce", "--size", "6B"], "not a positive whole number of float32 elements"),
        (["reduce_scatter", "--size", "36B"], "do not split into 8 equal chunks"),
        (["all_reduce", "--ranks", "0"], "ranks must be between 1 and 1024"),
        (["all_reduce", "--ranks", "32", "--trace"], "--trace shows at most 16 ranks"),
        (["all_reduce", "--bandwidth", "5us"], "--bandwidth: 'us' is a unit of seconds"),
        (["all_reduce", "--latency=-1us"], "latency must be ≥ 0"),
        (["broadcast", "--root", "9"], "root must be a rank between 0 and 7"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture, argv: list[str], message: str
) -> None:
    assert main(["sim", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert message in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["all_reduc"], "did you mean 'all_reduce'?"),
        (["all-gathr"], "did you mean 'all_gather'?"),
        (["all_reduce", "--algorithm", "rabenseifer"], "did you mean 'rabenseifner'?"),
        (
            ["all_gather", "--algorithm", "recursive_doubeling"],
            "did you mean 'recursive_doubling'?",
        ),
        (["all_reduce", "--op", "summ"], "did you mean 'sum'?"),
        (["all_reduce", "--dtype", "flaot32"], "did you mean 'float32'?"),
    ],
)
def test_misspelt_names_get_a_suggestion_on_one_line(
    capsys: pytest.CaptureFixture, argv: list[str], suggestion: str
) -> None:
    assert main(["sim", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "choose one of" in err
    assert err.rstrip().endswith(suggestion)


def test_no_suggestion_when_nothing_is_close(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "xyz"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_sim_module_imports_no_numpy_at_top() -> None:
    import ast
    import inspect

    from quizcoll.cli import cmd_sim

    tree = ast.parse(inspect.getsource(cmd_sim))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = {getattr(n, "module", None) or n.names[0].name for n in top}
    assert not any(name.startswith(("numpy", "quizcoll.collectives")) for name in names if name)
