"""Constants of the parallelism cards: definitions and published figures, each with its source.

PyTorch DDP's gradient buckets: the cap every bucket but the first is filled up to, and the
small first bucket that lets communication start early in the backward pass.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

MIB = 2**20

CONSTANTS: tuple[Constant, ...] = (
    Constant(
        "ddp_bucket_cap",
        25 * MIB,
        Dim.BYTES,
        "PyTorch torch/nn/parallel/distributed.py: bucket_cap_mb defaults to 25, and "
        "bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024), so 25 MiB",
        "MiB",
    ),
    Constant(
        "ddp_first_bucket",
        1 * MIB,
        Dim.BYTES,
        "PyTorch c10d reducer: dist._DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024, the cap of "
        "the first gradient bucket",
        "MiB",
    ),
)
