"""The collectives.* executables: declared params and fields, results, explanations."""

from __future__ import annotations

import pytest

from deck.base.errors import DeckError
from deck.cards.registry import ArgumentError, Dimension
from quizcoll.executables import build_registry

GIB = 2**30


@pytest.fixture(scope="module")
def registry():
    return build_registry()


def test_registered_names(registry) -> None:
    names = set(registry.names())
    expected = {
        "collectives.cost",
        "collectives.crossover",
        "collectives.best_algorithm",
        "collectives.hierarchical",
        "collectives.zero_volume",
    } | {
        f"collectives.{c}"
        for c in (
            "broadcast",
            "scatter",
            "gather",
            "reduce",
            "all_reduce",
            "all_gather",
            "reduce_scatter",
            "all_to_all",
        )
    }
    assert expected <= names
    for name in expected:
        ex = registry.get(name)
        assert ex.explain is not None and ex.summary
        assert ex.fields


def test_ring_all_reduce_card(registry) -> None:
    result = registry.call(
        "collectives.cost", {"collective": "all_reduce", "ranks": 8, "size": "1GiB"}
    )
    assert result["algorithm"] == "ring"
    assert result["steps"] == 14
    assert result["max_bytes_sent"] == 7 * GIB // 4  # 1.75 GiB
    assert result["traffic_factor"] == pytest.approx(1.75)
    assert result["busbw_factor"] == pytest.approx(1.75)
    assert result["busbw"] == pytest.approx(result["algbw"] * 1.75)
    text = registry.get("collectives.cost").explain(
        registry.get("collectives.cost").bind(
            {"collective": "all_reduce", "ranks": 8, "size": GIB}
        ),
        result,
    )
    assert "2(N−1)/N · S" in text and "1.75 GiB" in text and "14" in text


def test_reduce_scatter_is_one_s_not_two(registry) -> None:
    """The seed notes claim 2(N−1)/N·S for a ring reduce-scatter; it is (N−1)/N·S."""
    result = registry.call("collectives.reduce_scatter", {"ranks": 8, "size": "1GiB"})
    assert result["max_bytes_sent"] == 7 * GIB // 8
    assert result["traffic_factor"] == pytest.approx(0.875)


def test_all_gather_factor_is_relative_to_gathered_size(registry) -> None:
    result = registry.call("collectives.all_gather", {"ranks": 4, "size": "256MiB"})
    assert result["message_bytes"] == GIB
    assert result["traffic_factor"] == pytest.approx(0.75)


def test_latency_and_bandwidth_override_the_preset(registry) -> None:
    base = {"collective": "all_reduce", "ranks": 4, "size": "4MB"}
    nv = registry.call("collectives.cost", base)
    ib = registry.call("collectives.cost", {**base, "link": "infiniband"})
    custom = registry.call("collectives.cost", {**base, "latency": "0us", "bandwidth": "100GB/s"})
    assert ib["time_s"] > nv["time_s"]
    assert custom["time_s"] == pytest.approx(1.5 * 4e6 / 100e9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"collective": "allreduce", "ranks": 8, "size": 64}, "is not one of"),
        ({"collective": "all_reduce", "ranks": 1, "size": 64}, "below the minimum"),
        ({"collective": "all_reduce", "ranks": 1025, "size": 64}, "above the maximum 1024"),
        ({"collective": "all_reduce", "ranks": 8, "size": 0}, "below the minimum"),
        ({"collective": "all_reduce", "ranks": 8, "size": 6}, "not a whole number of float32"),
        ({"collective": "reduce_scatter", "ranks": 8, "size": 36}, "equal chunks"),
        (
            {"collective": "all_reduce", "algorithm": "pairwise", "ranks": 8, "size": 64},
            "choose one of ring",
        ),
        ({"collective": "all_reduce", "ranks": 8, "size": "1G"}, "ambiguous"),
    ],
)
def test_bad_arguments_are_one_line_errors(registry, args: dict, message: str) -> None:
    with pytest.raises(DeckError, match=message) as info:
        registry.call("collectives.cost", args)
    assert isinstance(info.value, ArgumentError)
    assert "\n" not in str(info.value)


def test_crossover_and_best_algorithm(registry) -> None:
    c = registry.call("collectives.crossover", {"ranks": 64})
    assert c["ring_time_s"] < c["other_time_s"]
    assert c["below_bytes"] < c["crossover_bytes"]
    assert (
        registry.get("collectives.crossover").field_("crossover_bytes").dimension is Dimension.BYTES
    )
    best = registry.call(
        "collectives.best_algorithm", {"collective": "all_reduce", "ranks": 64, "size": "4KiB"}
    )
    assert best["algorithm"] != "ring"
    big = registry.call(
        "collectives.best_algorithm", {"collective": "all_reduce", "ranks": 63, "size": "1GiB"}
    )
    assert big["algorithm"] == "ring"
    assert (
        registry.get("collectives.best_algorithm").field_("algorithm").dimension is Dimension.TEXT
    )
    with pytest.raises(ArgumentError, match="is not one of"):
        registry.call("collectives.crossover", {"ranks": 16, "other": "rabenseifner"})


def test_hierarchical(registry) -> None:
    args = {"nodes": 4, "gpus_per_node": 8, "size": "1GiB"}
    r = registry.call("collectives.hierarchical", args)
    assert r["inter_bytes_per_gpu"] == 2 * 3 * GIB // 32
    assert r["inter_factor"] == pytest.approx(2 * 3 / 32)
    # at 1 GiB NCCL's one-ring-per-NIC flat ring overlaps NVLink and NIC traffic in every
    # round and beats the three sequential phases; at 1 MiB its 62 network latencies lose
    assert r["speedup"] < 1
    assert r["flat_ring_inter_bytes_per_nic"] == r["flat_ring_inter_bytes_per_gpu"] / 8
    small = registry.call("collectives.hierarchical", {**args, "size": "1MiB"})
    assert small["speedup"] > 1
    text = registry.get("collectives.hierarchical").explain(
        registry.get("collectives.hierarchical").bind(args), r
    )
    assert "2(b−1)/(ab)" in text and "192.00 MiB" in text


def test_zero_volume(registry) -> None:
    dp = registry.call("collectives.zero_volume", {"parameters": "1B", "stage": 0, "gpus": 64})
    z3 = registry.call("collectives.zero_volume", {"parameters": "1B", "stage": 3, "gpus": 64})
    assert dp["psi_multiple"] == pytest.approx(2 * 63 / 64)
    assert z3["psi_multiple"] == pytest.approx(3 * 63 / 64)
    assert z3["bytes_per_gpu"] / dp["bytes_per_gpu"] == pytest.approx(1.5)


@pytest.mark.parametrize("collective", ["broadcast", "scatter", "gather", "reduce", "all_to_all"])
def test_every_collective_explains(registry, collective: str) -> None:
    args = {"ranks": 6, "size": "6KiB", "root": 5}
    r = registry.call(f"collectives.{collective}", args)
    text = registry.get(f"collectives.{collective}").explain(
        registry.get(f"collectives.{collective}").bind(args), r
    )
    assert f"**{collective}" in text and "busbw" in text


def test_cards_count_up_to_1024_ranks(registry) -> None:
    result = registry.call(
        "collectives.cost",
        {"collective": "all_reduce", "algorithm": "rabenseifner", "ranks": 1024, "size": "1GiB"},
    )
    assert result["steps"] == 20 and result["traffic_factor"] == pytest.approx(2 * 1023 / 1024)
    with pytest.raises(ArgumentError, match="above the maximum 256"):
        registry.call("collectives.crossover", {"ranks": 257})
