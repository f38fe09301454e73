"""``sim --backend gloo|nccl --sweep``: nccl-tests' table from a real run, read back by
``quizcoll calibrate``; sockets on loopback unless an interface is named.

The real runs use gloo on CPU processes (2 ranks, 4 ranks as 2 simulated nodes, and 4
ranks under two ``torchrun`` launchers, one per "node", meeting by ``env://``); the NCCL path shares the code and is refused in one line without GPUs. Skipped
without torch (the ``test`` extra installs it).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from quizcoll.cli.main import main
from quizcoll.collectives.backends import Measurement
from quizcoll.collectives.backends.sweep import SweepRow, nccl_tests_text, sweep_counts
from quizcoll.collectives.nccl_tests_log import parse
from quizcoll.collectives.semantics import Collective


def _measurement(ranks: int, time_s: float) -> Measurement:
    return Measurement(
        backend="gloo", ranks=ranks, launch="local processes", device="cpu",
        torch_version="x", time_s=time_s, algbw=None, busbw=None, warmup=1, iters=2,
        matches=True, checked_elements=4, members=[[100 + r, f"h{r // 2}"] for r in range(ranks)],
    )  # fmt: skip


def test_the_table_reads_back_exactly() -> None:
    # an all-gather of 4 ranks: nccl-tests' size is the output (4 × the input)
    counts = sweep_counts(Collective.ALL_GATHER, 64, 1024, 4, 4)
    assert counts == [4, 8, 16, 32, 64]  # 64 B … 1 KiB of output, 16 B … 256 B per rank
    rows = [SweepRow(16 * c, c, _measurement(4, 1e-5 * (i + 1))) for i, c in enumerate(counts)]
    text = nccl_tests_text(Collective.ALL_GATHER, "float32", "sum", 0, rows, backend="gloo")
    sweep = parse(text, source="t")
    assert sweep.collective == "all_gather"
    assert (sweep.ranks, sweep.hosts) == (4, 2)
    assert [r.size for r in sweep.rows] == [64, 128, 256, 512, 1024]
    assert [r.out_of_place.time_us for r in sweep.rows] == [10.0, 20.0, 30.0, 40.0, 50.0]


def test_sweep_sizes_round_up_to_what_splits() -> None:
    # reduce_scatter over 3 ranks: counts must be multiples of 3 (4-byte elements)
    assert sweep_counts(Collective.REDUCE_SCATTER, 8, 64, 4, 3) == [3, 6, 9, 18]


torch = pytest.importorskip("torch")


def _sweep(capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    base = ["sim", "--backend", "gloo", "--iters", "1", "--warmup", "0"]
    assert main([*base, *argv]) == 0
    return capsys.readouterr().out


def test_two_ranks_round_trip_through_calibrate(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _sweep(capsys, ["all_reduce", "--ranks", "2", "--sweep", "8:1KiB"])
    sweep = parse(out, source="gloo")
    assert (sweep.collective, sweep.ranks, sweep.hosts) == ("all_reduce", 2, 1)
    assert [r.size for r in sweep.rows] == [8 * 2**k for k in range(8)]
    log = tmp_path / "gloo.log"
    log.write_text(out)
    monkeypatch.setenv("QUIZCOLL_PROFILES", str(tmp_path / "profiles"))
    assert main(["calibrate", str(log), "--name", "gloo2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ranks"] == 2 and len(doc["points"]) == 8
    times = [p["measured_time_s"] * 1e6 for p in doc["points"]]
    assert times == pytest.approx([r.out_of_place.time_us for r in sweep.rows])


def test_four_ranks_as_two_simulated_nodes(capsys: pytest.CaptureFixture) -> None:
    argv = ["all_gather", "--nodes", "2", "--gpus-per-node", "2", "--sweep", "64:256"]
    sweep = parse(_sweep(capsys, argv), source="gloo")
    assert (sweep.ranks, sweep.hosts, sweep.gpus_per_host) == (4, 2, 2)
    assert [r.size for r in sweep.rows] == [64, 128, 256]
    # the rows passed the parser's own check: algbw = size / time; busbw = 3/4 of it
    assert all(r.out_of_place.busbw <= r.out_of_place.algbw for r in sweep.rows)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_torchrun_nodes_sweep_and_calibrate(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two launchers, as on two machines (``--nnodes 2 --node_rank i``, a static env://
    rendezvous at MASTER_ADDR): four ranks in one group; rank 0 prints the table."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    port = str(_free_port())

    def command(node: int) -> list[str]:
        return [
            sys.executable, "-m", "torch.distributed.run", "--nnodes", "2",
            "--node_rank", str(node), "--nproc_per_node", "2",
            "--master_addr", "127.0.0.1", "--master_port", port,
            "-m", "quizcoll", "sim", "all_reduce", "--backend", "gloo",
            "--sweep", "8:1KiB", "--iters", "1", "--warmup", "0",
        ]  # fmt: skip

    pipe = subprocess.PIPE
    launchers = [
        subprocess.Popen(command(node), stdout=pipe, stderr=pipe, text=True, env=env, cwd=tmp_path)
        for node in (0, 1)
    ]
    outs = [launcher.communicate(timeout=300) for launcher in launchers]
    assert [launcher.returncode for launcher in launchers] == [0, 0], outs[0][1][-2000:]
    assert outs[1][0] == ""  # the second node's ranks print nothing
    sweep = parse(outs[0][0], source="torchrun")
    assert (sweep.collective, sweep.ranks) == ("all_reduce", 4)
    assert [r.size for r in sweep.rows] == [8 * 2**k for k in range(8)]
    log = tmp_path / "torchrun.log"
    log.write_text(outs[0][0])
    monkeypatch.setenv("QUIZCOLL_PROFILES", str(tmp_path / "profiles"))
    assert main(["calibrate", str(log), "--name", "two-nodes", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ranks"] == 4 and len(doc["points"]) == 8


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_gloo_listens_on_loopback_only() -> None:
    from quizcoll.collectives.backends import RunSpec
    from quizcoll.collectives.backends.local import LocalGroup
    from quizcoll.collectives.backends.processes import loopback_interface

    spec = RunSpec(
        backend="gloo", collective="all_reduce", algorithm="ring", op="sum",
        dtype="float32", count=8, warmup=0, iters=1,
    )  # fmt: skip
    with LocalGroup("gloo", 2) as group:
        group.run(spec)
        pids = [w.pid for w in group._workers]
        for pid in pids:
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert f"GLOO_SOCKET_IFNAME={loopback_interface()}".encode() in env
        inodes = set()
        for pid in pids:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if m := re.fullmatch(r"socket:\[(\d+)\]", target):
                    inodes.add(m.group(1))
        listening = []
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[9] in inodes and fields[3] == "0A":  # 0A: LISTEN
                    listening.append(fields[1].split(":")[0])
    assert listening, "gloo opened no listening socket"
    loopback = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1, ::1
    assert set(listening) <= loopback, listening


def test_unknown_interface_is_one_line(capsys: pytest.CaptureFixture) -> None:
    argv = ["sim", "all_reduce", "--backend", "gloo", "--ranks", "2", "--sweep", "8:16"]
    assert main([*argv, "--interface", "no-such-nic0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a network interface here" in err


@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="this machine has the GPUs")
def test_nccl_sweep_is_refused_without_gpus(capsys: pytest.CaptureFixture) -> None:
    argv = ["sim", "all_reduce", "--backend", "nccl", "--ranks", "2", "--sweep", "8:16"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs 2 CUDA GPU(s)" in err


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 CUDA GPUs")
def test_nccl_sweep_on_gpus(capsys: pytest.CaptureFixture) -> None:
    argv = ["sim", "all_reduce", "--backend", "nccl", "--ranks", "2", "--sweep", "8:64KiB"]
    assert main([*argv, "--iters", "2", "--warmup", "1"]) == 0
    assert parse(capsys.readouterr().out, source="nccl").ranks == 2
