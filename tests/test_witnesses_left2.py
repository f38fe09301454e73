"""The layer-by-layer placement witness held to hand-placed cases, a published parameter count
and an exhaustive search over every split into consecutive stages."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from quizcoll.witnesses.left2_placement import Unit, pipeline_units, place

# meta-llama/Meta-Llama-3-70B config.json: num_hidden_layers 80, hidden_size 8192,
# 64 heads of 128, 8 key/value heads, intermediate_size 28672, vocab_size 128256, untied.
LLAMA3_70B = dict(
    layers=80, hidden=8192, q_width=8192, kv_width=1024, intermediate=28672, vocab=128256
)
LLAMA3_70B_PARAMS = 70_553_706_496  # the published count (model card, safetensors metadata)


def units(*sizes: int) -> list[Unit]:
    return [Unit(f"u{i}", s) for i, s in enumerate(sizes)]


def test_units_are_placed_whole_in_order():
    placed = place(units(5, 5, 5), capacity=10)
    assert [[u.name for u in gpu] for gpu in placed.gpus] == [["u0", "u1"], ["u2"]]
    # three units of 6 fill three GPUs of 10, though their 18 bytes would divide into two
    assert place(units(6, 6, 6), capacity=10).count == 3


def test_a_unit_larger_than_a_gpu_is_refused():
    with pytest.raises(ValueError, match="does not fit"):
        place(units(3, 11), capacity=10)


def test_the_listed_tensors_are_the_published_parameter_count():
    at_16_bits = pipeline_units(**LLAMA3_70B, tied=False, bits=16)
    assert sum(u.bytes for u in at_16_bits) == 2 * LLAMA3_70B_PARAMS
    assert len(at_16_bits) == 80 + 2  # embedding, the layers, norm and head


def test_a_layer_split_can_need_more_gpus_than_the_bytes_divide_into():
    # A100 40GB: 40,960 MiB reported, 90% offered, 1 GiB runtime lost
    capacity = int(0.9 * 40960 * 2**20) - 2**30
    fp32 = pipeline_units(**LLAMA3_70B, tied=False, bits=32)
    placed = place(fp32, capacity)
    assert sum(u.bytes for u in fp32) <= 8 * capacity  # the bytes alone would fit on 8
    assert placed.count == 9
    assert all(b <= capacity for b in placed.gpu_bytes())


def _fewest_stages(sizes: list[int], capacity: int) -> int:
    """Every way of cutting ``sizes`` into consecutive stages, the fewest that fit."""
    n = len(sizes)
    for stages in range(1, n + 1):
        for cuts in itertools.combinations(range(1, n), stages - 1):
            bounds = (0, *cuts, n)
            if all(sum(sizes[a:b]) <= capacity for a, b in itertools.pairwise(bounds)):
                return stages
    raise AssertionError("no split fits")


def test_filling_in_order_uses_the_fewest_gpus_of_any_consecutive_split():
    rng = np.random.default_rng(20240611)
    for _ in range(200):
        sizes = [int(s) for s in rng.integers(1, 10, size=int(rng.integers(1, 9)))]
        capacity = int(rng.integers(max(sizes), 25))
        assert place(units(*sizes), capacity).count == _fewest_stages(sizes, capacity)
