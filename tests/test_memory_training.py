"""Training memory: the ZeRO paper's table and Korthikanti et al.'s activation formulas."""

from __future__ import annotations

import pytest

from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.training import Recompute, model_states, training_activations, zero_table


def test_zero_paper_example() -> None:
    # Rajbhandari et al. 2020, Figure 1: Ψ = 7.5B, N = 64, K = 12
    totals = [s.total / 1e9 for s in zero_table(7_500_000_000, 64)]
    assert [round(t, 1) for t in totals] == [120.0, 31.4, 16.6, 1.9]
    assert totals[1] == pytest.approx(31.40625)
    assert totals[2] == pytest.approx(16.640625)


def test_stage_components() -> None:
    s2 = model_states(1_000, 2, 10)
    assert (s2.weights, s2.gradients, s2.optimizer_states) == (2_000, 200, 1_200)
    s3 = model_states(1_000, 3, 10)
    assert s3.as_dict() == {
        "weights": 200,
        "gradients": 200,
        "optimizer_states": 1_200,
        "total": 1_600,
    }


def test_one_gpu_every_stage_is_16_bytes_per_parameter() -> None:
    assert {s.total for s in zero_table(1_000, 1)} == {16_000}


@pytest.mark.parametrize(("stage", "gpus"), [(4, 8), (-1, 8), (1, 0)])
def test_bad_training_input(stage: int, gpus: int) -> None:
    with pytest.raises(MemoryInputError):
        model_states(1_000, stage, gpus)


GPT3 = {"seq_len": 2048, "micro_batch": 1, "hidden": 12288, "heads": 96, "layers": 96}


def test_activations_without_parallelism() -> None:
    s, b, h, a = 2048, 1, 12288, 96
    acts = training_activations(**GPT3)
    assert acts.per_layer_bytes == pytest.approx(s * b * h * (34 + 5 * a * s / h))
    assert acts.total_bytes == pytest.approx(96 * acts.per_layer_bytes)


def test_sequence_parallel_divides_everything_by_t() -> None:
    base = training_activations(**GPT3).per_layer_bytes
    sp = training_activations(**GPT3, tensor_parallel=8, sequence_parallel=True).per_layer_bytes
    tp = training_activations(**GPT3, tensor_parallel=8).per_layer_bytes
    assert sp == pytest.approx(base / 8)
    assert sp < tp < base  # TP alone leaves the 10sbh of LayerNorm/dropout replicated


def test_recomputation() -> None:
    sbh = 2048 * 12288
    sel = training_activations(
        **GPT3, tensor_parallel=8, sequence_parallel=True, recompute=Recompute.SELECTIVE
    )
    assert sel.per_layer_bytes == pytest.approx(34 * sbh / 8)
    full = training_activations(**GPT3, recompute=Recompute.FULL)
    assert full.per_layer_bytes == 2 * sbh
    with pytest.raises(MemoryInputError):
        training_activations(**{**GPT3, "heads": 0})


def test_fp32_main_gradients_are_18_bytes_per_parameter() -> None:
    # Megatron-Core: bf16 params (2) + fp32 main grads (4) + 12; distributed optimizer 6 + 12/d
    assert model_states(1_000, 0, 1, grad_bytes=4).total == 18_000
    assert model_states(1_000, 1, 8, grad_bytes=4).total == 6_000 + 12_000 / 8
    with pytest.raises(MemoryInputError):
        model_states(1_000, 0, 1, grad_bytes=0)
