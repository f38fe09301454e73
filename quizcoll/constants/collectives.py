"""Constants of the collectives decks that no data table holds: NCCL's protocol line formats,
PyTorch's process-group timeouts and nccl-tests' bus-bandwidth factors, each with its source.

The α-β link presets, NCCL's tuner tables and the link figures are published figures read
from ``quizcoll/data/links.yaml`` and ``nccl.yaml`` (:mod:`quizcoll.constants.data`): never
from the simulator, whose code they check."""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

_TORCH_ENV = (
    "PyTorch ProcessGroupNCCL environment variables (docs.pytorch.org "
    "torch_nccl_environment_variables): TORCH_NCCL_ASYNC_ERROR_HANDLING"
)
# TORCH_NCCL_ASYNC_ERROR_HANDLING's modes; 3 is the default
ASYNC_ERROR_MODES: tuple[Constant, ...] = tuple(
    Constant(f"torch_async_errors_{name}", value, Dim.COUNT, f"{_TORCH_ENV}: {value} = {what}")
    for name, value, what in (
        ("off", 0, "no handling of asynchronous NCCL errors"),
        ("abort_teardown", 1, "abort the NCCL communicator and tear down the process"),
        ("abort", 2, "only abort the NCCL communicator"),
        ("teardown", 3, "tear down the process without aborting the communicator (default)"),
    )
)

_DEVICE_H = "NVIDIA/nccl src/include/device.h"
PUBLISHED: tuple[Constant, ...] = (
    # union ncclLLFifoLine { uint32_t data1, flag1, data2, flag2; }: 8 data bytes of 16
    Constant("nccl_ll_line_bytes", 16, Dim.BYTES, f"{_DEVICE_H}: ncclLLFifoLine", "B"),
    Constant("nccl_ll_data_bytes", 8, Dim.BYTES, f"{_DEVICE_H}: data1 + data2", "B"),
    Constant("nccl_ll128_line_bytes", 128, Dim.BYTES, f"{_DEVICE_H}: NCCL_LL128_LINESIZE", "B"),
    # NCCL_LL128_DATAELEMS = NCCL_LL128_LINEELEMS − 1 = 15 of 16 uint64: one carries the flag
    Constant("nccl_ll128_data_bytes", 120, Dim.BYTES, f"{_DEVICE_H}: NCCL_LL128_DATAELEMS", "B"),
    Constant(
        "torch_nccl_default_timeout",
        600,
        Dim.SECONDS,
        "PyTorch torch.distributed.constants.default_pg_nccl_timeout: 10 minutes for the NCCL "
        "process group (pytorch/pytorch #110947)",
        "min",
    ),
    Constant(
        "torch_default_pg_timeout",
        1800,
        Dim.SECONDS,
        "PyTorch torch.distributed.constants.default_pg_timeout: 30 minutes (gloo and others)",
        "min",
    ),
)


_PERFORMANCE_MD = "nccl-tests doc/PERFORMANCE.md"
# nccl-tests' bus-bandwidth factor of a collective is share × (n−1)/n + unit: 2(n−1)/n for
# all-reduce, (n−1)/n for reduce-scatter, all-gather and all-to-all, 1 for broadcast, reduce
_BUSBW_FORMS = {
    "all_reduce": (2, 0),
    "reduce_scatter": (1, 0),
    "all_gather": (1, 0),
    "all_to_all": (1, 0),
    "broadcast": (0, 1),
    "reduce": (0, 1),
}
BUSBW: tuple[Constant, ...] = tuple(
    c
    for name, (share, unit) in _BUSBW_FORMS.items()
    for c in (
        Constant(f"{name}_busbw_share", share, Dim.COUNT, f"{_PERFORMANCE_MD}: {name}"),
        Constant(f"{name}_busbw_unit", unit, Dim.COUNT, f"{_PERFORMANCE_MD}: {name}"),
    )
)


CONSTANTS: tuple[Constant, ...] = (*PUBLISHED, *ASYNC_ERROR_MODES, *BUSBW)
