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


# Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
# §4.1: the tensors one layer stores for backward, as the paper lists them (bytes, 16-bit
# activations, 1-byte dropout masks). Each entry: (what, sbh coefficient, as²b coefficient,
# split by tensor parallelism without sequence parallelism, recomputed by selective
# recomputation). Summed here entry by entry; the code under test is a closed form.
PAPER_TENSORS = (
    ("QKV matmul input", 2, 0, False, False),
    ("Q and K for QK^T", 4, 0, True, False),
    ("softmax output", 0, 2, True, True),
    ("softmax dropout mask", 0, 1, True, True),
    ("dropout output, for attention over values", 0, 2, True, True),
    ("values V", 2, 0, True, False),
    ("output projection input", 2, 0, True, False),
    ("attention dropout mask", 1, 0, False, False),
    ("MLP first linear input", 2, 0, False, False),
    ("MLP second linear input", 8, 0, True, False),
    ("GeLU input", 8, 0, True, False),
    ("MLP dropout mask", 1, 0, False, False),
    ("two LayerNorm inputs", 4, 0, False, False),
)


def _paper_bytes(s: int, b: int, h: int, a: int, t: int, sp: bool, selective: bool) -> float:
    total = 0.0
    for _, sbh_coef, as2b_coef, split, recomputed in PAPER_TENSORS:
        if selective and recomputed:
            continue
        size = sbh_coef * s * b * h + as2b_coef * a * s * s * b
        total += size / t if (split or sp) else size
    return total


@pytest.mark.parametrize("t", [1, 2, 8])
@pytest.mark.parametrize("sp", [False, True])
@pytest.mark.parametrize("recompute", [Recompute.NONE, Recompute.SELECTIVE])
@pytest.mark.parametrize(("s", "b", "h", "a"), [(2048, 1, 12288, 96), (4096, 2, 4096, 32)])
def test_activations_are_the_papers_tensors_summed(
    s: int, b: int, h: int, a: int, t: int, sp: bool, recompute: Recompute
) -> None:
    if sp and t == 1:
        return  # sequence parallelism needs tensor parallelism
    acts = training_activations(
        seq_len=s,
        micro_batch=b,
        hidden=h,
        heads=a,
        layers=3,
        tensor_parallel=t,
        sequence_parallel=sp,
        recompute=recompute,
    )
    paper = _paper_bytes(s, b, h, a, t, sp, recompute is Recompute.SELECTIVE)
    assert acts.per_layer_bytes == pytest.approx(paper)
    assert acts.total_bytes == pytest.approx(3 * paper)


def test_the_papers_list_adds_up_to_its_headline() -> None:
    # "34sbh + 5as²b" (§4.1, eq. 1): the list above, read as the paper's own arithmetic.
    assert sum(e[1] for e in PAPER_TENSORS) == 34
    assert sum(e[2] for e in PAPER_TENSORS) == 5


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
    # Full recomputation keeps only each layer's input (2sbh: the paper's §5) ...
    full = training_activations(**GPT3, recompute=Recompute.FULL)
    assert full.per_layer_bytes == 2 * sbh
    # ... and selective keeps less than none, more than full.
    none = training_activations(**GPT3, tensor_parallel=8, sequence_parallel=True)
    assert full.per_layer_bytes / 8 < sel.per_layer_bytes < none.per_layer_bytes
    with pytest.raises(MemoryInputError):
        training_activations(**{**GPT3, "heads": 0})


def test_fp32_main_gradients_are_18_bytes_per_parameter() -> None:
    # Megatron-Core: bf16 params (2) + fp32 main grads (4) + 12; distributed optimizer 6 + 12/d
    assert model_states(1_000, 0, 1, grad_bytes=4).total == 18_000
    assert model_states(1_000, 1, 8, grad_bytes=4).total == 6_000 + 12_000 / 8
    with pytest.raises(MemoryInputError):
        model_states(1_000, 0, 1, grad_bytes=0)
