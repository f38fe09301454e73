"""`quizcoll sim … --model nccl`: NCCL's pick, JSON keys, text, and one-line refusals."""

from __future__ import annotations

import json

import pytest

from quizcoll.cli.main import main

NCCL_KEYS = {
    "model",
    "nccl_version",
    "collective",
    "algorithm",
    "protocol",
    "ranks",
    "size_bytes",
    "message_bytes",
    "time_s",
    "algbw",
    "busbw",
    "busbw_factor",
    "latency_s",
    "bandwidth",
    "channels",
    "candidates",
    "graphs",
    "gpu",
    "nodes",
    "gpus_per_node",
    "nic",
    "forced_algorithm",
    "forced_protocol",
}


def nccl_json(capsys: pytest.CaptureFixture, *argv: str) -> dict:
    assert main(["sim", *argv, "--model", "nccl", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_of_one_node(capsys: pytest.CaptureFixture) -> None:
    doc = nccl_json(capsys, "all_reduce", "--size", "1GiB")
    assert doc.keys() >= NCCL_KEYS
    assert (doc["model"], doc["nccl_version"]) == ("nccl", "2.30.7")
    assert (doc["gpu"], doc["nodes"], doc["gpus_per_node"], doc["ranks"]) == ("h100", 1, 8, 8)
    assert (doc["algorithm"], doc["protocol"]) == ("NVLS", "Simple")
    # nvls.cc: 25 µs + S / (59.5 GB/s · 8 channels · 8/14)
    assert doc["time_s"] == pytest.approx(25e-6 + 2**30 / (59.5e9 * 8 * 8 / 14))
    assert doc["busbw"] == pytest.approx(doc["algbw"] * 1.75)
    assert doc["size_bytes"] == doc["message_bytes"] == 2**30
    times = [c["time_s"] for c in doc["candidates"] if c["available"]]
    assert times == sorted(times) and times[0] == doc["time_s"]
    off = [c for c in doc["candidates"] if not c["available"]]
    assert all(c["reason"] and c["time_s"] is None for c in off)
    assert doc["graphs"]["ring"] == {
        "pattern": "ring",
        "channels": 12,
        "bw_intra": 30e9,
        "bw_inter": 30e9,
    }
    assert doc["nvlink_nccl_bw"] == pytest.approx(370.8e9) and doc["nvlink_line_rate"] == 450e9


def test_nodes_gpus_and_hardware_flags(capsys: pytest.CaptureFixture) -> None:
    doc = nccl_json(capsys, "all_reduce", "--size", "64KiB", "--nodes", "2")
    assert (doc["ranks"], doc["algorithm"], doc["protocol"]) == (16, "Tree", "LL")
    doc = nccl_json(
        capsys,
        "all_reduce",
        "--size",
        "128MiB",
        "--gpu",
        "a100",
        "--nodes",
        "3",
        "--nics-per-node",
        "4",
        "--cpu",
        "intel",
    )
    assert (doc["nic"], doc["nics_per_node"], doc["cpu"], doc["pcie"]) == (
        "hdr",
        4,
        "intel",
        "gen4",
    )
    assert doc["busbw"] == pytest.approx(86.6e9, rel=1e-3)
    doc = nccl_json(capsys, "all_reduce", "--nodes", "2", "--nic", "xdr", "--pcie", "gen6")
    assert doc["graphs"]["ring"]["bw_inter"] == 48e9  # sm_90's inter speeds stop at 48
    doc = nccl_json(capsys, "all_reduce", "--nodes", "2", "--sharp", "--size", "1GiB")
    assert doc["sharp"] and doc["graphs"]["collnet_direct"] is not None


def test_all_gather_prices_the_gathered_output(capsys: pytest.CaptureFixture) -> None:
    doc = nccl_json(
        capsys, "all_gather", "--nodes", "64", "--gpus-per-node", "1", "--size", "16KiB"
    )
    assert doc["message_bytes"] == 64 * 16 * 1024
    assert (doc["algorithm"], doc["busbw_factor"]) == ("PAT", pytest.approx(63 / 64))


def test_ranks_alone_give_one_node(capsys: pytest.CaptureFixture) -> None:
    doc = nccl_json(capsys, "reduce_scatter", "--ranks", "4")
    assert (doc["nodes"], doc["gpus_per_node"]) == (1, 4)
    doc = nccl_json(capsys, "broadcast", "--ranks", "16", "--nodes", "2")
    assert doc["algorithm"] == "Ring"


def test_forced_algorithm_and_protocol(capsys: pytest.CaptureFixture) -> None:
    doc = nccl_json(capsys, "all_reduce", "--size", "1GiB", "--algorithm", "ring")
    assert (doc["algorithm"], doc["protocol"], doc["forced_algorithm"]) == (
        "Ring",
        "Simple",
        "Ring",
    )
    doc = nccl_json(capsys, "all_reduce", "--protocol", "ll128", "--algorithm", "Tree")
    assert (doc["algorithm"], doc["protocol"]) == ("Tree", "LL128")


def test_text_shows_the_pick_and_its_rivals(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "all_reduce", "--model", "nccl", "--size", "1GiB", "--nodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "16 ranks = 2 nodes × 8 H100 (8 × NDR NICs per node" in out
    assert "NCCL 2.30.7 picks NVLSTree/Simple" in out
    assert "← chosen" in out and "Ring          Simple" in out
    assert "NVLS/Simple: NVLS across nodes needs IB SHARP" in out
    assert "ring 8 × 48/48" in out and "NIC 50.00 GB/s vs 50.00 GB/s" in out
    assert main(["sim", "all_reduce", "--model", "nccl", "--protocol", "LL"]) == 0
    assert "runs (forced: LL) Ring/LL" in capsys.readouterr().out


def test_alpha_beta_stays_the_default(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "all_reduce", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["sim", "all_reduce", "--model", "alpha-beta", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == plain
    assert "model" not in plain and plain["algorithm"] == "ring"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--model", "ncl"],
            "--model: 'ncl' is not one of alpha-beta, nccl, measured; did you mean 'nccl'?",
        ),
        (["--gpu", "h100"], "--gpu applies to --model nccl"),
        (["--sharp"], "--sharp applies to --model nccl"),
        (["--model", "nccl", "--gpu", "h10"], "did you mean 'h100'?"),
        (["--model", "nccl", "--nic", "edr"], "unknown NIC 'edr'"),
        (["--model", "nccl", "--pcie", "gen9"], "unknown PCIe generation"),
        (["--model", "nccl", "--cpu", "arm"], "unknown CPU vendor"),
        (["--model", "nccl", "--protocol", "LL64"], "unknown NCCL protocol 'LL64'"),
        (["--model", "nccl", "--algorithm", "rabenseifner"], "unknown NCCL algorithm"),
        (["--model", "nccl", "--nodes", "0"], "--nodes: must be a whole number from 1"),
        (["--model", "nccl", "--gpus-per-node", "9"], "from 1 to 8"),
        (["--model", "nccl", "--nodes", "70000", "--gpus-per-node", "2"], "at most 131,072"),
        (["--model", "nccl", "--ranks", "1"], "at least 2 ranks"),
        (["--model", "nccl", "--ranks", "12", "--nodes", "2"], "--ranks 12 does not match"),
        (["--model", "nccl", "--nics-per-node", "3"], "must divide"),
        (["--model", "nccl", "--ranks", "16"], "--ranks 16 does not fit one node of 8 GPUs"),
        (["--model", "nccl", "--op", "sumx"], "did you mean 'sum'?"),
        (["--model", "nccl", "--size", "3B"], "whole number of float32 elements"),
        (["--model", "nccl", "--size", "1GB/s"], "--size:"),
        (["--model", "nccl", "--trace"], "--trace applies to --model alpha-beta"),
        (["--model", "nccl", "--link", "nvlink"], "--link applies to --model alpha-beta"),
        (["--model", "nccl", "--algorithm", "tree", "--protocol", "LL"], None),
    ],
)
def test_bad_values_are_one_line_exit_2(
    capsys: pytest.CaptureFixture, argv: list[str], message: str | None
) -> None:
    code = main(["sim", "all_reduce", *argv])
    captured = capsys.readouterr()
    if message is None:  # a valid forced pair: the control case
        assert code == 0 and "Tree/LL" in captured.out
        return
    assert code == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message in captured.err


@pytest.mark.parametrize(
    ("collective", "argv", "message"),
    [
        ("all_to_all", [], "NCCL has no tuner for all_to_all"),
        ("gather", [], "point-to-point"),
        ("all_gather", ["--algorithm", "Tree"], "Tree runs all_reduce only"),
        ("all_reduce", ["--algorithm", "PAT"], "PAT runs all_gather and reduce_scatter"),
        ("all_reduce", ["--algorithm", "NVLS", "--gpu", "a100"], "NVLink SHARP needs"),
        ("all_reduce", ["--algorithm", "nvls", "--protocol", "LL"], "no NVLS LL algorithm"),
        ("al_reduce", [], "did you mean 'all_reduce'?"),
        ("broadcast", ["--root", "8"], "--root must be a rank between 0 and 7"),
    ],
)
def test_impossible_requests_are_one_line_exit_2(
    capsys: pytest.CaptureFixture, collective: str, argv: list[str], message: str
) -> None:
    assert main(["sim", collective, "--model", "nccl", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_sim_nccl_imports_nothing_heavy_at_the_top() -> None:
    import ast
    import inspect

    from quizcoll.cli import sim_nccl

    tree = ast.parse(inspect.getsource(sim_nccl))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = {getattr(n, "module", None) or n.names[0].name for n in top}
    assert not any(name.startswith(("numpy", "quizcoll.collectives")) for name in names if name)


def test_gpu_names_match_the_presets() -> None:
    from quizcoll.cli import sim_nccl
    from quizcoll.collectives import hardware
    from quizcoll.executables import nccl as executables

    assert set(sim_nccl.GPUS) == set(hardware.GPUS) == set(executables.GPUS)
    assert set(executables.NICS) == set(hardware.NICS)


def test_simple_only_reason_matches_the_tuner() -> None:
    from quizcoll.cli import sim_nccl
    from quizcoll.collectives.nccl import tuner

    assert sim_nccl.SIMPLE_ONLY == tuner.SIMPLE_ONLY


def test_forced_protocol_refusal_names_the_real_reason(capsys: pytest.CaptureFixture) -> None:
    assert (
        main(["sim", "all_reduce", "--model", "nccl", "--gpu", "l40s", "--protocol", "LL128"]) == 2
    )
    assert "LL128 needs NVLink" in capsys.readouterr().err
