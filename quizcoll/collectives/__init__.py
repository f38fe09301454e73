"""Collective-communication simulator: real step-by-step schedules on numpy arrays.

Running a collective::

    from quizcoll.collectives import run, algorithms
    result = run("all_reduce", inputs, algorithm="ring", op="sum")  # inputs: N 1-D arrays
    result.outputs          # N arrays; None where a rank has no defined result
    result.bytes_sent       # int64 array, bytes each rank sent (counted on the schedule)
    result.bytes_received
    result.steps            # communication rounds
    result.trace            # the rounds, as data (see below)
    algorithms("all_reduce")  # ('ring', 'naive', 'recursive_doubling', 'rabenseifner',
                              #  'double_binary_tree'); the first is the default

Semantics follow ``torch.distributed`` (see :mod:`.semantics`); ops are ``sum``, ``prod``,
``max``, ``min`` and ``avg``. :func:`verify` checks outputs against the definition.
A run whose buffers would exceed ``budget_bytes`` (default 1 GiB) is refused with a
:class:`CollectiveError`, as is every bad request.

Counting without data: :func:`plan` lays an algorithm out for N ranks (up to
:data:`MAX_RANKS` = 131,072) and any element count; its steps, ``bytes_sent`` and modelled
``time(model)`` are exact, because a schedule moves blocks whose sizes depend on the count
only. They are read from the algorithm's structure (:mod:`.structure`: message, ring and
pairwise phases; :mod:`.counting`), so a 131,072-rank ring costs O(N); the transfer rows
(``plan.schedule``, ``plan.trace``) are laid out on request, up to
:data:`MAX_SCHEDULE_ROWS`. :func:`quizcoll.collectives.sample.check_plan` moves data for a
plan at a bounded size and verifies it. :func:`plan_hierarchical`
and :func:`run_hierarchical` do the same for a nodes × GPUs-per-node all-reduce (also
``plan``/``run`` with ``algorithm="hierarchical", gpus_per_node=g``, listed by
``algorithms("all_reduce", topology=True)``); :func:`hierarchical_phases` splits its
modelled time into the intra-node, inter-node and intra-node phases.

Cost: :class:`CostModel` with :class:`LinkModel` presets ``nvlink`` and ``infiniband``
(:data:`PRESETS`); :func:`busbw_factor`, :func:`bandwidths`; :func:`best_algorithm` and
:func:`crossover` ("ring or tree?"); :func:`zero_volume` for data parallelism and ZeRO.

Traces for step-by-step displays. ``trace = result.trace`` (or ``plan(...).trace``):

- ``len(trace)`` rounds; ``trace.ranks``; ``trace.chunks`` block slots per rank.
- ``trace.step(i)`` → :class:`TraceStep` of parallel numpy arrays, one entry per block
  transfer: ``src``, ``dst``, ``chunk`` (the sender's block), ``dst_chunk`` (where it
  lands; differs only for all_to_all, whose slots ``N..2N−1`` are receive slots),
  ``bytes``, ``reduce`` (combined into the receiver's block, or stored).
- ``trace.transfers(i)`` → ``[{src, dst, chunk, bytes}, ...]``; ``trace.to_json()``.
- ``trace.sent_per_step()`` / ``received_per_step()`` → ``(steps, ranks)`` bytes;
  ``trace.per_link()`` → ``(ranks, ranks)`` bytes sent over each directed link.
- ``trace.holdings()`` → int32 array ``(steps + 1, ranks, chunks)``: entry ``[t, r, c]``
  is how many ranks' contributions block ``c`` of rank ``r`` holds before round ``t``
  (``t = 0``: the start; ``t = steps``: the end). ``N`` means fully reduced (reducing
  collectives) or present (data-moving ones); 0 means empty. Built on request, refused
  over the budget; nothing is kept as per-transfer Python objects.
- ``plan.layout.elems[r, c]`` gives each block's element count.
"""

from __future__ import annotations

from quizcoll.collectives.advisor import Crossover, best_algorithm, crossover
from quizcoll.collectives.api import (
    DEFAULT_BUDGET,
    MAX_RANKS,
    MAX_SCHEDULE_ROWS,
    CollectiveResult,
    Plan,
    algorithms,
    hierarchical_phases,
    plan,
    plan_hierarchical,
    run,
    run_hierarchical,
    verify,
)
from quizcoll.collectives.cost import (
    PRESETS,
    CostModel,
    LinkModel,
    bandwidths,
    busbw_factor,
    get_preset,
    message_bytes,
    with_overrides,
)
from quizcoll.collectives.dtypes import DTYPES, DType, get_dtype
from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.ops import Op, get_op
from quizcoll.collectives.semantics import Collective, get_collective, reference
from quizcoll.collectives.trace import Trace, TraceStep
from quizcoll.collectives.volume import ZeroVolume, zero_volume

__all__ = [
    "DEFAULT_BUDGET",
    "DTYPES",
    "MAX_RANKS",
    "MAX_SCHEDULE_ROWS",
    "PRESETS",
    "Collective",
    "CollectiveError",
    "CollectiveResult",
    "CostModel",
    "Crossover",
    "DType",
    "LinkModel",
    "Op",
    "Plan",
    "Trace",
    "TraceStep",
    "ZeroVolume",
    "algorithms",
    "bandwidths",
    "best_algorithm",
    "busbw_factor",
    "crossover",
    "get_collective",
    "get_dtype",
    "get_op",
    "get_preset",
    "hierarchical_phases",
    "message_bytes",
    "plan",
    "plan_hierarchical",
    "reference",
    "run",
    "run_hierarchical",
    "verify",
    "with_overrides",
    "zero_volume",
]
