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
    # the nvlink preset: NCCL's H100 figures, 3.4 µs per round and 18 × 20.6 GB/s
    assert doc["time_s"] == pytest.approx(14 * 3.4e-6 + 1.75 * 2**30 / 370.8e9)


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
        (["all_reduce", "--size", "0"], "--size: must be a whole number from 1 to"),
        (["all_reduce", "--size", "6B"], "not a positive whole number of float32 elements"),
        (["reduce_scatter", "--size", "36B"], "do not split into 8 equal chunks"),
        (["all_reduce", "--ranks", "0"], "--ranks: must be a whole number from 1 to"),
        (["all_reduce", "--ranks", "32", "--trace"], "--trace shows at most 16 ranks"),
        (["all_reduce", "--bandwidth", "5us"], "--bandwidth: 'us' is a unit of seconds"),
        (["all_reduce", "--latency=-1us"], "--latency: must be a number from 0 to 60"),
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


# -- hierarchical all-reduce: --algorithm hierarchical --nodes B --gpus-per-node A ---------

HIERARCHICAL_KEYS = DESIGN_KEYS | {
    "nodes",
    "gpus_per_node",
    "inter_node_bytes_per_gpu",
    "intra_node_bytes_per_gpu",
    "flat_ring_time_s",
}


def hier_json(capsys: pytest.CaptureFixture, nodes: int, gpus: int, *argv: str) -> dict:
    return sim_json(
        capsys,
        "all_reduce",
        "--algorithm",
        "hierarchical",
        "--nodes",
        str(nodes),
        "--gpus-per-node",
        str(gpus),
        *argv,
    )


def test_hierarchical_json_keys_and_values(capsys: pytest.CaptureFixture) -> None:
    doc = hier_json(capsys, 4, 8, "--size", "1GiB")
    assert doc.keys() >= HIERARCHICAL_KEYS
    assert "trace" not in doc
    assert (doc["collective"], doc["algorithm"]) == ("all_reduce", "hierarchical")
    assert (doc["nodes"], doc["gpus_per_node"], doc["ranks"]) == (4, 8, 32)
    assert doc["size_bytes"] == 2**30
    assert doc["steps"] == 2 * (8 - 1) + 2 * (4 - 1)
    assert len(doc["bytes_sent"]) == len(doc["bytes_received"]) == 32
    assert doc["max_bytes_sent"] == max(doc["bytes_sent"])
    assert doc["total_bytes"] == sum(doc["bytes_sent"])
    assert doc["inter_node_bytes_per_gpu"] == 2 * 3 * 2**30 // 32  # 2(b−1)/(ab)·S
    assert doc["intra_node_bytes_per_gpu"] == 2 * 7 * 2**30 // 8  # 2(a−1)/a·S
    # the busiest GPU's bytes are its intra-node plus its inter-node bytes
    assert (
        doc["max_bytes_sent"] == doc["intra_node_bytes_per_gpu"] + doc["inter_node_bytes_per_gpu"]
    )
    assert doc["verified"] is True  # simulated at a smaller count: 32 GiB exceeds the budget
    assert doc["verified_elements"] < 2**28
    assert doc["busbw"] == pytest.approx(doc["algbw"] * 2 * 31 / 32)
    assert doc["algbw"] == pytest.approx(2**30 / doc["time_s"])
    assert [ph["steps"] for ph in doc["phases"]] == [7, 6, 7]
    assert sum(ph["time_s"] for ph in doc["phases"]) == pytest.approx(doc["time_s"])
    # hand-computed α-β times: NVLink phases move S/8 per round, InfiniBand ones S/32
    nv, ib = 3.4e-6 + 2**30 / 8 / 370.8e9, 14e-6 + 2**30 / 32 / 50e9
    assert doc["time_s"] == pytest.approx(14 * nv + 6 * ib)
    # the flat ring runs one ring per NIC (8 NICs a node): each of its 62 rounds moves
    # S/32 over NVLink and, at the node boundary, over 8 × 50 GB/s of NICs
    flat = 62 * max(3.4e-6 + 2**30 / 32 / 370.8e9, 14e-6 + 2**30 / 32 / (8 * 50e9))
    assert doc["flat_ring_time_s"] == pytest.approx(flat)
    assert doc["flat_ring_nics"] == 8
    assert doc["flat_ring_inter_node_bytes_per_gpu"] == 2 * 31 * 2**30 // 32  # one ring
    assert doc["flat_ring_inter_node_bytes_per_nic"] == 2 * 31 * 2**30 / 32 / 8


