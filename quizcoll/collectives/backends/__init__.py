"""Real runs: the same collective on torch.distributed, beside the simulation.

``gloo`` runs on CPU processes, ``nccl`` on GPUs (one per rank). Either way the run is
timed as nccl-tests times it (warm-up iterations, then timed iterations; the mean time
per iteration, averaged over the ranks; algbw and busbw with nccl-tests' factors), and
its outputs on the simulation's own inputs are compared with the simulator's
(``matches_simulation``).

Two ways to launch:

- :class:`~.local.LocalGroup` starts one worker process per rank on this machine
  (``python -m quizcoll.collectives.backends.worker``) and keeps the group for as many
  runs as asked;
- inside a ``torchrun`` launch (any number of machines), :func:`~.launch.measure_launched`
  joins the group through the ``env://`` variables torchrun sets.

PyTorch is optional (``pip install "quizcoll[torch]"``): nothing here imports it until a
run starts, and :func:`~.launch.require_torch` turns its absence into one clear line.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from quizcoll.collectives.errors import CollectiveError

BACKENDS = ("sim", "gloo", "nccl")
REAL_BACKENDS = ("gloo", "nccl")
WARMUP_ITERS = 5  # nccl-tests' defaults (-w 5, -n 20)
TIMED_ITERS = 20


class BackendError(CollectiveError):
    """A real run that cannot start or failed: one line for the user."""


@dataclass(frozen=True)
class RunSpec:
    """One real run: plain data, sent to every worker as a JSON line."""

    backend: str
    collective: str
    algorithm: str  # the simulated algorithm (torch chooses its own)
    op: str
    dtype: str
    count: int  # elements per rank of the timed run
    root: int = 0
    check_count: int = 0  # elements per rank of the comparison with the simulator; 0: none
    seed: int = 0
    warmup: int = WARMUP_ITERS
    iters: int = TIMED_ITERS
    gpus_per_node: int | None = None  # the hierarchical all-reduce's simulation
    split_sizes: list[list[int]] | None = None  # uneven all_to_all (API and tests)
    budget_bytes: int = 1 << 30  # of the simulation each worker runs for the comparison

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RunSpec:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class Measurement:
    """What a real run measured (rank 0's view, times averaged over all ranks)."""

    backend: str
    ranks: int
    launch: str  # "local processes" or "torchrun"
    device: str
    torch_version: str
    time_s: float  # mean seconds per timed iteration
    algbw: float | None
    busbw: float | None
    warmup: int
    iters: int
    matches: bool | None  # outputs equal the simulator's (None: not compared)
    checked_elements: int
    notes: list[str] = field(default_factory=list)
    members: list[list[Any]] = field(default_factory=list)  # [pid, host] of every rank

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        return cls(**data)

    def document(self) -> dict[str, Any]:
        """The keys ``sim --json`` adds for a real backend."""
        return {
            "backend": self.backend,
            "measured_time_s": self.time_s,
            "measured_algbw": self.algbw,
            "measured_busbw": self.busbw,
            "matches_simulation": self.matches,
            "measured_ranks": self.ranks,
            "measured_launch": self.launch,
            "measured_device": self.device,
            "measured_warmup_iters": self.warmup,
            "measured_iters": self.iters,
            "measured_checked_elements": self.checked_elements,
            "measured_notes": self.notes,
            "torch_version": self.torch_version,
        }
