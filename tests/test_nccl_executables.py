"""nccl.choose, nccl.time and hardware.link: declarations, answers a card can state, and
one-line refusals."""

from __future__ import annotations

import pytest

from deck.cards.registry import ArgumentError, Dimension
from quizcoll.executables import build_registry

GIB, MIB, KIB = 2**30, 2**20, 2**10


@pytest.fixture(scope="module")
def registry():
    return build_registry()


def test_registered_with_text_fields(registry) -> None:
    for name in ("nccl.choose", "nccl.time", "hardware.link"):
        assert name in registry
    choose = registry.get("nccl.choose")
    assert choose.field_("algorithm").dimension is Dimension.TEXT
    assert choose.field_("protocol").dimension is Dimension.TEXT
    assert choose.field_("busbw").dimension is Dimension.RATE
    assert registry.get("hardware.link").field_("nccl_bw").dimension is Dimension.RATE


@pytest.mark.parametrize(
    ("nodes", "size", "algorithm", "protocol"),
    [
        (1, "64KiB", "Ring", "LL"),
        (1, "1MiB", "Ring", "LL"),
        (1, "1GiB", "NVLS", "Simple"),
        (2, "64KiB", "Tree", "LL"),
        (2, "1MiB", "Tree", "LL128"),
        (2, "1GiB", "NVLSTree", "Simple"),
    ],
)
def test_what_nccl_picks_on_8_h100s(
    registry, nodes: int, size: str, algorithm: str, protocol: str
) -> None:
    r = registry.call("nccl.choose", {"collective": "all_reduce", "size": size, "nodes": nodes})
    assert (r["algorithm"], r["protocol"], r["choice"]) == (
        algorithm,
        protocol,
        f"{algorithm}/{protocol}",
    )
    assert r["ranks"] == 8 * nodes
    assert r["runner_up"] != r["choice"] and r["runner_up_time_s"] >= r["time_s"]
    assert r["candidates"].startswith(f"{algorithm}/{protocol} ")


def test_nvls_busbw_above_line_rate(registry) -> None:
    pick = registry.call("nccl.choose", {"collective": "all_reduce", "size": "8GiB"})
    link = registry.call("hardware.link", {"link": "h100"})
    assert pick["busbw"] > link["line_rate"] > link["nccl_bw"]
    assert round(pick["busbw"] / 1e9) == 476  # approaches 476 GB/s
    ring = registry.call(
        "nccl.time",
        {"collective": "all_reduce", "size": "8GiB", "algorithm": "Ring", "protocol": "Simple"},
    )
    assert ring["busbw"] < link["nccl_bw"]  # 360 GB/s: 12 channels × 30


def test_ring_latency_at_16384_gpus(registry) -> None:
    args = {"collective": "all_reduce", "size": "8B", "nodes": 2048}
    ring = registry.call("nccl.time", {**args, "algorithm": "Ring", "protocol": "Simple"})
    tree = registry.call("nccl.time", {**args, "algorithm": "Tree", "protocol": "Simple"})
    assert ring["ranks"] == 16_384
    assert ring["latency_s"] == pytest.approx((8.4 + 28_672 * 3.4 + 4_094 * 14) * 1e-6)
    assert ring["latency_s"] / tree["latency_s"] > 400
    assert registry.call("nccl.choose", args)["algorithm"] == "Tree"


def test_pat_for_one_gpu_per_node(registry) -> None:
    args = {"collective": "all_gather", "size": "1MiB", "nodes": 64, "gpus_per_node": 1}
    assert registry.call("nccl.choose", args)["choice"] == "PAT/Simple"
    assert registry.call("nccl.choose", {**args, "gpus_per_node": 8})["algorithm"] != "PAT"


@pytest.mark.parametrize(
    ("link", "line", "nccl"),
    [
        ("h100", 450, 370.8),
        ("b200", 900, 721.8),
        ("a100", 300, 240),
        ("ndr", 50, 50),
        ("gen4", 16 * 16 / 8 * 128 / 130, 24),
        ("gen5", 32 * 16 / 8 * 128 / 130, 48),
    ],
)
def test_line_rate_vs_nccl(registry, link: str, line: float, nccl: float) -> None:
    r = registry.call("hardware.link", {"link": link})
    assert r["line_rate"] == pytest.approx(line * 1e9)
    assert r["nccl_bw"] == pytest.approx(nccl * 1e9)
    assert r["bidirectional_line_rate"] == pytest.approx(2 * line * 1e9)
    assert r["nccl_over_line"] == pytest.approx(nccl / line)
    assert r["source"]


def test_explanations(registry) -> None:
    for name, args in [
        ("nccl.choose", {"collective": "all_reduce", "size": "1GiB"}),
        (
            "nccl.time",
            {"collective": "all_reduce", "size": "1GiB", "algorithm": "Tree", "protocol": "LL"},
        ),
        ("hardware.link", {"link": "ndr"}),
    ]:
        ex = registry.get(name)
        bound = ex.bind(args)
        text = ex.explain(bound, registry.call(name, args))
        assert "**" in text and "GB/s" in text


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("nccl.choose", {"collective": "all_to_all", "size": "1MiB"}, "all_to_all"),
        ("nccl.choose", {"collective": "all_reduce", "size": "1MiB", "gpu": "v100"}, "gpu"),
        (
            "nccl.choose",
            {"collective": "all_reduce", "size": "1MiB", "nodes": 1, "gpus_per_node": 1},
            "at least 2 ranks",
        ),
        (
            "nccl.choose",
            {"collective": "all_reduce", "size": "1MiB", "nodes": 131_072},
            "at most 131,072",
        ),
        (
            "nccl.time",
            {"collective": "all_gather", "size": "1MiB", "algorithm": "Tree", "protocol": "LL"},
            "Tree runs all_reduce only",
        ),
        ("hardware.link", {"link": "nvlink9"}, "link"),
    ],
)
def test_refusals_are_argument_errors(registry, name: str, args: dict, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        registry.call(name, args)