@pytest.mark.parametrize(
    ("gpus", "nodes"), [(8, 4), (4, 2), (2, 3), (3, 5), (1, 6), (6, 1), (8, 16), (16, 2)]
)
def test_inter_node_bytes_per_gpu_match_the_closed_form(
    capsys: pytest.CaptureFixture, gpus: int, nodes: int
) -> None:
    a, b = gpus, nodes
    size = a * b * 1000 * 4  # a whole number of float32 elements per block
    doc = hier_json(capsys, b, a, "--size", f"{size}B")
    assert doc["inter_node_bytes_per_gpu"] * a * b == 2 * (b - 1) * size
    assert doc["intra_node_bytes_per_gpu"] * a == 2 * (a - 1) * size
    assert doc["inter_node_factor"] == pytest.approx(doc["inter_node_factor_formula"])
    assert doc["inter_node_factor_formula"] == pytest.approx(2 * (b - 1) / (a * b))
    assert doc["inter_node_bytes_sent"] == [doc["inter_node_bytes_per_gpu"]] * (a * b)
    assert doc["verified"] is True and doc["verified_elements"] == size // 4
    if b > 1 and a > 1:  # a flat ring sends 2(N−1)/N·S across nodes from some GPUs
        assert doc["flat_ring_inter_node_bytes_per_gpu"] > doc["inter_node_bytes_per_gpu"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--dtype", "int32", "--op", "prod", "--size", "100B"],
        ["--op", "max", "--size", "36B"],
        ["--dtype", "float64", "--op", "avg", "--size", "8B"],
        ["--dtype", "bf16", "--size", "10B"],
    ],
)
def test_hierarchical_verifies_for_ops_dtypes_and_uneven_counts(
    capsys: pytest.CaptureFixture, argv: list[str]
) -> None:
    doc = hier_json(capsys, 3, 2, *argv)
    assert doc["verified"] is True


