"""The extra collective executables against their closed forms: Bruck (Bruck et al. 1997),
the pipelined chain broadcast, in-network reduction, gradient compression, nccl-tests'
bandwidths and stragglers (quizcoll/executables/collectives_extra.py, collectives_practice.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.cards.registry import ArgumentError
from quizcoll.executables import build_registry
from quizcoll.executables.collectives_extra import bruck_schedule, chain_rounds, run_bruck

REGISTRY = build_registry()


def call(name: str, **args: object) -> dict:
    return REGISTRY.call(name, args)


@pytest.mark.parametrize("n", [*range(1, 18), 31, 32, 33, 64])
def test_bruck_moves_blocks_as_the_collectives_define(n: int) -> None:
    gathered = run_bruck("all_gather", [[("block", r)] for r in range(n)])
    assert gathered == [[("block", j) for j in range(n)]] * n
    exchanged = run_bruck("all_to_all", [[(r, j) for j in range(n)] for r in range(n)])
    assert exchanged == [[(j, r) for j in range(n)] for r in range(n)]


@given(st.integers(2, 1024))
@settings(max_examples=40, deadline=None)
def test_bruck_rounds_and_bytes(n: int) -> None:
    rounds = math.ceil(math.log2(n))
    ag = call("collectives.bruck", collective="all_gather", ranks=n, size=4096)
    assert ag["steps"] == rounds == len(bruck_schedule("all_gather", n))
    assert ag["max_bytes_sent"] == (n - 1) * 4096 == ag["baseline_bytes_sent"]
    a2a = call("collectives.bruck", collective="all_to_all", ranks=n, size=n * 64)
    blocks = sum(bin(i).count("1") for i in range(n))  # position i travels once per set bit
    assert (a2a["steps"], a2a["max_bytes_sent"]) == (rounds, blocks * 64)
    assert a2a["baseline_bytes_sent"] == (n - 1) * 64


@pytest.mark.parametrize("k", [1, 2, 5, 10])
def test_bruck_all_to_all_power_of_two_sends_half_the_blocks_every_round(k: int) -> None:
    n, block = 2**k, 1000
    r = call("collectives.bruck", collective="all_to_all", ranks=n, size=n * block)
    assert r["max_bytes_sent"] == n // 2 * k * block
    assert r["time_s"] == pytest.approx(k * (3.4e-6 + n / 2 * block / 370.8e9))


@pytest.mark.parametrize(("n", "k"), [(2, 1), (2, 7), (8, 1), (8, 16), (64, 100), (1024, 4096)])
def test_chain_broadcast_takes_n_plus_k_minus_2_rounds(n: int, k: int) -> None:
    assert chain_rounds(n, k)[-1] == n + k - 2
    size, a, bw = 2**30, 5e-6, 50e9
    r = call(
        "collectives.chain_broadcast",
        ranks=n,
        size=size,
        chunks=k,
        latency=a,
        bandwidth=bw,
    )
    assert r["steps"] == n + k - 2
    assert r["time_s"] == pytest.approx((n + k - 2) * (a + size / k / bw))
    assert r["unpipelined_time_s"] == pytest.approx((n - 1) * (a + size / bw))
    if n > 2:  # the optimum of (N+k−2)(α + S/(kB)) is at k* = √((N−2)·S/(α·B))
        best = math.sqrt((n - 2) * size / (a * bw))
        assert abs(r["best_chunks"] - min(best, max(k, 256))) <= 1


@pytest.mark.parametrize("n", [2, 4, 8, 64, 1000])
def test_in_network_reduction_sends_s_against_the_ring(n: int) -> None:
    size = 2**20 * n
    r = call("collectives.in_network", ranks=n, size=size, latency=0, bandwidth=100e9)
    assert r["bytes_sent_per_gpu"] == r["bytes_received_per_gpu"] == size
    assert r["ring_bytes_sent_per_gpu"] == 2 * (n - 1) * size // n
    assert r["traffic_ratio"] == pytest.approx(n / (2 * (n - 1)))
    assert r["busbw"] == pytest.approx(100e9 * 2 * (n - 1) / n)  # above the link rate


@pytest.mark.parametrize(("m", "n", "rank"), [(4096, 4096, 1), (4096, 11008, 4), (1024, 512, 32)])
def test_powersgd_sends_p_and_q(m: int, n: int, rank: int) -> None:
    r = call("compression.powersgd", rows=m, cols=n, rank=rank, gpus=8)
    assert r["compressed_elements"] == (m + n) * rank
    assert r["ratio"] == pytest.approx(rank * (m + n) / (m * n))
    assert r["dense_bytes_per_gpu"] == 2 * 7 * m * n * 4 // 8
    assert r["bytes_ratio"] == pytest.approx(r["ratio"])


def test_a_bf16_cast_hook_halves_the_bytes() -> None:
    r = call("compression.cast", elements=10**9, gpus=16, dtype="float32", wire_dtype="bfloat16")
    assert r["bytes_per_gpu"] == 2 * 15 * 4 * 10**9 // 16
    assert r["bytes_ratio"] == 0.5


@pytest.mark.parametrize(
    ("collective", "factor", "s_per_input"),
    [("all_reduce", 2 * 7 / 8, 1), ("all_gather", 7 / 8, 8), ("broadcast", 1, 1)],
)
def test_nccltests_bandwidth(collective: str, factor: float, s_per_input: int) -> None:
    r = call("nccltests.bandwidth", collective=collective, ranks=8, size=2**27, time=1e-3)
    assert r["message_bytes"] == s_per_input * 2**27
    assert r["algbw"] == pytest.approx(s_per_input * 2**27 / 1e-3)
    assert r["busbw"] == pytest.approx(r["algbw"] * factor)


@pytest.mark.parametrize(("n", "slow"), [(8, 1), (64, 1), (64, 8), (1024, 0)])
def test_a_collective_waits_for_its_last_rank(n: int, slow: int) -> None:
    c, d, comm = 0.1, 0.02, 0.03
    r = call("collectives.straggler", ranks=n, slow=slow, compute=c, delay=d, comm=comm)
    late = d if slow else 0.0
    assert r["step_time_s"] == pytest.approx(c + late + comm)
    assert r["idle_gpu_seconds"] == pytest.approx((n - slow) * late)
    assert r["idle_fraction"] == pytest.approx((n - slow) * late / (n * (c + late + comm)))


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("collectives.bruck", {"collective": "all_reduce", "ranks": 8, "size": 8}, "one of"),
        ("collectives.bruck", {"collective": "all_to_all", "ranks": 8, "size": 12}, "8 equal"),
        ("compression.powersgd", {"rows": 4, "cols": 8, "rank": 5, "gpus": 2}, "min(rows"),
        (
            "collectives.straggler",
            {"ranks": 4, "slow": 5, "compute": 1, "delay": 1, "comm": 1},
            "5",
        ),
    ],
)
def test_refusals_are_one_line_argument_errors(name: str, args: dict, message: str) -> None:
    with pytest.raises(ArgumentError, match=message.replace("(", r"\(")):
        REGISTRY.call(name, args)


@given(st.integers(2, 1024))
@settings(max_examples=40, deadline=None)
def test_nccl_tree_is_ceil_log2_deep_a_balanced_one_floor(n: int) -> None:
    r = call("collectives.tree_depth", ranks=n)
    assert r["depth"] == math.ceil(math.log2(n))
    assert r["balanced_depth"] == math.floor(math.log2(n))
    assert (r["root_children"], r["max_children"]) == (1, 2 if n > 3 else 1)
    # the simulator's double binary tree: up the depth and back down
    steps = call("collectives.all_reduce", algorithm="double_binary_tree", ranks=n, size=n * 64)
    assert steps["steps"] == 2 * r["depth"]


@pytest.mark.parametrize(("n", "shown"), [(256, True), (448, False), (6, False)])
def test_explain_states_log_step_forms_only_where_they_hold(n: int, shown: bool) -> None:
    from quizcoll.executables.collectives import explain_cost

    args = {"algorithm": "rabenseifner", "ranks": n, "size": 2**20, "dtype": "int8"}
    text = explain_cost(args, call("collectives.all_reduce", **args))
    assert ("= 2·log2(N)" in text) is shown


@pytest.mark.parametrize(
    ("name", "args", "shown"),
    [
        ("collectives.bruck", {"collective": "all_gather", "ranks": 8, "size": 1024}, "3 rounds"),
        ("collectives.chain_broadcast", {"ranks": 8, "size": 2**20, "chunks": 4}, "10 rounds"),
        ("collectives.in_network", {"ranks": 8, "size": 2**20}, "1.00 MiB"),
        ("compression.powersgd", {"rows": 64, "cols": 32, "rank": 2, "gpus": 4}, "192"),
        ("compression.cast", {"elements": 1000, "gpus": 2, "wire_dtype": "bfloat16"}, "×0.5"),
        (
            "nccltests.bandwidth",
            {"collective": "all_reduce", "ranks": 2, "size": 1000, "time": 1},
            "1,000 B",
        ),
        (
            "collectives.straggler",
            {"ranks": 4, "slow": 1, "compute": 1, "delay": 1, "comm": 0},
            "37.5%",
        ),
        ("collectives.tree_depth", {"ranks": 5}, "3 levels"),
    ],
)
def test_every_extra_executable_explains_its_answer(name: str, args: dict, shown: str) -> None:
    ex = REGISTRY.get(name)
    assert ex.explain is not None and ex.summary
    text = ex.explain(ex.bind(args), REGISTRY.call(name, args))
    assert shown in text, text
