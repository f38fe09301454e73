"""GPUs with the memory they really report, and how much of it a server may use.

``reported_mib`` is the total that ``nvidia-smi`` (or ``rocm-smi`` for AMD) shows, which is
less than the marketing figure: an "80GB" H100 reports 81,559 MiB = 85.52 GB = 79.65 GiB.
Serving engines take a fraction of it (vLLM's ``gpu_memory_utilization``, default 0.9).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deck.registry import suggest
from quizcoll.memory.errors import MemoryInputError

DEFAULT_UTILIZATION = 0.9
MAX_GPUS = 2**20  # "NxGPU": at most 1,048,576 GPUs
MIB = 2**20


@dataclass(frozen=True)
class Gpu:
    """One GPU model: catalog key, display name, memory as reported, accepted spellings."""

    key: str
    name: str
    reported_mib: int
    aliases: tuple[str, ...] = ()

    @property
    def memory_bytes(self) -> int:
        return self.reported_mib * MIB

    def usable_bytes(self, utilization: float = DEFAULT_UTILIZATION) -> int:
        """Bytes an engine may allocate at ``utilization`` (the fraction of reported memory)."""
        return int(self.memory_bytes * utilization)


GPUS: tuple[Gpu, ...] = (
    Gpu("a100-80gb", "NVIDIA A100 80GB", 81_920, ("a100", "a100-80g", "a100-sxm4-80gb", "a800")),
    Gpu("a100-40gb", "NVIDIA A100 40GB", 40_960, ("a100-40g", "a100-sxm4-40gb")),
    Gpu("h100-80gb", "NVIDIA H100 80GB", 81_559, ("h100", "h100-sxm", "h100-pcie", "h800")),
    Gpu("h200", "NVIDIA H200 141GB", 143_771, ("h200-141gb",)),
    Gpu("v100-16gb", "NVIDIA V100 16GB", 16_160, ("v100-16g",)),
    Gpu("v100-32gb", "NVIDIA V100 32GB", 32_510, ("v100", "v100-32g")),
    Gpu("a10", "NVIDIA A10 24GB", 23_028, ("a10-24gb", "a10g")),
    Gpu("l4", "NVIDIA L4 24GB", 23_034, ("l4-24gb",)),
    Gpu("l40s", "NVIDIA L40S 48GB", 46_068, ("l40s-48gb", "l40")),
    Gpu("t4", "NVIDIA T4 16GB", 15_360, ("t4-16gb",)),
    Gpu("rtx-a6000", "NVIDIA RTX A6000 48GB", 49_140, ("a6000",)),
    Gpu("rtx-4090", "NVIDIA GeForce RTX 4090 24GB", 24_564, ("4090", "rtx4090")),
    Gpu("rtx-3090", "NVIDIA GeForce RTX 3090 24GB", 24_576, ("3090", "rtx3090")),
    Gpu("mi300x", "AMD Instinct MI300X 192GB", 196_592, ("mi300x-192gb",)),
)


def _norm(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.strip().lower())


def gpu_names() -> tuple[str, ...]:
    return tuple(g.key for g in GPUS)


def find_gpu(name: str) -> Gpu:
    """The GPU called ``name`` (key or alias, any case), or an error with a suggestion."""
    wanted = _norm(name)
    for g in GPUS:
        if wanted == g.key or wanted in g.aliases or wanted == _norm(g.name):
            return g
    spellings = [s for g in GPUS for s in (g.key, *g.aliases)]
    raise MemoryInputError(
        f"unknown GPU {name!r}{suggest(wanted, spellings)}; known: {', '.join(gpu_names())}"
    )


_COUNT_RE = re.compile(r"^\s*(\d{1,40})\s*[x×*]\s*(.+)$", re.IGNORECASE)


def parse_gpu_spec(spec: str) -> tuple[Gpu, int | None]:
    """``H100`` → (H100, None); ``2xH100`` / ``4×a100-80gb`` → (GPU, count)."""
    from deck.units import UnitError, parse_number

    m = _COUNT_RE.match(spec)
    if m:
        try:
            count = int(parse_number(m.group(1), "GPU count", low=1, high=MAX_GPUS, integer=True))
        except UnitError as exc:
            raise MemoryInputError(str(exc)) from None
        return find_gpu(m.group(2)), count
    return find_gpu(spec), None


def check_utilization(utilization: float) -> float:
    if not 0 < utilization <= 1:  # also refuses NaN
        raise MemoryInputError(f"utilization must be in (0, 1], got {utilization:g}")
    return utilization