def test_hierarchical_verified_comes_from_running_the_schedule(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizcoll.collectives import api

    real = api.run_generic
    seen: list[str] = []

    def corrupted(p, arrays, op):
        seen.append(p.algorithm)
        outputs = real(p, arrays, op)
        outputs[-1] = outputs[-1] + 1
        return outputs

    monkeypatch.setattr(api, "run_generic", corrupted)
    doc = hier_json(capsys, 2, 2, "--size", "64B")
    assert seen == ["hierarchical"]
    assert doc["verified"] is False


def test_nodes_imply_hierarchical_and_ranks_may_repeat_the_product(
    capsys: pytest.CaptureFixture,
) -> None:
    doc = sim_json(capsys, "all_reduce", "--nodes", "2", "--gpus-per-node", "4", "--ranks", "8")
    assert doc["algorithm"] == "hierarchical" and doc["ranks"] == 8


def test_hierarchical_links_are_settable(capsys: pytest.CaptureFixture) -> None:
    base = hier_json(capsys, 2, 4, "--size", "4MB")
    slow = hier_json(capsys, 2, 4, "--size", "4MB", "--inter-bandwidth", "10GB/s")
    assert slow["time_s"] > base["time_s"]
    assert slow["inter_link"]["bandwidth"] == 10e9
    free = hier_json(
        capsys,
        2,
        4,
        "--size",
        "4MB",
        "--intra-latency",
        "0s",
        "--inter-latency",
        "0s",
        "--intra-bandwidth",
        "100GB/s",
        "--inter-bandwidth",
        "100GB/s",
    )
    # one bandwidth everywhere: 2(a−1) rounds of S/a plus 2(b−1) rounds of S/(ab)
    assert free["time_s"] == pytest.approx((6 * 4e6 / 4 + 2 * 4e6 / 8) / 100e9)
    ib = hier_json(capsys, 2, 4, "--size", "4MB", "--intra-link", "infiniband")
    assert ib["intra_link"]["name"] == "infiniband" and ib["time_s"] > base["time_s"]


def test_hierarchical_table_and_trace(capsys: pytest.CaptureFixture) -> None:
    argv = ["sim", "all_reduce", "--algorithm", "hierarchical", "--nodes", "4"]
    assert main([*argv, "--gpus-per-node", "8", "--size", "1GiB"]) == 0
    out = capsys.readouterr().out
    assert "32 ranks = 4 nodes × 8 GPUs per node" in out
    assert "192.00 MiB = 0.1875 × S" in out
    assert "2(b−1)/(ab) · S = 2·3/32 · S = 192.00 MiB" in out
    assert "1.75 GiB = 1.75 × S" in out and "2(a−1)/a · S    = 2·7/8 · S = 1.75 GiB" in out
    assert "inter-node all-reduce         6 rounds" in out
    assert "flat ring over all 32 ranks" in out
    assert "verified           yes (simulated at" in out

    assert main([*argv[:-1], "2", "--gpus-per-node", "2", "--size", "64B", "--trace"]) == 0
    out = capsys.readouterr().out
    assert "rank 0 → rank 2  chunk 1  16 B  +  inter-node" in out
    assert "rank 0 [ 4 4 4 4 ]" in out
    doc = sim_json(capsys, *argv[1:-1], "2", "--gpus-per-node", "2", "--size", "64B", "--trace")
    assert len(doc["trace"]) == doc["steps"] == 4
    crossing = [t for step in doc["trace"] for t in step if t["src"] // 2 != t["dst"] // 2]
    assert sum(t["bytes"] for t in crossing if t["src"] == 0) == doc["inter_node_bytes_per_gpu"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["all_reduce", "--algorithm", "hierarchical"],
            "--algorithm hierarchical needs --nodes B and --gpus-per-node A (ranks = A × B); "
            "missing --nodes and --gpus-per-node",
        ),
        (
            ["all_reduce", "--algorithm", "hierarchical", "--gpus-per-node", "8"],
            "missing --nodes",
        ),
        (["all_reduce", "--nodes", "4"], "missing --gpus-per-node"),
        (
            ["all_reduce", "--nodes", "4", "--gpus-per-node", "8", "--ranks", "16"],
            "--ranks 16 does not match --nodes 4 × --gpus-per-node 8 = 32",
        ),
        (
            ["broadcast", "--algorithm", "hierarchical"],
            "hierarchical is an all_reduce algorithm",
        ),
        (
            ["reduce_scatter", "--nodes", "2", "--gpus-per-node", "2"],
            "reduce_scatter has no hierarchical variant",
        ),
        (["all_reduce", "--algorithm", "ring", "--nodes", "2"], "--nodes applies to the hier"),
        (["all_reduce", "--inter-link", "nvlink"], "--inter-link applies to the hierarchical"),
        (
            ["all_reduce", "--nodes", "2", "--gpus-per-node", "2", "--link", "infiniband"],
            "--link sets a single link class",
        ),
        (
            ["all_reduce", "--nodes", "0", "--gpus-per-node", "2"],
            "--nodes: must be a whole number from 1",
        ),
        (
            ["all_reduce", "--nodes", "65536", "--gpus-per-node", "4"],
            "= 262144 ranks; the simulator takes at most 131,072",
        ),
        (
            ["all_reduce", "--nodes", "4", "--gpus-per-node", "8", "--trace"],
            "--trace shows at most 16 ranks, got 32 (--nodes 4 × --gpus-per-node 8)",
        ),
        (
            ["all_reduce", "--nodes", "2", "--gpus-per-node", "2", "--inter-latency=-1us"],
            "--inter-latency: must be a number from 0 to 60",
        ),
        (
            ["all_reduce", "--nodes", "2", "--gpus-per-node", "2", "--intra-bandwidth", "3us"],
            "--intra-bandwidth: 'us' is a unit of seconds",
        ),
        (["all_reduce", "--algorithm", "hierarchal"], "did you mean 'hierarchical'?"),
    ],
)
def test_hierarchical_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture, argv: list[str], message: str
) -> None:
    assert main(["sim", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_algorithms_list_hierarchical_only_with_a_topology() -> None:
    from quizcoll import collectives as co
    from quizcoll.cli import cmd_sim

    assert "hierarchical" not in co.algorithms("all_reduce")  # run() needs gpus_per_node
    assert co.algorithms("all_reduce", topology=True)[-1] == "hierarchical"
    assert co.algorithms("broadcast", topology=True) == co.algorithms("broadcast")
    with pytest.raises(co.CollectiveError, match="needs nodes × GPUs per node"):
        co.plan("all_reduce", 8, 64, algorithm="hierarchical")
    with pytest.raises(co.CollectiveError, match="all_reduce only"):
        co.plan("reduce", 8, 64, algorithm="hierarchical")
    with pytest.raises(co.CollectiveError, match="hierarchical all_reduce only"):
        co.plan("all_reduce", 8, 64, algorithm="ring", gpus_per_node=4)
    with pytest.raises(co.CollectiveError, match="positive divisor of the 8 ranks"):
        co.plan("all_reduce", 8, 64, algorithm="hierarchical", gpus_per_node=3)
    p = co.plan("all_reduce", 8, 64, algorithm="hierarchical", gpus_per_node=4)
    assert (p.algorithm, p.gpus_per_node, p.steps) == ("hierarchical", 4, 8)
    assert cmd_sim.MAX_RANKS == co.MAX_RANKS


def test_131072_ranks_are_counted_and_checked_at_1024(capsys: pytest.CaptureFixture) -> None:
    doc = sim_json(capsys, "all_reduce", "--ranks", "131072", "--size", "1GiB")
    n = 131_072
    assert (doc["ranks"], doc["steps"], len(doc["bytes_sent"])) == (n, 2 * (n - 1), n)
    assert doc["max_bytes_sent"] == 2 * (n - 1) * 2**30 // n
    assert (doc["verified"], doc["verified_ranks"], doc["verified_elements"]) == (True, 1024, 2048)
    assert "verified_root" not in doc


def test_the_text_says_where_the_data_was_moved(capsys: pytest.CaptureFixture) -> None:
    argv = ["sim", "all_reduce", "--nodes", "16384", "--gpus-per-node", "8", "--size", "1GiB"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert (
        "verified           yes (data moved at 1,024 ranks (128 nodes × 8) × 2,048 elements "
        "per rank; counts and time above are for all 131,072 ranks)"
    ) in out
    assert main(["sim", "broadcast", "--ranks", "3000", "--root", "2500", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["verified_ranks"], doc["verified_root"], doc["root"]) == (1023, 2500 % 1023, 2500)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["all_reduce", "--ranks", "131073"], "ranks must be between 1 and 131,072, got 131,073"),
        (["all_reduce", "--seed", "-1"], "--seed: must be a whole number from 0 to 2^63-1, got -1"),
    ],
)
def test_scale_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture, argv: list[str], message: str
) -> None:
    assert main(["sim", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
