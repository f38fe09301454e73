"""Training-systems calculators against independent derivations: DeepSeek-V3's bubble table
against the pipeline simulator, the checkpoint walk against totals worked out by hand, the
accumulation traffic against ring volumes, and the logits against the shipped config.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizcoll.executables import build_registry
from quizcoll.systems import checkpoint_shards as checkpoint
from quizcoll.systems import pipeline_table
from quizcoll.systems.errors import SystemsInputError
from quizcoll.systems.pipeline import Schedule, simulate

MODELS = Path(__file__).resolve().parent.parent / "quizcoll" / "memory" / "models"


def _sim_bubble(schedule: Schedule, p: int, f: float, b_in: float, w: float) -> float:
    run = simulate(schedule, p, 32, t_forward=f, t_backward=b_in, t_weight=w)
    return run.bubble_time


@pytest.mark.parametrize(
    ("p", "f", "b_in", "w"), [(4, 1, 1, 1), (8, 2, 3, 1), (4, 2, 2, 1), (16, 3, 2, 2)]
)
def test_table_rows_match_the_simulator(p, f, b_in, w) -> None:
    full_b = b_in + w  # the table's B is the whole backward chunk
    assert pipeline_table.row("1f1b", p, f, full_b, w).bubble == pytest.approx(
        _sim_bubble(Schedule.ONE_F_ONE_B, p, f, b_in, w)
    )
    assert pipeline_table.row("zb1p", p, f, full_b, w).bubble == pytest.approx(
        _sim_bubble(Schedule.ZB_H1, p, f, b_in, w)
    )


def test_dualpipe_row_and_refusals() -> None:
    r = pipeline_table.row("dualpipe", 8, 1, 2, 0.5, 2.5)
    assert (r.bubble, r.parameter_copies, r.activation_micro_batches) == (3 * 3.0, 2, 9)
    with pytest.raises(SystemsInputError):
        pipeline_table.row("dualpipe", 7, 1, 2, 0.5, 2.5)
    with pytest.raises(SystemsInputError):
        pipeline_table.row("gpipe", 8, 1, 2, 0.5)


def test_checkpoint_of_a_70b_model() -> None:
    # 70e9 × (2 bf16 + 12 optimizer) = 980 GB, written once whatever the layout.
    c = checkpoint.shards(70e9, 8, 4, 16)
    assert c.total_bytes == pytest.approx(980e9)
    # A first-replica rank: 70e9/32 parameters × (2 + 12/16) bytes.
    assert c.max_rank_bytes == pytest.approx(70e9 / 32 * 2.75)
    # Without a distributed optimizer the first replica writes everything.
    plain = checkpoint.shards(70e9, 8, 4, 16, distributed_optimizer=False)
    assert plain.total_bytes == pytest.approx(980e9)
    assert plain.max_rank_bytes == pytest.approx(70e9 / 32 * 14)
    assert sum(1 for b in plain.per_rank if b) == 32


def test_accumulation_traffic_by_hand() -> None:
    reg = build_registry()
    fsdp = reg.call(
        "accum.traffic", {"mode": "fsdp", "params": 7e9, "ranks": 8, "micro_batches": 4}
    )
    # 4 micro-batches × 2 all-gathers × 7/8 × 14 GB, and one reduce-scatter of 7/8 × 14 GB.
    assert fsdp["gather_bytes"] == pytest.approx(98e9)
    assert fsdp["gradient_bytes"] == pytest.approx(12.25e9)
    ddp = reg.call(
        "accum.traffic",
        {"mode": "ddp", "params": 1e9, "ranks": 4, "micro_batches": 3, "grad_dtype": "fp32"},
    )
    assert ddp["bytes_sent"] == pytest.approx(2 * 3 / 4 * 4e9)


@pytest.mark.parametrize("model", ["llama-3-8b", "gemma-7b", "llama-2-7b", "qwen2.5-7b"])
def test_logits_use_the_config_vocabulary(model) -> None:
    vocab = json.loads((MODELS / f"{model}.json").read_text())["vocab_size"]
    r = build_registry().call("logits.memory", {"model": model, "tokens": 4096})
    assert r["fp32_bytes"] == 4096 * vocab * 4


def test_llama3_logits_near_two_gib() -> None:
    # Llama 3's 128,256-token vocabulary: 4,096 positions of fp32 logits are 1.957 GiB.
    r = build_registry().call("logits.memory", {"model": "llama-3-8b", "tokens": 4096})
    assert r["fp32_bytes"] / 2**30 == pytest.approx(1.957, abs=5e-4)
