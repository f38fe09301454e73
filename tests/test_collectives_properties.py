"""Hypothesis identities between collectives, and traces that agree with the traffic."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.collectives import algorithms, plan, run

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def rank_data(draw: st.DrawFn, *, multiple_of_ranks: bool = False) -> tuple[list, str]:
    n = draw(st.integers(1, 12))
    per = draw(st.integers(1, 6))
    count = per * n if multiple_of_ranks else per
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(-100, 100, count).astype(np.int64) for _ in range(n)]
    op = draw(st.sampled_from(["sum", "prod", "max", "min", "avg"]))
    return inputs, op


@SETTINGS
@given(rank_data(multiple_of_ranks=True), st.data())
def test_all_reduce_is_all_gather_of_reduce_scatter(case: tuple, data: st.DataObject) -> None:
    inputs, op = case
    rs_alg = data.draw(st.sampled_from(algorithms("reduce_scatter")))
    ag_alg = data.draw(st.sampled_from(algorithms("all_gather")))
    ar_alg = data.draw(st.sampled_from(algorithms("all_reduce")))
    shards = run("reduce_scatter", inputs, algorithm=rs_alg, op=op).outputs
    gathered = run("all_gather", shards, algorithm=ag_alg).outputs
    direct = run("all_reduce", inputs, algorithm=ar_alg, op=op).outputs
    for a, b in zip(gathered, direct, strict=True):
        np.testing.assert_array_equal(a, b)


@SETTINGS
@given(rank_data(multiple_of_ranks=True), st.data())
def test_gather_after_scatter_is_identity(case: tuple, data: st.DataObject) -> None:
    inputs, _ = case
    n = len(inputs)
    root = data.draw(st.integers(0, n - 1))
    pieces = run(
        "scatter", inputs, algorithm=data.draw(st.sampled_from(algorithms("scatter"))), root=root
    ).outputs
    back = run(
        "gather", pieces, algorithm=data.draw(st.sampled_from(algorithms("gather"))), root=root
    ).outputs
    np.testing.assert_array_equal(back[root], inputs[root])
    assert all(back[r] is None for r in range(n) if r != root)


@SETTINGS
@given(st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_all_to_all_twice_with_transposed_splits_is_identity(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    splits = rng.integers(0, 5, size=(n, n))
    if splits.sum() == 0:
        splits[0, 0] = 1
    inputs = [rng.standard_normal(int(splits[r].sum())) for r in range(n)]
    there = run("all_to_all", inputs, split_sizes=splits).outputs
    back = run("all_to_all", there, split_sizes=splits.T).outputs
    for a, b in zip(back, inputs, strict=True):
        np.testing.assert_array_equal(a, b)


@SETTINGS
@given(rank_data(), st.data())
def test_outputs_do_not_depend_on_the_algorithm(case: tuple, data: st.DataObject) -> None:
    inputs, op = case
    n = len(inputs)
    collective = data.draw(st.sampled_from(["broadcast", "reduce", "all_reduce", "all_gather"]))
    root = data.draw(st.integers(0, n - 1))
    results = [
        run(collective, inputs, algorithm=a, op=op, root=root).outputs
        for a in algorithms(collective)
    ]
    for other in results[1:]:
        for a, b in zip(results[0], other, strict=True):
            if a is None:
                assert b is None
            else:
                np.testing.assert_array_equal(a, b)


@SETTINGS
@given(st.integers(1, 12), st.integers(1, 40), st.data())
def test_trace_agrees_with_traffic_and_ends_complete(n: int, per: int, data: st.DataObject) -> None:
    collective = data.draw(
        st.sampled_from(["all_reduce", "reduce_scatter", "all_gather", "broadcast", "reduce"])
    )
    algorithm = data.draw(st.sampled_from(algorithms(collective)))
    count = per * n
    p = plan(collective, n, count, algorithm=algorithm, dtype="float32")
    trace = p.trace
    sent = np.zeros(n, dtype=np.int64)
    for step in trace:
        np.add.at(sent, step.src, step.bytes)
    np.testing.assert_array_equal(sent, p.bytes_sent)
    assert sum(len(t) for t in trace.to_json()) == p.schedule.rows
    held = trace.holdings()
    assert held.shape == (p.steps + 1, n, trace.chunks)
    final = held[-1]
    for r in range(n):
        blocks = p.layout.outputs[r]
        if blocks is not None:
            # reduced blocks hold all N contributions; moved blocks are present (one each)
            expected = n if collective in ("all_reduce", "reduce_scatter", "reduce") else 1
            assert (final[r, blocks] == expected).all(), (collective, algorithm, r)


@SETTINGS
@given(st.integers(2, 12), st.integers(1, 9))
def test_per_step_and_per_link_traffic_add_up(n: int, per: int) -> None:
    p = plan("all_reduce", n, per * n, algorithm="ring")
    trace = p.trace
    np.testing.assert_array_equal(trace.sent_per_step().sum(axis=0), p.bytes_sent)
    np.testing.assert_array_equal(trace.received_per_step().sum(axis=0), p.bytes_received)
    links = trace.per_link()
    np.testing.assert_array_equal(links.sum(axis=1), p.bytes_sent)
    # a ring only uses the links to the next rank
    assert all(links[r, (r + 1) % n] == p.bytes_sent[r] for r in range(n))
