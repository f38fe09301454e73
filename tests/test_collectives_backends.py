"""Real runs on torch.distributed (gloo) against the simulator, for every collective.

One local process group of 2 and one of 4 ranks serve every run of this module
(starting a rank imports torch, which is the slow part). Each run compares the real
outputs on the simulation's inputs with the simulator's and times the collective as
nccl-tests does; NCCL runs are skipped without GPUs. Skipped entirely without torch
(``pip install "quizcoll[torch]"``; the ``test`` extra installs it, so CI runs these).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from quizcoll.cli.main import main  # noqa: E402
from quizcoll.collectives import Collective, busbw_factor, message_bytes  # noqa: E402
from quizcoll.collectives.backends import BackendError, Measurement, RunSpec  # noqa: E402
from quizcoll.collectives.backends.launch import require_torch  # noqa: E402
from quizcoll.collectives.backends.local import LocalGroup  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SPLITS = [[1, 0, 2, 3], [2, 2, 0, 1], [0, 4, 1, 1], [3, 0, 0, 2]]
ROWS_EQUAL = [[1, 0, 2, 3], [2, 2, 1, 1], [0, 4, 1, 1], [1, 0, 0, 5]]  # every row sums to 6


@pytest.fixture(scope="module")
def groups() -> Iterator[dict[int, LocalGroup]]:
    two, four = LocalGroup("gloo", 2), LocalGroup("gloo", 4)
    try:
        yield {2: two, 4: four}
    finally:
        two.close()
        four.close()


def spec(collective: str, world: int, **kwargs: object) -> RunSpec:
    options: dict = {
        "backend": "gloo",
        "collective": collective,
        "algorithm": "ring"
        if collective in ("all_reduce", "all_gather", "reduce_scatter")
        else "binomial",
        "op": "sum",
        "dtype": "float32",
        "count": 12 * world,  # splits into N equal chunks for scatter, reduce_scatter, all_to_all
        "check_count": 12 * world,
        "warmup": 1,
        "iters": 3,
    }
    if collective == "all_to_all":
        options["algorithm"] = "pairwise"
    options.update(kwargs)
    return RunSpec(**options)


def assert_measured(m: Measurement, s: RunSpec, world: int) -> None:
    assert m.matches is True
    assert (m.backend, m.ranks, m.launch, m.device) == ("gloo", world, "local processes", "cpu")
    assert (m.warmup, m.iters, m.checked_elements) == (s.warmup, s.iters, s.check_count)
    assert m.time_s > 0
    c = Collective(s.collective)
    itemsize = {"float32": 4, "float64": 8, "int32": 4, "bfloat16": 2, "int64": 8}[s.dtype]
    size = message_bytes(c, world, s.count * itemsize)
    assert m.algbw == pytest.approx(size / m.time_s)
    assert m.busbw == pytest.approx(m.algbw * busbw_factor(c, world))


@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("collective", [c.value for c in Collective])
def test_every_collective_matches_the_simulator(
    groups: dict[int, LocalGroup], world: int, collective: str
) -> None:
    root = world - 1 if Collective(collective).rooted else 0
    s = spec(collective, world, root=root)
    assert_measured(groups[world].run(s), s, world)


@pytest.mark.parametrize(
    ("collective", "algorithm", "op", "dtype"),
    [
        ("all_reduce", "rabenseifner", "max", "float64"),
        ("all_reduce", "double_binary_tree", "prod", "float32"),
        ("all_reduce", "recursive_doubling", "min", "int32"),
        ("all_reduce", "naive", "avg", "float64"),
        ("reduce", "reduce_scatter_gather", "sum", "int64"),
        ("reduce_scatter", "recursive_halving", "sum", "bfloat16"),
        ("broadcast", "scatter_allgather", "sum", "float64"),
        ("all_gather", "recursive_doubling", "sum", "int32"),
    ],
)
def test_ops_dtypes_and_algorithms(
    groups: dict[int, LocalGroup], collective: str, algorithm: str, op: str, dtype: str
) -> None:
    s = spec(collective, 4, algorithm=algorithm, op=op, dtype=dtype, seed=3)
    assert_measured(groups[4].run(s), s, 4)


def test_uneven_all_to_all(groups: dict[int, LocalGroup]) -> None:
    s = spec("all_to_all", 4, split_sizes=SPLITS, count=6, check_count=6)
    m = groups[4].run(s)
    assert m.matches is True
    assert m.notes == ["uneven all_to_all: S is rank 0's input buffer"]
    assert m.algbw == pytest.approx(6 * 4 / m.time_s)  # rank 0 sends 1 + 0 + 2 + 3 floats


def test_hierarchical_all_reduce_is_compared_with_its_simulation(
    groups: dict[int, LocalGroup],
) -> None:
    s = spec("all_reduce", 4, algorithm="hierarchical", gpus_per_node=2, count=40, check_count=37)
    assert groups[4].run(s).matches is True


def test_the_comparison_can_fail() -> None:
    """What a worker checks: the real output against the simulator's, exact where the
    result is exact, within twice the reassociation bound of a float sum otherwise."""
    from quizcoll.collectives import run
    from quizcoll.collectives.ops import Op
    from quizcoll.collectives.verification import agrees_with

    rng = np.random.default_rng(0)
    floats = [rng.standard_normal(64).astype(np.float32) for _ in range(4)]
    ints = [rng.integers(-9, 9, 64).astype(np.int32) for _ in range(4)]
    for inputs, op in ((floats, Op.SUM), (ints, Op.SUM), (floats, Op.MAX)):
        want = run("all_reduce", inputs, op=op).outputs[1]
        reordered = run("all_reduce", inputs[::-1], op=op).outputs[1]  # another sum order
        assert agrees_with(Collective.ALL_REDUCE, reordered, want, inputs, op, rank=1, slack=2)
        wrong = want.copy()
        wrong[7] += 1 if op is Op.SUM and inputs is ints else 1e-3
        assert not agrees_with(Collective.ALL_REDUCE, wrong, want, inputs, op, rank=1, slack=2)
    assert not agrees_with(Collective.ALL_REDUCE, want[:-1], want, inputs, Op.MAX, rank=1)


def test_cli_json_has_every_sim_key_and_the_measured_ones(capsys: pytest.CaptureFixture) -> None:
    assert (
        main(["sim", "broadcast", "--ranks", "2", "--size", "4KiB", "--root", "1", "--json"]) == 0
    )
    plain = json.loads(capsys.readouterr().out)
    argv = ["sim", "broadcast", "--ranks", "2", "--size", "4KiB", "--root", "1", "--json"]
    assert main([*argv, "--backend", "gloo", "--warmup", "1", "--iters", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(plain) < set(doc)
    assert {k: doc[k] for k in plain} == plain  # the simulation is unchanged
    assert doc["backend"] == "gloo" and doc["matches_simulation"] is True
    assert doc["measured_time_s"] > 0 and doc["measured_iters"] == 2
    assert doc["measured_algbw"] == pytest.approx(4096 / doc["measured_time_s"])
    assert doc["measured_busbw"] == pytest.approx(doc["measured_algbw"])  # broadcast: factor 1


def test_a_torchrun_launch_reports_once_from_rank_0(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
        "-m", "quizcoll", "sim", "all_to_all", "--size", "64B",
        "--backend", "gloo", "--iters", "2", "--json",
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(done.stdout)  # exactly one document: the other rank printed nothing
    assert (doc["ranks"], doc["measured_ranks"], doc["measured_launch"]) == (2, 2, "torchrun")
    assert doc["matches_simulation"] is True


def test_worker_failures_are_one_line_and_close_the_group() -> None:
    group = LocalGroup("gloo", 1)
    with pytest.raises(BackendError, match=r"gloo rank 0: .*unknown collective 'all_sum'"):
        group.run(spec("all_sum", 1))
    with pytest.raises(BackendError, match="closed"):
        group.run(spec("all_reduce", 1))


def test_missing_torch_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now fails
    with pytest.raises(
        BackendError, match=r'--backend gloo needs PyTorch: pip install "quizcoll\[torch\]"'
    ):
        require_torch("gloo", 2)


@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="this machine has GPUs")
def test_nccl_without_gpus_is_one_clear_line(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "all_reduce", "--ranks", "2", "--backend", "nccl"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--backend nccl needs 2 CUDA GPU(s) on this machine" in err


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="NCCL needs 2 GPUs")
@pytest.mark.parametrize("collective", [c.value for c in Collective])
def test_nccl_matches_the_simulator(collective: str) -> None:
    with LocalGroup("nccl", 2) as group:
        s = spec(collective, 2, backend="nccl")
        m = group.run(s)
    assert m.matches is True and m.device == "cuda" and m.time_s > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--backend", "gloo", "--iters", "0"], "--iters must be between 1 and 100,000"),
        (["--backend", "gloo", "--warmup", "-1"], "--warmup must be between 0 and 100,000"),
        (["--backend", "gloo", "--ranks", "65"], "at most 64, got 65; launch with torchrun"),
        (["--backend", "gloo", "--size", "512MiB"], "over --budget 1.00 GiB; lower --size"),
    ],
)
def test_bad_real_runs_are_one_line_exit_2(
    capsys: pytest.CaptureFixture, argv: list[str], message: str
) -> None:
    assert main(["sim", "all_gather", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_text_report_shows_the_measurement(capsys: pytest.CaptureFixture) -> None:
    from quizcoll.cli.sim_backend import measured_lines

    m = Measurement("gloo", 4, "local processes", "cpu", "2.13.0", 1e-3, 4e9, 6e9, 5, 20, False, 48)
    text = "\n".join(measured_lines({"time_s": 2e-6, **m.document()}))
    assert "measured on gloo (4 local processes, cpu, torch 2.13.0): 5 warm-up + 20 timed" in text
    assert "NO — the outputs differ" in text and "busbw            6.00 GB/s" in text
    assert np.isfinite(m.time_s)
