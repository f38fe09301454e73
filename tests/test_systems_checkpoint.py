"""Checkpoint sizes against a real library: torch.save of a model and its AdamW state."""

from __future__ import annotations

import io
from typing import Any

import pytest

from quizcoll.systems.checkpoint import checkpoint
from quizcoll.systems.errors import SystemsInputError

torch = pytest.importorskip("torch")


def _saved_bytes(weight_dtype: Any, master: bool, optimizer: str) -> tuple[int, int]:
    """(bytes torch.save writes for a 64×1024 linear layer and its optimizer, parameters)."""
    torch.manual_seed(0)
    model = torch.nn.Linear(1024, 64, bias=False).to(weight_dtype)
    trained = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
    params = trained if master else list(model.parameters())
    opt = (
        torch.optim.AdamW(params)
        if optimizer == "adam"
        else torch.optim.SGD(params, lr=0.1, momentum=0.9)
    )
    for p in params:
        p.grad = torch.ones_like(p)
    opt.step()
    state = {"model": model.state_dict(), "optimizer": opt.state_dict()}
    if master:
        state["master"] = trained
    buf = io.BytesIO()
    torch.save(state, buf)
    return buf.tell(), sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize(
    ("dtype", "torch_dtype", "master", "optimizer"),
    [
        ("fp32", "float32", False, "adam"),
        ("bf16", "bfloat16", True, "adam"),
        ("fp32", "float32", False, "sgd-momentum"),
    ],
)
def test_bytes_per_parameter_match_torch_save(
    dtype: str, torch_dtype: str, master: bool, optimizer: str
) -> None:
    written, n = _saved_bytes(getattr(torch, torch_dtype), master, optimizer)
    expected = checkpoint(n, weight_dtype=dtype, optimizer=optimizer).total_bytes
    # torch.save adds a few KB of pickle and zip headers around the raw tensor bytes
    assert expected <= written <= expected + 8192


def test_shards_and_time() -> None:
    c = checkpoint(70_000_000_000, ranks=512, rank_bandwidth=2e9, storage_bandwidth=500e9)
    assert c.total_bytes == 70e9 * 14  # bf16 weights, fp32 master, two fp32 Adam moments
    assert c.write_time_s == pytest.approx(max(70e9 * 14 / 512 / 2e9, 70e9 * 14 / 500e9))


def test_unknown_dtype_is_refused() -> None:
    with pytest.raises(SystemsInputError, match="weight_dtype"):
        checkpoint(10, weight_dtype="int3")
