"""The memory lab's computation: a model's inference memory, its fit on GPUs, the longest
context that fits. Pure; the screen runs :func:`compute` in a worker."""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import DEFAULT_GROUP_SIZE, FormatKind, parse_format, parse_kv_dtype
from quizcoll.memory.gpus import DEFAULT_UTILIZATION, Gpu, find_gpu
from quizcoll.memory.inference import InferenceEstimate, estimate, gpus_needed, max_context
from quizcoll.memory.source import parse_context, resolve_model_or_config, resolve_source

AUTO = "auto"
# The GPTQ/AWQ group sizes the memory executables accept (their ``group_size`` parameter).
MIN_GROUP_SIZE = 8
MAX_GROUP_SIZE = 4096


def takes_group_size(dtype: str) -> bool:
    """Whether the weights format ``dtype`` is quantized in groups (GPTQ or AWQ)."""
    try:
        return parse_format(dtype).kind in (FormatKind.GPTQ, FormatKind.AWQ)
    except MemoryInputError:
        return False


def check_group_size(group_size: int) -> int:
    if not MIN_GROUP_SIZE <= group_size <= MAX_GROUP_SIZE:
        raise MemoryInputError(
            f"group size must be between {MIN_GROUP_SIZE} and {MAX_GROUP_SIZE}, got {group_size}"
        )
    return group_size


@dataclass(frozen=True)
class MemoryRequest:
    """A catalog model (or a ``config.json`` path or Hub ``ORG/NAME``, which wins when given)
    and the setting."""

    model: str = "llama-3-8b"
    config_path: str = ""
    dtype: str = "bf16"
    group_size: int = DEFAULT_GROUP_SIZE  # GPTQ/AWQ only; other formats ignore it
    kv_dtype: str = AUTO
    context: str = "8k"
    batch: int = 1
    gpu: str = "h100-80gb"
    gpus: int = 1
    flash_attention: bool = True


@dataclass(frozen=True)
class MemoryResult:
    request: MemoryRequest
    label: str
    estimate: InferenceEstimate
    gpu: Gpu
    gpus: int
    gpus_needed: int
    per_gpu_bytes: int
    usable_bytes: int
    max_context: int
    model_max_context: int = 0  # the model's own (trained) context limit; 0 if unknown

    @property
    def context_beyond_model(self) -> bool:
        """Memory would allow a longer context than the model itself handles."""
        return 0 < self.model_max_context < self.max_context

    @property
    def fits(self) -> bool:
        return self.per_gpu_bytes <= self.usable_bytes


def compute(req: MemoryRequest) -> MemoryResult:
    """Raises :class:`MemoryInputError` with a one-line message on any bad input."""
    if req.gpus < 1:
        raise MemoryInputError(f"GPU count must be at least 1, got {req.gpus}")
    path = req.config_path.strip()
    source = resolve_model_or_config(path) if path else resolve_source(model=req.model)
    assert source.config is not None
    if takes_group_size(req.dtype):
        fmt = parse_format(req.dtype, check_group_size(req.group_size))
    else:
        fmt = parse_format(req.dtype)
    kv = None if req.kv_dtype == AUTO else parse_kv_dtype(req.kv_dtype)
    context = parse_context(req.context)
    gpu = find_gpu(req.gpu)
    est = estimate(
        source.config,
        fmt,
        kv_format=kv,
        context=context,
        batch=req.batch,
        flash_attention=req.flash_attention,
    )
    longest = max_context(
        source.config,
        fmt,
        gpu,
        gpus=req.gpus,
        kv_format=kv,
        batch=req.batch,
        flash_attention=req.flash_attention,
    )
    return MemoryResult(
        request=req,
        label=source.label,
        estimate=est,
        gpu=gpu,
        gpus=req.gpus,
        gpus_needed=gpus_needed(est, gpu),
        per_gpu_bytes=est.per_gpu_bytes(req.gpus),
        usable_bytes=gpu.usable_bytes(DEFAULT_UTILIZATION),
        max_context=longest,
        model_max_context=source.config.max_position_embeddings or 0,
    )
