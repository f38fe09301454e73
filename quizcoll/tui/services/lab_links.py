"""Which lab can replay a card's live result, and with which settings.

:func:`sim_request` turns the arguments of a ``collectives.*`` answer (collective,
algorithm, ranks and size; nodes × GPUs per node for the hierarchical all-reduce) into
the simulation lab's request; :func:`memory_request` turns those of a ``memory.*``
answer that names a catalog model into the memory lab's. Each returns None when its lab
cannot show that answer as asked, so the review offers a lab key only where it works.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deck.answers.checking import Solution
from quizcoll.tui.services.lab import (
    COLLECTIVES,
    HIERARCHICAL,
    MAX_LAB_RANKS,
    LabRequest,
    layout_only,
)
from quizcoll.tui.services.memory_lab import AUTO, MemoryRequest

# The memory executables whose arguments describe an inference deployment of one model.
MEMORY_RUNS = frozenset(
    {
        "memory.inference",
        "memory.kv_cache",
        "memory.max_context",
        "memory.gpus_needed",
        "memory.model_weights",
        "memory.model_params",
    }
)
# collectives.* executables that name the collective in an argument, not in their name.
_GENERIC_COLLECTIVE_RUNS = ("collectives.cost", "collectives.best_algorithm")


@dataclass(frozen=True)
class LabLinks:
    """The lab requests a live result can be opened in (None: that lab cannot show it)."""

    sim: LabRequest | None = None
    memory: MemoryRequest | None = None


def lab_links(run: str, solution: Solution | None) -> LabLinks:
    """Both links of ``solution`` (a card's answer computed by executable ``run``)."""
    if solution is None or not solution.result or not solution.args:
        return LabLinks()
    return LabLinks(
        sim=sim_request(run, solution.args, solution.result),
        memory=memory_request(run, solution.args),
    )


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _positive(value: Any) -> float | None:
    """A card's own link value (α in s, B in bytes/s), or None to keep the preset's."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def sim_request(
    run: str, args: Mapping[str, Any], result: Mapping[str, Any] | None = None
) -> LabRequest | None:
    """The simulation lab's request replaying ``run(**args)``, or None if it cannot."""
    from quizcoll.collectives import PRESETS, CollectiveError, algorithms

    if run == "collectives.hierarchical":
        nodes, per_node = _int(args.get("nodes")), _int(args.get("gpus_per_node"))
        if nodes is None or per_node is None or nodes < 1 or per_node < 1:
            return None
        collective, algorithm, ranks = "all_reduce", HIERARCHICAL, nodes * per_node
    else:
        name = run.removeprefix("collectives.")
        if not run.startswith("collectives."):
            return None
        if run in _GENERIC_COLLECTIVE_RUNS:
            name = str(args.get("collective") or "")
        if name not in COLLECTIVES:
            return None
        collective = name
        # The result names the algorithm that ran ("default" resolved; best_algorithm: the winner).
        algorithm = str((result or {}).get("algorithm") or args.get("algorithm") or "default")
        if algorithm == "default":
            algorithm = algorithms(collective)[0]
        ranks = _int(args.get("ranks"))
        if ranks is None:
            return None
        nodes = 1
        if algorithm == HIERARCHICAL:
            per_node = _int(args.get("gpus_per_node"))
            nodes = _int(args.get("nodes")) or (ranks // per_node if per_node else 0)
    size = _int(args.get("size"))
    if size is None or size < 1 or not 1 <= ranks <= MAX_LAB_RANKS:
        return None
    if algorithm not in algorithms(collective, topology=True):
        return None
    link = str(args.get("link") or "nvlink")
    root = _int(args.get("root")) or 0
    req = LabRequest(
        collective=collective,
        algorithm=algorithm,
        ranks=ranks,
        size_bytes=size,
        dtype=str(args.get("dtype") or "float32"),
        root=root,
        link=link if link in PRESETS and algorithm != HIERARCHICAL else "nvlink",
        nodes=nodes if algorithm == HIERARCHICAL else 1,
        latency=_positive(args.get("latency")),
        bandwidth=_positive(args.get("bandwidth")),
    )
    try:
        layout_only(req)  # refuses what the lab would refuse (bad root, nodes, dtype, size)
    except (CollectiveError, KeyError, ValueError):
        return None
    return req


def memory_request(run: str, args: Mapping[str, Any]) -> MemoryRequest | None:
    """The memory lab's request for ``run(**args)`` when they name a catalog model."""
    from quizcoll.memory.catalog import model_names
    from quizcoll.memory.formats import KV_DTYPES, known_formats
    from quizcoll.memory.gpus import gpu_names

    model = args.get("model")
    if run not in MEMORY_RUNS or not isinstance(model, str) or model not in model_names():
        return None
    default = MemoryRequest()
    dtype, kv_dtype = default.dtype, AUTO
    if run == "memory.kv_cache":  # its dtype is the KV cache's
        kv_dtype = str(args.get("dtype") or AUTO)
    else:
        dtype = str(args.get("dtype") or default.dtype)
        kv_dtype = str(args.get("kv_dtype") or AUTO)
    if dtype not in known_formats() or (kv_dtype != AUTO and kv_dtype not in KV_DTYPES):
        return None
    gpu = str(args.get("gpu") or default.gpu)
    if gpu not in gpu_names():
        return None
    context = _int(args.get("context"))
    batch = _int(args.get("batch")) or default.batch
    gpus = _int(args.get("gpus")) or default.gpus
    flash = args.get("flash_attention", default.flash_attention)
    return MemoryRequest(
        model=model,
        dtype=dtype,
        kv_dtype=kv_dtype,
        context=str(context) if context else default.context,
        batch=batch,
        gpu=gpu,
        gpus=gpus,
        flash_attention=bool(flash),
    )
