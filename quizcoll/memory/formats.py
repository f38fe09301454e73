"""Data types and quantization formats, and the bytes a model's weights take in each.

Plain dtypes (fp32, fp16, bf16, fp8, int8, int4) store every parameter at their width.
The quantization formats are sized from the tensor layouts they really write:

- GPTQ int4 (AutoGPTQ layout), per linear layer of ``in × out`` with group size g:
  ``qweight`` int32 ``in/8 × out`` (4 bits a weight), ``qzeros`` int32 ``in/g × out/8``,
  ``scales`` fp16 ``in/g × out``, ``g_idx`` int32 ``in``.
- AWQ int4 (GEMM layout): ``qweight`` int32 ``in × out/8``, ``qzeros`` int32
  ``in/g × out/8``, ``scales`` fp16 ``in/g × out``; no ``g_idx``.
  GPTQ and AWQ quantize only the linear layers inside the transformer blocks: the
  embeddings, the output head, norms, biases and the MoE router stay in fp16.
- llama.cpp GGUF, pure quantization: every 2-D tensor is cut into blocks (see
  :data:`GGUF_BLOCKS` for the byte layout of each); 1-D tensors (norms, biases) and the MoE
  router stay in F32. A K-quant needs rows that are a multiple of 256 and a tensor whose
  rows are not falls back the way llama.cpp does (Q4_K→Q5_0, Q5_K→Q5_1, Q6_K→Q8_0).
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.figures import whole
from quizcoll.memory.numbers import suggest
from quizcoll.memory.params import Role, Tensor


class FormatKind(enum.Enum):
    PLAIN = "plain"
    GPTQ = "gptq"
    AWQ = "awq"
    GGUF = "gguf"


@dataclass(frozen=True)
class GgufBlock:
    """A llama.cpp block type: ``block_size`` weights stored in ``block_bytes`` bytes."""

    name: str
    block_size: int
    block_bytes: int
    layout: str
    fallback: str | None = None  # the type used when a row is not a whole number of blocks

    @property
    def bits_per_weight(self) -> float:
        return self.block_bytes * 8 / self.block_size


def _block(name: str, layout: str, fallback: str | None = None) -> GgufBlock:
    """A block type whose size and bytes are ``quizcoll/data/quant-formats.yaml``'s
    ``NAME_block_size`` and ``NAME_block_bytes`` (each quoted from its source there)."""
    size = whole("quant-formats", f"{name}_block_size")
    return GgufBlock(name, size, whole("quant-formats", f"{name}_block_bytes"), layout, fallback)


# Byte layouts of ggml-common.h's structs (block_q8_0, block_q6_K ...); the weights and bytes
# of each block are read from the data file, so that they live once.
GGUF_BLOCKS: dict[str, GgufBlock] = {
    b.name: b
    for b in (
        _block("q8_0", "fp16 scale + 32 × int8"),
        _block(
            "q6_k",
            "128 B low 4 bits + 64 B high 2 bits + 16 int8 scales + fp16 scale",
            "q8_0",
        ),
        _block(
            "q5_k",
            "fp16 scale + fp16 min + 12 B 6-bit sub-block scales/mins + 32 B high bits + 128 B low 4 bits",
            "q5_1",
        ),
        _block(
            "q4_k",
            "fp16 scale + fp16 min + 12 B 6-bit sub-block scales/mins + 128 B of 4-bit quants",
            "q5_0",
        ),
        _block("q4_0", "fp16 scale + 16 B of 4-bit quants"),
        # Fallbacks only (not offered as formats): the legacy types llama.cpp substitutes.
        _block("q5_0", "fp16 scale + 4 B high bits + 16 B low 4 bits"),
        _block("q5_1", "fp16 scale + fp16 min + 4 B high bits + 16 B low 4 bits"),
    )
}
GGUF_FORMATS: tuple[str, ...] = ("q8_0", "q6_k", "q5_k", "q4_k", "q4_0")

# Plain dtypes and their width in bits.
PLAIN_BITS: dict[str, int] = {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "int4": 4}
_PLAIN_ALIASES: dict[str, str] = {
    "float32": "fp32",
    "f32": "fp32",
    "float": "fp32",
    "float16": "fp16",
    "f16": "fp16",
    "half": "fp16",
    "bfloat16": "bf16",
    "float8": "fp8",
    "fp8_e4m3": "fp8",
    "fp8_e5m2": "fp8",
    "e4m3": "fp8",
    "e5m2": "fp8",
}
KV_DTYPES: tuple[str, ...] = ("fp32", "fp16", "bf16", "fp8", "int8")
DEFAULT_GROUP_SIZE = 128


@dataclass(frozen=True)
class WeightFormat:
    """How weights are stored: a plain dtype, GPTQ/AWQ int4 with a group size, or a GGUF type."""

    name: str
    kind: FormatKind
    bits: int  # bits of one stored quantized value (plain: the dtype width)
    group_size: int = 0

    @property
    def compute_bytes(self) -> int:
        """Bytes of one activation or KV entry by default: fp32 stays fp32, all else runs in 16-bit."""
        return 4 if self.name == "fp32" else 2

    @property
    def nominal_bits_per_weight(self) -> float:
        """Bits per quantized weight, counting per-group/per-block metadata, ignoring layout."""
        if self.kind is FormatKind.PLAIN:
            return float(self.bits)
        if self.kind is FormatKind.GGUF:
            return GGUF_BLOCKS[self.name].bits_per_weight
        # 4-bit value + an fp16 scale and a 4-bit zero per group of g weights
        return self.bits + (16 + 4) / self.group_size

    @property
    def kept_dtype(self) -> str | None:
        """The dtype of the tensors a quantization format leaves alone (None: plain)."""
        return {FormatKind.GPTQ: "fp16", FormatKind.AWQ: "fp16", FormatKind.GGUF: "fp32"}.get(
            self.kind
        )

    def describe(self) -> str:
        if self.kind is FormatKind.PLAIN:
            return f"{self.name} ({self.bits} bits per parameter)"
        if self.kind is FormatKind.GGUF:
            block = GGUF_BLOCKS[self.name]
            return (
                f"GGUF {self.name.upper()}: {block.block_bytes} B per {block.block_size} weights "
                f"= {block.bits_per_weight:g} bits/weight; norms and biases stay F32"
            )
        return (
            f"{self.kind.value.upper()} int4, group size {self.group_size}: linear layers in "
            "4 bits + fp16 scales and packed zeros; embeddings, head, norms, biases stay fp16"
        )


def known_formats() -> tuple[str, ...]:
    """Every format name accepted (canonical spellings)."""
    return (*PLAIN_BITS, "gptq", "awq", *GGUF_FORMATS)


_QUANT_RE = re.compile(r"^(gptq|awq)(?:[-_]?(?:int4|4bit|w4a16))?(?:[-_]g(?P<g>[0-9]{1,12}))?$")
# GPTQ/AWQ group sizes (docs/limits.md): 32, 64 and 128 are the usual; a group is never more
# than one row of a weight, and none of the models in the catalogue has rows of 4,096+.
MIN_GROUP_SIZE = 8
MAX_GROUP_SIZE = 4096


def parse_format(name: str, group_size: int | None = None) -> WeightFormat:
    """``fp16``, ``bf16``, ``int4``, ``gptq``, ``awq-g64``, ``q4_k`` ... as a :class:`WeightFormat`.

    ``group_size`` overrides the one in the name for GPTQ/AWQ (default 128).
    """
    text = str(name).strip().lower().replace("-", "_") if name else ""
    text = _PLAIN_ALIASES.get(text, text)
    if text in PLAIN_BITS:
        return WeightFormat(text, FormatKind.PLAIN, PLAIN_BITS[text])
    gguf = text.removeprefix("gguf_")
    if gguf in GGUF_FORMATS:
        return WeightFormat(gguf, FormatKind.GGUF, int(GGUF_BLOCKS[gguf].bits_per_weight))
    m = _QUANT_RE.match(str(name).strip().lower())
    if m:
        g = group_size or int(m.group("g") or DEFAULT_GROUP_SIZE)
        if not MIN_GROUP_SIZE <= g <= MAX_GROUP_SIZE:
            raise MemoryInputError(
                f"group size must be between {MIN_GROUP_SIZE:,} and {MAX_GROUP_SIZE:,}, got {g:,}"
            )
        kind = FormatKind.GPTQ if m.group(1) == "gptq" else FormatKind.AWQ
        return WeightFormat(f"{kind.value}-int4-g{g}", kind, 4, g)
    raise MemoryInputError(
        f"unknown dtype or format {name!r}{suggest(text, known_formats())}; "
        f"known: {', '.join(known_formats())} (gptq/awq take -gN for the group size)"
    )


def parse_kv_dtype(name: str) -> WeightFormat:
    """A KV-cache dtype: fp32, fp16, bf16, fp8 or int8."""
    fmt = parse_format(name) if name else None
    if fmt is None or fmt.name not in KV_DTYPES:
        raise MemoryInputError(
            f"unknown KV-cache dtype {name!r}{suggest(str(name).lower(), KV_DTYPES)}; "
            f"known: {', '.join(KV_DTYPES)}"
        )
    return fmt


@dataclass(frozen=True)
class WeightBytes:
    """Weight memory of a model in a format, and what was and was not quantized."""

    format: WeightFormat
    total_bytes: int
    parameters: int
    quantized_parameters: int
    kept_parameters: int  # left at ``format.kept_dtype``
    kept_bytes: int
    fallbacks: tuple[str, ...]  # tensors stored in another GGUF type, and which

    @property
    def bytes_per_parameter(self) -> float:
        return self.total_bytes / self.parameters if self.parameters else 0.0


def _gptq_awq_bytes(out_f: int, in_f: int, fmt: WeightFormat) -> int:
    groups = math.ceil(in_f / fmt.group_size)
    packed_out = math.ceil(out_f / 8)  # eight 4-bit values per int32
    scales = groups * out_f * 2
    zeros = groups * packed_out * 4
    if fmt.kind is FormatKind.GPTQ:
        qweight = math.ceil(in_f / 8) * out_f * 4
        g_idx = in_f * 4
        return qweight + zeros + scales + g_idx
    return in_f * packed_out * 4 + zeros + scales


def _gguf_bytes(t: Tensor, fmt: WeightFormat) -> tuple[int, str]:
    row = t.shape[-1]
    rows = t.numel // row
    block = GGUF_BLOCKS[fmt.name]
    while row % block.block_size:
        if block.fallback is None:
            return t.numel * 2, "f16"
        block = GGUF_BLOCKS[block.fallback]
    return rows * (row // block.block_size) * block.block_bytes, block.name


def weight_bytes(tensors: Iterable[Tensor], fmt: WeightFormat) -> WeightBytes:
    """Bytes of all ``tensors`` stored in ``fmt``, computed tensor by tensor."""
    total = quantized = kept = kept_bytes = params = 0
    fallbacks: list[str] = []
    for t in tensors:
        params += t.parameters
        if fmt.kind is FormatKind.PLAIN:
            total += math.ceil(t.numel * fmt.bits / 8) * t.copies
            quantized += t.parameters
            continue
        if fmt.kind is FormatKind.GGUF:
            quantize = len(t.shape) == 2 and t.role is not Role.ROUTER
        else:
            quantize = t.role is Role.LINEAR
        if not quantize:
            size = t.parameters * (4 if fmt.kind is FormatKind.GGUF else 2)
            total += size
            kept += t.parameters
            kept_bytes += size
            continue
        quantized += t.parameters
        if fmt.kind is FormatKind.GGUF:
            size, used = _gguf_bytes(t, fmt)
            if used != fmt.name:
                fallbacks.append(f"{t.name}: {used} (row of {t.shape[-1]})")
            total += size * t.copies
        else:
            out_f, in_f = t.shape
            total += _gptq_awq_bytes(out_f, in_f, fmt) * t.copies
    return WeightBytes(fmt, total, params, quantized, kept, kept_bytes, tuple(fallbacks))


def bytes_for_parameter_count(parameters: int, fmt: WeightFormat) -> int:
    """Weights of ``parameters`` with no layout known: all of them at the nominal bits per weight."""
    return math.ceil(parameters * fmt.nominal_bits_per_weight / 8)
