"""Compute/communication overlap on two streams, against its closed forms."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.cards.registry import ArgumentError
from quizcoll.executables import build_registry
from quizcoll.systems.errors import SystemsInputError
from quizcoll.systems.overlap import Pattern, exposed, simulate

DRAIN, PREFETCH, LOCAL = Pattern.DRAIN, Pattern.PREFETCH, Pattern.LOCAL_FIRST

# (pattern, n, g, c, depth, makespan worked out by hand on the timeline)
TABLE = [
    (DRAIN, 4, 2, 1, 1, 4 * 2 + 1),  # comm hides behind compute: only the last bucket shows
    (DRAIN, 4, 1, 2, 1, 1 + 4 * 2),  # comm-bound: compute of chunk 0, then four transfers
    (DRAIN, 1, 3, 5, 1, 8),  # one bucket: nothing to overlap with
    (PREFETCH, 3, 2, 1, 1, 1 + 3 * 2),  # the first gather is exposed, the rest hidden
    (PREFETCH, 3, 1, 2, 1, 3 * 2 + 1),  # gather-bound: compute trails the last gather
    (PREFETCH, 3, 1, 2, 0, 3 * (1 + 2)),  # depth 0: no prefetch, serial
    (LOCAL, 4, 1, 1, 1, 1 + 3 * 1),  # balanced: every transfer hides behind a GEMM chunk
    (LOCAL, 4, 1, 3, 1, 1 + 3 * 3),  # transfer-bound: GEMM chunks wait for the shards
    (LOCAL, 1, 5, 9, 1, 5),  # one GPU holds everything: no transfer at all
]


@pytest.mark.parametrize(("pattern", "n", "g", "c", "depth", "makespan"), TABLE)
def test_makespan_by_hand(pattern, n, g, c, depth, makespan) -> None:
    run = simulate(pattern, n, g, c, depth)
    assert run.makespan == makespan
    assert run.exposed == makespan - n * g


durations = st.sampled_from([0, 0.25, 0.5, 1, 1.5, 2, 3, 7.75])


@settings(max_examples=200, deadline=None)
@given(
    pattern=st.sampled_from([DRAIN, PREFETCH]),
    n=st.integers(1, 40),
    g=durations,
    c=durations,
    depth=st.integers(1, 5),
)
def test_drain_and_prefetch_expose_c_plus_the_per_chunk_excess(pattern, n, g, c, depth) -> None:
    if g == 0 and c == 0:
        return
    run = simulate(pattern, n, g, c, depth)
    assert run.exposed == pytest.approx(c + (n - 1) * max(0, c - g), abs=1e-12)
    assert run.serial == pytest.approx(n * (g + c))
    assert 0 <= run.hidden_fraction <= 1


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 40), g=durations, c=durations)
def test_collective_matmul_needs_one_transfer_fewer(n, g, c) -> None:
    if g == 0 and c == 0:
        return
    run = simulate(LOCAL, n, g, c)
    assert run.makespan == pytest.approx(g + (n - 1) * max(g, c), abs=1e-12)
    assert run.comm == pytest.approx((n - 1) * c)
    assert sum(1 for i in run.timeline if i.stream == "comm") == (n - 1 if c else 0)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 20), g=durations, c=durations)
def test_no_prefetch_is_serial(n, g, c) -> None:
    if g == 0 and c == 0:
        return
    assert simulate(PREFETCH, n, g, c, depth=0).makespan == pytest.approx(n * (g + c))


def test_the_timeline_never_runs_two_kernels_on_one_stream_at_once() -> None:
    run = simulate(PREFETCH, 6, 1, 1.5, 2)
    for stream in ("compute", "comm"):
        spans = sorted((i.start, i.end) for i in run.timeline if i.stream == stream)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    compute = {i.chunk: i for i in run.timeline if i.stream == "compute"}
    comm = {i.chunk: i for i in run.timeline if i.stream == "comm"}
    assert all(compute[k].start >= comm[k].end for k in comm)  # a unit computes once gathered


def test_single_transfer() -> None:
    assert exposed(3, 5) == 2
    assert exposed(5, 3) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((DRAIN, 0, 1, 1), "chunks"),
        ((DRAIN, 10_000, 1, 1), "chunks"),
        ((DRAIN, 2, -1, 1), "compute"),
        ((DRAIN, 2, 1, float("nan")), "comm"),
        ((DRAIN, 2, 0, 0), "both be zero"),
        ((PREFETCH, 2, 1, 1, 99), "depth"),
    ],
)
def test_refusals(args, message) -> None:
    with pytest.raises(SystemsInputError, match=message):
        simulate(*args)


def test_executables_through_the_registry() -> None:
    registry = build_registry()
    r = registry.call(
        "overlap.chunks", {"pattern": "local-first", "chunks": 8, "compute": 1e-3, "comm": 2e-3}
    )
    assert r["makespan_s"] == pytest.approx(1e-3 + 7 * 2e-3)
    r = registry.call("overlap.exposed", {"compute": 0.004, "comm": 0.006})
    assert r["exposed_s"] == pytest.approx(0.002)
    assert r["hidden_fraction"] == pytest.approx(2 / 3)
    with pytest.raises(ArgumentError):
        registry.call(
            "overlap.chunks", {"pattern": "sideways", "chunks": 2, "compute": 1, "comm": 1}
        )


def test_ddp_buckets_time_each_all_reduce_with_the_ring_simulator() -> None:
    registry = build_registry()
    n, size, alpha, beta, k, backward = 16, 25 * 2**20, 5e-6, 50e9, 8, 0.08
    r = registry.call(
        "overlap.ddp_buckets",
        {
            "backward": backward,
            "bucket": size,
            "buckets": k,
            "ranks": n,
            "latency": alpha,
            "bandwidth": beta,
        },
    )
    c = 2 * (n - 1) * (alpha + size / n / beta)  # Patarasuk & Yuan's ring
    assert r["bucket_time_s"] == pytest.approx(c, rel=1e-12)
    assert r["exposed_s"] == pytest.approx(c + (k - 1) * max(0, c - backward / k), rel=1e-9)
