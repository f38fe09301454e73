"""The fabric, SM-wave, dispatch and summation calculators against independent figures:
networkx's max-flow on the same leaf–spine graph, a closed-form wave count, an exhaustive
token-by-token routing, and PyTorch's and ml_dtypes' own low-precision arithmetic."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.systems import ep_dispatch, fabric, sm_waves, summation
from quizcoll.systems.errors import SystemsInputError


def _max_flow_bisection(leaves: int, hosts: int, uplinks: int, link: float) -> float:
    """networkx max-flow from the first half's hosts to the second half's, per host."""
    g = nx.DiGraph()
    half = leaves // 2
    for leaf in range(leaves):
        for h in range(hosts):
            if leaf < half:
                g.add_edge("src", ("h", leaf, h), capacity=link)
                g.add_edge(("h", leaf, h), ("leaf", leaf), capacity=link)
            else:
                g.add_edge(("leaf", leaf), ("h", leaf, h), capacity=link)
                g.add_edge(("h", leaf, h), "dst", capacity=link)
        for s in range(uplinks):
            if leaf < half:
                g.add_edge(("leaf", leaf), ("spine", s), capacity=link)
            else:
                g.add_edge(("spine", s), ("leaf", leaf), capacity=link)
    value, _ = nx.maximum_flow(g, "src", "dst")
    return value / (half * hosts)


@pytest.mark.parametrize(("hosts", "uplinks"), [(16, 8), (16, 16), (32, 8), (8, 16), (12, 5)])
def test_water_filling_matches_max_flow(hosts, uplinks) -> None:
    rates = fabric.permutation_rates(4, hosts, uplinks, 50.0)
    assert min(rates) == pytest.approx(_max_flow_bisection(4, hosts, uplinks, 50.0))


def test_hashed_routing_never_beats_spreading() -> None:
    rng = np.random.default_rng(3)
    spread = sum(fabric.permutation_rates(4, 8, 8, 1.0))
    for _ in range(20):
        assert sum(fabric.permutation_rates(4, 8, 8, 1.0, hashed=True, rng=rng)) <= spread + 1e-9


@settings(max_examples=60, deadline=None)
@given(tiles=st.integers(1, 5000), sms=st.integers(1, 200))
def test_list_schedule_waves(tiles: int, sms: int) -> None:
    g = sm_waves.schedule(tiles, sms)
    assert g.waves == -(-tiles // sms)
    assert g.last_wave_tiles == tiles - (g.waves - 1) * sms


def test_h100_gemm_loses_a_wave_to_sixteen_channels() -> None:
    # 8192 × 8192 in 128 × 256 tiles: 64 × 32 = 2048 tiles; 2048/132 → 16 waves, 2048/116 → 18.
    alone, shared = sm_waves.with_channels(sm_waves.tiles(8192, 8192, 128, 256), 132, 16)
    assert (alone.waves, shared.waves) == (16, 18)
    with pytest.raises(SystemsInputError):
        sm_waves.with_channels(10, 8, 8)


def _routed_offnode(tokens, top_k, experts, nodes, gpn) -> float:
    """Average over every top-k expert set of one token (all equally likely) of the copies
    that leave GPU 0's node, times the tokens."""
    per_gpu = experts // (nodes * gpn)
    sets = list(itertools.combinations(range(experts), top_k))
    off = sum(sum(1 for e in s if (e // per_gpu) // gpn != 0) for s in sets)
    return tokens * off / len(sets)


@pytest.mark.parametrize(
    ("experts", "top_k", "nodes", "gpn"), [(8, 2, 2, 2), (12, 3, 3, 2), (16, 4, 2, 4), (6, 1, 3, 1)]
)
def test_dispatch_enumeration_matches_every_routing(experts, top_k, nodes, gpn) -> None:
    d = ep_dispatch.dispatch(10, top_k, 4, 2, experts, nodes, gpn, 1e9)
    assert d.offnode_bytes == pytest.approx(_routed_offnode(10, top_k, experts, nodes, gpn) * 4 * 2)
    assert d.local_bytes + d.node_bytes + d.offnode_bytes == pytest.approx(10 * top_k * 4 * 2)


def _torch_sequential(value: float, count: int, dtype: torch.dtype) -> float:
    acc = torch.zeros((), dtype=dtype)
    x = torch.tensor(value, dtype=dtype)
    for _ in range(count):
        acc = acc + x
    return float(acc)


@pytest.mark.parametrize(
    ("value", "count", "fmt", "dtype"),
    [
        (1.0, 1000, "bf16", torch.bfloat16),
        (0.1, 3000, "bf16", torch.bfloat16),
        (0.3, 700, "bf16", torch.bfloat16),
        (1.0, 3000, "fp16", torch.float16),
        (0.01, 5000, "fp16", torch.float16),
        (1.7, 2000, "fp32", torch.float32),
    ],
)
def test_emulated_sums_equal_torch(value, count, fmt, dtype) -> None:
    ours = summation.repeated(value, count, fmt, fmt, "sequential").result
    assert ours == _torch_sequential(value, count, dtype)


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e4, 1e4).filter(lambda v: v == 0 or abs(v) > 1e-30))
def test_round_to_matches_ml_dtypes(value: float) -> None:
    import ml_dtypes

    for fmt, dtype in (("bf16", ml_dtypes.bfloat16), ("fp16", np.float16)):
        f = summation.fmt(fmt)
        if value != 0 and abs(value) < f.min_normal:
            continue
        if abs(value) > f.max_value:
            continue
        assert summation.round_to(value, f) == float(
            np.array(value, dtype=np.float64).astype(dtype)
        )


def test_stall_and_pairwise() -> None:
    assert summation.repeated(1.0, 1000, "bf16", "bf16", "sequential").result == 256
    assert summation.repeated(1.0, 1024, "bf16", "bf16", "pairwise").result == 1024
    assert summation.big_then_small(1024, 1, 100, "bf16") == (1024, 1120)
    with pytest.raises(SystemsInputError):
        summation.round_to(1e6, summation.fmt("fp16"))


def test_free_channels_is_the_last_count_that_keeps_the_waves() -> None:
    from quizcoll.executables import build_registry

    reg = build_registry()
    r = reg.call("gemm.waves", {"m": 8192, "n": 8192, "sms": 132, "channels": 0})
    # 2048 tiles in 16 waves need 128 SMs: 4 may go to NCCL, the fifth adds a wave.
    assert (r["free_channels"], r["utilisation"]) == (4, 2048 / (16 * 132))
    five = reg.call("gemm.waves", {"m": 8192, "n": 8192, "sms": 132, "channels": 5})
    four = reg.call("gemm.waves", {"m": 8192, "n": 8192, "sms": 132, "channels": 4})
    assert four["waves_shared"] == 16 and five["waves_shared"] == 17
