"""GPUs with the memory they really report, how much of it a server may use, and their speed.

``reported_mib`` is the total that ``nvidia-smi`` (or ``rocm-smi`` for AMD) shows, which is
less than the marketing figure: an "80GB" H100 reports 81,559 MiB = 85.52 GB = 79.65 GiB.
Serving engines take a fraction of it (vLLM's ``gpu_memory_utilization``, default 0.9).

:data:`COMPUTE` gives each GPU's memory bandwidth and dense (no 2:4 sparsity) tensor-core
peak per dtype from its vendor datasheet; datasheets print the sparse figure for most
dtypes, which is twice the dense one. A dtype a GPU's tensor cores lack is absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from quizcoll.memory import figures
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.numbers import read_count, suggest

# vLLM's EngineArgs default of the v0.6 line the cards teach, quoted in quizcoll/data/serving.yaml.
DEFAULT_UTILIZATION = figures.figure("serving", "vllm_gpu_memory_utilization")
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
    Gpu("h100-80gb", "NVIDIA H100 80GB", 81_559, ("h100", "h100-sxm", "h800")),
    Gpu("h100-pcie", "NVIDIA H100 PCIe 80GB", 81_559, ("h100-pcie-80gb",)),
    Gpu("h200", "NVIDIA H200 141GB", 143_771, ("h200-141gb",)),
    Gpu("b200", "NVIDIA B200 180GB", 183_359, ("b200-180gb", "hgx-b200")),
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
    m = _COUNT_RE.match(spec)
    if m:
        count = read_count(m.group(1), "GPU count", low=1, high=MAX_GPUS)
        return find_gpu(m.group(2)), count
    return find_gpu(spec), None


def check_utilization(utilization: float) -> float:
    if not 0 < utilization <= 1:  # also refuses NaN
        raise MemoryInputError(f"utilization must be in (0, 1], got {utilization:g}")
    return utilization


@dataclass(frozen=True)
class GpuCompute:
    """Memory bandwidth and dense tensor-core peaks of one GPU, with the datasheet they are from."""

    hbm_bandwidth: float  # bytes/s
    dense_tflops: tuple[tuple[str, float], ...]  # (dtype, TFLOP/s without sparsity)
    source: str

    def peak_flops(self, dtype: str) -> float | None:
        """FLOP/s of ``dtype`` on the tensor cores, or None if they do not run it."""
        return next((t * 1e12 for d, t in self.dense_tflops if d == dtype), None)

    @property
    def dtypes(self) -> tuple[str, ...]:
        return tuple(d for d, _ in self.dense_tflops)


COMPUTE_DTYPES: tuple[str, ...] = ("fp16", "bf16", "fp8", "tf32", "fp4")


def _c(bandwidth_gb_s: float, source: str, **tflops: float) -> GpuCompute:
    return GpuCompute(bandwidth_gb_s * 1e9, tuple(tflops.items()), source)


# Tensor cores shared by several parts (dense TFLOP/s).
_AMPERE_A100 = {"fp16": 312, "bf16": 312, "tf32": 156}
_HOPPER_SXM = {"fp16": 989.4, "bf16": 989.4, "fp8": 1978.9, "tf32": 494.7}
_V100_SOURCE = "NVIDIA V100 datasheet, SXM2 (900 GB/s; 125 tensor TFLOPS, FP16)"


# Dense tensor-core TFLOP/s and memory bandwidth, per GPU key of GPUS.
COMPUTE: dict[str, GpuCompute] = {
    "a100-80gb": _c(
        2039,
        "NVIDIA A100 datasheet (SXM4 80GB: 2,039 GB/s; BF16/FP16 312, TF32 156 TFLOPS dense)",
        **_AMPERE_A100,
    ),
    "a100-40gb": _c(
        1555,
        "NVIDIA A100 datasheet (40GB: 1,555 GB/s; BF16/FP16 312, TF32 156 TFLOPS dense)",
        **_AMPERE_A100,
    ),
    "h100-80gb": _c(
        3350,
        "NVIDIA H100 datasheet, SXM5 (3.35 TB/s; BF16/FP16 1,979, FP8 3,958, TF32 989 TFLOPS "
        "with sparsity) and the Hopper whitepaper's dense 989.4 / 1,978.9 / 494.7",
        **_HOPPER_SXM,
    ),
    "h100-pcie": _c(
        2000,
        "NVIDIA H100 datasheet, PCIe (2 TB/s; BF16/FP16 1,513, FP8 3,026, TF32 756 TFLOPS "
        "with sparsity)",
        fp16=756.5,
        bf16=756.5,
        fp8=1513,
        tf32=378,
    ),
    "h200": _c(
        4800,
        "NVIDIA H200 datasheet, SXM (4.8 TB/s; the H100 SXM's tensor cores: BF16 1,979, "
        "FP8 3,958 TFLOPS with sparsity)",
        **_HOPPER_SXM,
    ),
    "b200": _c(
        7700,
        "NVIDIA HGX B200 datasheet, per GPU (7.7 TB/s; FP16/BF16 4.5, FP8 9, FP4 18, TF32 2.2 "
        "PFLOPS with sparsity)",
        fp16=2250,
        bf16=2250,
        fp8=4500,
        fp4=9000,
        tf32=1100,
    ),
    "v100-16gb": _c(900, _V100_SOURCE, fp16=125),
    "v100-32gb": _c(900, _V100_SOURCE, fp16=125),
    "a10": _c(
        600,
        "NVIDIA A10 datasheet (600 GB/s; BF16/FP16 125, TF32 62.5 TFLOPS dense)",
        fp16=125,
        bf16=125,
        tf32=62.5,
    ),
    "l4": _c(
        300,
        "NVIDIA L4 datasheet (300 GB/s; FP16/BF16 242, FP8 485, TF32 120 TFLOPS with sparsity)",
        fp16=121,
        bf16=121,
        fp8=242.5,
        tf32=60,
    ),
    "l40s": _c(
        864,
        "NVIDIA L40S datasheet (864 GB/s; BF16/FP16 362.05, FP8 733, TF32 183 TFLOPS dense)",
        fp16=362.05,
        bf16=362.05,
        fp8=733,
        tf32=183,
    ),
    "t4": _c(
        320, "NVIDIA T4 datasheet (320 GB/s; 65 TFLOPS FP16 mixed precision; no BF16)", fp16=65
    ),
    "rtx-a6000": _c(
        768,
        "NVIDIA RTX A6000 datasheet and Ampere GA102 whitepaper (768 GB/s; FP16/BF16 154.8, "
        "TF32 77.4 TFLOPS dense)",
        fp16=154.8,
        bf16=154.8,
        tf32=77.4,
    ),
    "rtx-4090": _c(
        1008,
        "NVIDIA Ada Lovelace whitepaper, RTX 4090 (1,008 GB/s; FP16/BF16 with FP32 accumulate "
        "165.2, FP8 330.3, TF32 82.6 TFLOPS dense)",
        fp16=165.2,
        bf16=165.2,
        fp8=330.3,
        tf32=82.6,
    ),
    "rtx-3090": _c(
        936,
        "NVIDIA Ampere GA102 whitepaper, RTX 3090 (936 GB/s; FP16/BF16 with FP32 accumulate 71, "
        "TF32 35.6 TFLOPS dense)",
        fp16=71,
        bf16=71,
        tf32=35.6,
    ),
    "mi300x": _c(
        5300,
        "AMD Instinct MI300X datasheet (5.3 TB/s; FP16/BF16 1,307.4, FP8 2,614.9, TF32 653.7 "
        "TFLOPS dense)",
        fp16=1307.4,
        bf16=1307.4,
        fp8=2614.9,
        tf32=653.7,
    ),
}


def compute_specs(gpu: Gpu) -> GpuCompute:
    """The bandwidth and peaks of ``gpu``."""
    try:
        return COMPUTE[gpu.key]
    except KeyError:  # every catalog GPU has specs (a test checks); kept for hand-built Gpus
        raise MemoryInputError(f"no compute specs for {gpu.name}") from None


def peak_flops(gpu: Gpu, dtype: str) -> float:
    """Dense tensor-core FLOP/s of ``gpu`` in ``dtype``, or an error naming the dtypes it runs."""
    specs = compute_specs(gpu)
    flops = specs.peak_flops(dtype)
    if flops is None:
        raise MemoryInputError(
            f"the {gpu.name}'s tensor cores do not run {dtype}; they run {', '.join(specs.dtypes)}"
        )
    return flops
