"""Oracle: per-rank bytes of real FSDP2 (``fully_shard``) on gloo CPU processes.

2 and 4 processes shard a small fp32 MLP (every layer its own FSDP unit, then the root),
run forward, backward and one ``torch.optim.AdamW`` step, with and without a bf16
``MixedPrecisionPolicy`` (one spawn per world size runs every variant). Each rank reports the bytes of its local shards: parameters,
gradients and AdamW's exp_avg/exp_avg_sq (DTensor ``to_local()`` storages). They must equal
the FSDP calculator's sharded state (Ψ(2·4 + 8)/N) and ZeRO-3's 16Ψ/N split into its parts:
FSDP keeps the fp32 parameters and gradients that the ZeRO paper keeps as fp16 copies plus an
fp32 master, so the totals agree and the split differs (shown). A layer whose rows do not
divide by N is padded to ⌈rows/N⌉ per rank: that padding is the implementation's extra term.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import tempfile
import time
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from quizcoll.memory.training import model_states
from quizcoll.systems.sharding import fsdp_plan

WIDTHS = (64, 96, 64, 32)  # three Linear layers; every dim 0 divides by 2 and 4
HANG_GUARD_SECONDS = 600
UNEVEN = (64, 30)  # 30 rows (and 30 biases) over 4 ranks: padded to 8 per rank


def _build(widths: tuple[int, ...] = WIDTHS) -> torch.nn.Module:
    torch.manual_seed(0)
    layers = [torch.nn.Linear(a, b) for a, b in itertools.pairwise(widths)]
    return torch.nn.Sequential(*layers)


def _local_bytes(tensors) -> int:
    """Bytes of the local shards' storages, each counted once (gradients of a unit may be
    views of one reduce-scatter output)."""
    storages = {}
    for t in tensors:
        storage = t.to_local().untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def _shard_step(widths: tuple[int, ...], mixed: bool) -> dict:
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    model = _build(widths)
    policy = (
        MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        if mixed
        else MixedPrecisionPolicy()
    )
    for layer in model:
        fully_shard(layer, mp_policy=policy)
    fully_shard(model, mp_policy=policy)
    opt = torch.optim.AdamW(model.parameters())
    model(torch.randn(8, widths[0])).float().pow(2).mean().backward()
    opt.step()
    params = list(model.parameters())
    states = [t for p in params for k, t in opt.state[p].items() if k != "step"]
    return {
        "params": _local_bytes(params),
        "grads": _local_bytes([p.grad for p in params]),
        "optimizer": _local_bytes(states),
        "dtypes": sorted({str(p.to_local().dtype) for p in params}),
    }


def _worker(rank: int, world: int, init: str, out: str) -> None:
    dist.init_process_group("gloo", init_method=f"file://{init}", rank=rank, world_size=world)
    result = {
        "fp32": _shard_step(WIDTHS, mixed=False),
        "bf16-policy": _shard_step(WIDTHS, mixed=True),
        "uneven": _shard_step(UNEVEN, mixed=False),
    }
    Path(out, f"{rank}.json").write_text(json.dumps(result))
    dist.destroy_process_group()


def run_ranks(world: int) -> tuple[dict, ...]:
    with tempfile.TemporaryDirectory() as tmp:
        # forkserver, not fork: other test modules may have started threads (OpenMP,
        # tokenizers) in this process, whose held locks a forked child would inherit; the
        # fork server is a fresh process that imports torch once for all ranks
        multiprocessing.set_forkserver_preload(["torch", "torch.distributed", __name__])
        context = mp.start_processes(
            _worker,
            args=(world, str(Path(tmp, "init")), tmp),
            nprocs=world,
            join=False,
            start_method="forkserver",
        )
        # a hang guard, not a speed check: a stuck gloo rendezvous must not stall CI.
        # join() returns as soon as one rank exits, so wait until all have.
        deadline = time.monotonic() + HANG_GUARD_SECONDS
        while not context.join(timeout=max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                for process in context.processes:
                    process.kill()
                pytest.fail(f"FSDP2 ranks did not finish within {HANG_GUARD_SECONDS} s")
        return tuple(json.loads(Path(tmp, f"{r}.json").read_text()) for r in range(world))


def _check_even(ranks: tuple[dict, ...], world: int, variant: str) -> None:
    psi = sum(p.numel() for p in _build().parameters())
    plan = fsdp_plan(psi, world, units=len(WIDTHS) - 1, state_bytes=4)
    zero3 = model_states(psi, 3, world)
    for rank in ranks:
        r = rank[variant]
        assert r["dtypes"] == ["torch.float32"]  # the policy casts only the gathered copy
        assert r["params"] == r["grads"] == 4 * psi / world
        assert r["optimizer"] == 8 * psi / world
        total = r["params"] + r["grads"] + r["optimizer"]
        assert total == plan.sharded_state_bytes == zero3.total
        # ZeRO's split of the same 16 bytes: fp16 params + grads (4), fp32 master + m + v (12)
        assert zero3.weights + zero3.gradients == (r["params"] + r["grads"]) / 2


def _check_uneven(ranks: tuple[dict, ...]) -> None:
    """30 rows over 4 ranks: parameter and gradient shards are padded to 8 rows on every rank,
    AdamW's states (``zeros_like`` of the DTensor) hold only the rank's own 8, 8, 8, 6 rows."""
    psi = sum(p.numel() for p in _build(UNEVEN).parameters())  # 30 rows of 64 + 1 bias
    per_row = UNEVEN[0] + 1
    uneven = [r["uneven"] for r in ranks]
    for r, rows in zip(uneven, [8, 8, 8, 6], strict=True):
        assert r["params"] == r["grads"] == 4 * 8 * per_row
        assert r["optimizer"] == 8 * rows * per_row
    assert sum(r["optimizer"] for r in uneven) == 8 * psi
    padding = sum(r["params"] + r["grads"] for r in uneven) - 8 * psi
    assert padding == 8 * 2 * per_row  # two padded rows of fp32 params and grads


# One test per world size, so each spawn happens once even when xdist spreads the tests.
@pytest.mark.parametrize("world", [2, 4])
def test_fsdp2_shards_equal_the_fsdp_and_zero3_calculators(world):
    ranks = run_ranks(world)
    for variant in ("fp32", "bf16-policy"):
        _check_even(ranks, world, variant)
    if world == 4:
        _check_uneven(ranks)
