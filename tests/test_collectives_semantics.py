"""Every collective × algorithm × op against the plain-numpy definition, N = 1..17."""

from __future__ import annotations

import numpy as np
import pytest

from quizcoll.collectives import (
    CollectiveError,
    algorithms,
    plan,
    reference,
    run,
    verify,
)
from quizcoll.collectives.api import run_generic
from quizcoll.collectives.ops import Op
from quizcoll.collectives.semantics import Collective

PAIRS = [(c.value, a) for c in Collective for a in algorithms(c)]
REDUCING_OPS = ["sum", "prod", "max", "min", "avg"]


def _counts(collective: str, n: int) -> list[int]:
    if collective in ("scatter", "reduce_scatter", "all_to_all"):
        return [n, 3 * n]  # these split the buffer into N equal chunks
    if collective in ("gather", "all_gather"):
        return [1, 3]
    return [1, n + 1, 3 * n + 2]  # also fewer elements than ranks, and uneven chunks


def _data(rng: np.random.Generator, dtype: type, count: int, op: str) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, count).astype(dtype)
    if op == "prod":
        return rng.uniform(0.5, 1.5, count).astype(dtype)
    return rng.standard_normal(count).astype(dtype)


@pytest.mark.parametrize(("collective", "algorithm"), PAIRS)
def test_matches_definition(collective: str, algorithm: str) -> None:
    rng = np.random.default_rng(hash((collective, algorithm)) % 2**32)
    ops = REDUCING_OPS if Collective(collective).reduces else ["sum"]
    for n in range(1, 18):
        root = (n * 7 + 3) % n
        for count in _counts(collective, n):
            for op in ops:
                for dtype in (np.float64, np.int32):
                    inputs = [_data(rng, dtype, count, op) for _ in range(n)]
                    result = run(collective, inputs, algorithm=algorithm, op=op, root=root)
                    expected = reference(Collective(collective), inputs, op=Op(op), root=root)
                    assert result.algorithm == algorithm
                    for got, want in zip(result.outputs, expected, strict=True):
                        if want is None:
                            assert got is None
                        elif np.issubdtype(dtype, np.integer) or op in ("max", "min"):
                            np.testing.assert_array_equal(got, want)
                        else:
                            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
                    assert verify(result, inputs), (collective, algorithm, n, count, op)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 17])
def test_all_to_all_uneven_splits(n: int) -> None:
    rng = np.random.default_rng(n)
    splits = rng.integers(0, 4, size=(n, n))
    inputs = [rng.integers(-9, 9, int(splits[r].sum())).astype(np.int64) for r in range(n)]
    result = run("all_to_all", inputs, split_sizes=splits)
    expected = reference(Collective.ALL_TO_ALL, inputs, split_sizes=splits)
    for got, want in zip(result.outputs, expected, strict=True):
        np.testing.assert_array_equal(got, want)
    # rank r receives exactly what the others send it
    assert result.bytes_received.tolist() == [
        8 * int(splits[:, r].sum() - splits[r, r]) for r in range(n)
    ]


@pytest.mark.parametrize("collective", ["all_reduce", "reduce_scatter", "all_gather"])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 16])
@pytest.mark.parametrize("count_per_rank", [1, 5, 700])
def test_ring_kernel_equals_general_executor(collective: str, n: int, count_per_rank: int) -> None:
    """The vectorised ring runs the same schedule, in the same order, as the executor."""
    rng = np.random.default_rng(n)
    count = count_per_rank * n if collective != "all_gather" else count_per_rank
    if collective == "all_reduce":
        count += n // 2  # uneven chunks too
    inputs = [rng.standard_normal(count).astype(np.float32) for _ in range(n)]
    for op in ("sum", "prod", "avg"):
        fast = run(collective, inputs, algorithm="ring", op=op)
        p = plan(collective, n, count, algorithm="ring")
        slow = run_generic(p, inputs, Op(op))
        for a, b in zip(fast.outputs, slow, strict=True):
            np.testing.assert_array_equal(a, b)  # bitwise: same operands, same order


def test_integer_avg_truncates_toward_zero() -> None:
    inputs = [np.array([-3, 3, 7], dtype=np.int64), np.array([0, 0, 0], dtype=np.int64)]
    out = run("all_reduce", inputs, op="avg").outputs[0]
    assert out.tolist() == [-1, 1, 3]


