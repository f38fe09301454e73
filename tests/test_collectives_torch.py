"""Optional cross-check against real torch.distributed (gloo, CPU processes).

Skipped when torch is not installed (``pip install quizcoll[torch]``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
mp = pytest.importorskip("torch.multiprocessing")

from quizcoll.collectives import run  # noqa: E402

WORLD = 4
COUNT = 12  # divisible by WORLD for scatter / reduce_scatter / all_to_all
SPLITS = np.array([[1, 0, 2, 3], [2, 2, 0, 1], [0, 4, 1, 1], [3, 0, 0, 2]])


def rank_input(rank: int) -> np.ndarray:
    return (np.arange(COUNT, dtype=np.float64) * (rank + 1) - 3 * rank) / 4


def uneven_input(rank: int) -> np.ndarray:
    return np.arange(SPLITS[rank].sum(), dtype=np.float64) + 100 * rank


def _worker(rank: int, init: str, out_dir: str) -> None:
    dist.init_process_group("gloo", init_method=f"file://{init}", rank=rank, world_size=WORLD)
    x = torch.from_numpy(rank_input(rank))
    results: dict[str, np.ndarray] = {}

    t = x.clone()
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    results["all_reduce_sum"] = t.numpy()
    t = x.clone()
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    results["all_reduce_max"] = t.numpy()
    t = x.clone()
    dist.broadcast(t, src=2)
    results["broadcast"] = t.numpy()
    t = x.clone()
    dist.reduce(t, dst=1, op=dist.ReduceOp.SUM)
    if rank == 1:
        results["reduce"] = t.numpy()
    gathered = [torch.empty_like(x) for _ in range(WORLD)]
    dist.all_gather(gathered, x)
    results["all_gather"] = torch.cat(gathered).numpy()
    if rank == 3:
        gathered = [torch.empty_like(x) for _ in range(WORLD)]
        dist.gather(x, gather_list=gathered, dst=3)
        results["gather"] = torch.cat(gathered).numpy()
    else:
        dist.gather(x, dst=3)
    piece = torch.empty(COUNT // WORLD, dtype=x.dtype)
    dist.scatter(piece, scatter_list=list(x.chunk(WORLD)) if rank == 0 else None, src=0)
    results["scatter"] = piece.numpy()
    out = torch.empty(COUNT, dtype=x.dtype)
    dist.all_to_all_single(out, x)
    results["all_to_all"] = out.numpy()
    u = torch.from_numpy(uneven_input(rank))
    out = torch.empty(int(SPLITS[:, rank].sum()), dtype=x.dtype)
    dist.all_to_all_single(
        out,
        u,
        output_split_sizes=SPLITS[:, rank].tolist(),
        input_split_sizes=SPLITS[rank].tolist(),
    )
    results["all_to_all_uneven"] = out.numpy()
    np.savez(Path(out_dir) / f"rank{rank}.npz", **results)
    dist.destroy_process_group()


@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="no gloo")
def test_matches_torch_distributed_gloo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # gloo on the loopback interface, as `sim --backend gloo` binds it: a machine with gloo
    # and a loopback runs this test, and any failure of the run is a failure, not a skip.
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "lo")
    mp.spawn(_worker, args=(str(tmp_path / "init"), str(tmp_path)), nprocs=WORLD, join=True)
    got = [dict(np.load(tmp_path / f"rank{r}.npz")) for r in range(WORLD)]
    inputs = [rank_input(r) for r in range(WORLD)]
    ours = {
        "all_reduce_sum": run("all_reduce", inputs, op="sum").outputs,
        "all_reduce_max": run("all_reduce", inputs, algorithm="rabenseifner", op="max").outputs,
        "broadcast": run("broadcast", inputs, root=2).outputs,
        "reduce": run("reduce", inputs, root=1, algorithm="binomial").outputs,
        "all_gather": run("all_gather", inputs).outputs,
        "gather": run("gather", inputs, root=3).outputs,
        "scatter": run("scatter", inputs, root=0).outputs,
        "all_to_all": run("all_to_all", inputs).outputs,
        "all_to_all_uneven": run(
            "all_to_all", [uneven_input(r) for r in range(WORLD)], split_sizes=SPLITS
        ).outputs,
    }
    for key, outputs in ours.items():
        for r in range(WORLD):
            if outputs[r] is None:
                assert key not in got[r]
            else:
                np.testing.assert_allclose(got[r][key], outputs[r], rtol=1e-12, err_msg=key)