def test_float_avg_is_mean() -> None:
    inputs = [np.full(4, float(r)) for r in range(4)]
    out = run("reduce", inputs, op="avg", root=2).outputs
    assert out[2].tolist() == [1.5] * 4 and out[0] is None


def test_integer_sum_wraps_like_numpy() -> None:
    inputs = [np.array([120], dtype=np.int8)] * 3
    out = run("all_reduce", inputs, algorithm="recursive_doubling").outputs[0]
    assert out.tolist() == [360 - 256]  # 3 × 120 wraps around in int8


def test_inputs_are_not_modified() -> None:
    inputs = [np.arange(8, dtype=np.float32) + r for r in range(4)]
    before = [x.copy() for x in inputs]
    for algorithm in algorithms("all_reduce"):
        run("all_reduce", inputs, algorithm=algorithm)
    for a, b in zip(inputs, before, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "allreduce_x"}, "choose one of broadcast, scatter"),
        ({"algorithm": "bogus"}, "choose one of ring, naive, recursive_doubling"),
        ({"op": "mean"}, "choose one of sum, prod, max, min, avg"),
        ({"root": 4}, "root must be a rank between 0 and 3"),
        ({"split_sizes": [[1]]}, "split_sizes applies to all_to_all only"),
    ],
)
def test_bad_requests(kwargs: dict, message: str) -> None:
    inputs = [np.ones(8) for _ in range(4)]
    args = {"name": "all_reduce", **kwargs}
    with pytest.raises(CollectiveError, match=message.replace("(", r"\(")):
        run(args.pop("name"), inputs, **args)


def test_reduce_scatter_length_not_divisible() -> None:
    with pytest.raises(CollectiveError, match="10 elements per rank do not split into 4 equal"):
        run("reduce_scatter", [np.ones(10) for _ in range(4)])
    with pytest.raises(CollectiveError, match="do not split into 3 equal chunks"):
        run("scatter", [np.ones(4) for _ in range(3)])


@pytest.mark.parametrize(
    ("splits", "message"),
    [
        ([[1, 1], [1]], "N×N matrix"),
        ([[1, 1, 0], [1, 1, 0]], "must be 2×2"),
        ([[1, 1], [3, 0]], "row 1 sums to 3 but rank 1 has 2 elements"),
        ([[3, -1], [1, 1]], "must not be negative"),
    ],
)
def test_bad_split_sizes(splits: list, message: str) -> None:
    with pytest.raises(CollectiveError, match=message):
        run("all_to_all", [np.ones(2), np.ones(2)], split_sizes=splits)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([], "inputs is empty"),
        ([np.ones(3), np.ones(4)], "same length"),
        ([np.ones((2, 2))], "one-dimensional"),
        ([np.ones(3), np.ones(3, dtype=np.int32)], "has dtype int32"),
        ([np.ones(3, dtype=np.complex64)], "unsupported input dtype complex64"),
        ([np.ones(0), np.ones(0)], "at least one element"),
        ("abc", "list of N one-dimensional arrays"),
    ],
)
def test_bad_inputs(inputs: object, message: str) -> None:
    with pytest.raises(CollectiveError, match=message):
        run("all_reduce", inputs)  # type: ignore[arg-type]


def test_memory_budget_refuses_clearly() -> None:
    inputs = [np.ones(1 << 16, dtype=np.float32) for _ in range(16)]
    with pytest.raises(CollectiveError, match=r"needs .* of buffers, over the budget of 1\.00 MiB"):
        run("all_reduce", inputs, budget_bytes=1 << 20)
    with pytest.raises(CollectiveError, match="over the budget"):
        run("all_gather", inputs, algorithm="recursive_doubling", budget_bytes=1 << 20)
    assert run("all_reduce", inputs, budget_bytes=1 << 24).steps == 30


def test_plan_rejects_bad_sizes_and_ranks() -> None:
    with pytest.raises(CollectiveError, match="positive whole number"):
        plan("all_reduce", 4, 0)
    with pytest.raises(CollectiveError, match="ranks must be between 1 and 131,072, got 131,073"):
        plan("all_reduce", 131_073, 10)
    with pytest.raises(CollectiveError, match="unknown dtype 'float8'"):
        plan("all_reduce", 4, 10, dtype="float8")
    assert plan("all_reduce", 4, 12, dtype="bf16").bytes_sent.tolist() == [36] * 4
    assert plan("all_reduce", 4, 10, dtype="bf16").bytes_sent.tolist() == [28, 30, 32, 30]
