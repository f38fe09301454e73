"""Kernels stepped on a two-engine clock, and a transformer's step built from its tensors.

Second methods for the serving roofline (``serving.roofline``, ``serving.decode``,
``serving.request``, ``quant.decode``), reached without the roofline's ``max`` formula and
without the config parser or the parameter counter:

- :func:`stream` runs a double-buffered kernel slice by slice: a memory engine reads slice
  i+1 while the compute engine works on slice i, and writes slice i back after it; the
  makespan is read off the clock. It tends to max(bytes / bandwidth, FLOPs / peak) as the
  slices get many (the gap is at most one slice), which is what the roofline asserts.
- :func:`gemm` tiles an (m × k)·(k × n) matmul, charges each operand element to the first
  tile that touches it (so every element crosses HBM once) and counts each tile's
  multiply-adds from its own shape, then streams the tiles.
- :func:`llama_tensors` lists the weight matrices of a Llama-style decoder from its shapes;
  :func:`decode_step` and :func:`request` time its kernels one by one (each on its own
  roofline, FLOPs two per weight and token, attention four per head dimension and key),
  for a decode step and for a prefill followed by decode steps over a growing cache.
- :func:`packed_bytes_per_weight` packs one group of weights the way a format stores them
  (int4 nibbles and an fp16 scale, fp8 codes, bf16 halves) and measures the bytes.

Shapes, rates and peaks are arguments (cited constants in the cards); nothing here reads a
catalog.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAX_SLICES = 1 << 16
MAX_TILES = 1 << 14


def _positive(name: str, value: float) -> None:
    if not value > 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a positive number, got {value!r}")


def _count(name: str, value: int, minimum: int = 1) -> None:
    if int(value) != value or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")


@dataclass(frozen=True)
class Slice:
    """One step of a streamed kernel: bytes brought in, FLOPs done on chip, bytes sent back."""

    read_bytes: float
    flops: float
    write_bytes: float


@dataclass(frozen=True)
class Run:
    time_s: float
    read_bytes: float
    write_bytes: float
    flops: float

    @property
    def bytes(self) -> float:
        return self.read_bytes + self.write_bytes

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes


def stream(
    slices: Sequence[Slice], peak_flops: float, bandwidth: float, *, buffers: int = 4
) -> Run:
    """Step a kernel through two engines: the memory engine fills ``buffers`` on-chip
    buffers ahead (read i waits for compute i − buffers to free one) and writes each slice
    back once it is computed; compute i waits for read i and for compute i − 1. The
    memory engine works in issue order: the first reads, then after each compute its
    write and the next read."""
    _positive("peak_flops", peak_flops)
    _positive("bandwidth", bandwidth)
    _count("buffers", buffers)
    n = len(slices)
    if not slices or n > MAX_SLICES:
        raise ValueError(f"a kernel has 1 to {MAX_SLICES} slices, got {n}")
    mem = 0.0  # when the memory engine is next free
    done = [0.0] * n  # compute i finished
    read_end = [0.0] * n

    def read(j: int) -> None:
        nonlocal mem
        mem = (
            max(mem, done[j - buffers] if j >= buffers else 0.0) + slices[j].read_bytes / bandwidth
        )
        read_end[j] = mem

    for j in range(min(buffers, n)):
        read(j)
    end = 0.0
    for i in range(n):
        start = max(read_end[i], done[i - 1] if i else 0.0)
        done[i] = start + slices[i].flops / peak_flops
        if i + buffers < n:
            read(i + buffers)  # the buffer compute i used is free again
        if slices[i].write_bytes:
            mem = max(mem, done[i]) + slices[i].write_bytes / bandwidth
        end = max(end, mem, done[i])
    return Run(
        end,
        sum(s.read_bytes for s in slices),
        sum(s.write_bytes for s in slices),
        sum(s.flops for s in slices),
    )


def even(flops: float, nbytes: float, pieces: int) -> list[Slice]:
    """A kernel of ``flops`` reading ``nbytes`` cut into ``pieces`` equal slices."""
    _count("pieces", pieces)
    return [Slice(nbytes / pieces, flops / pieces, 0.0) for _ in range(pieces)]


def _cuts(n: int, parts: int) -> list[int]:
    """Lengths of ``n`` rows cut into at most ``parts`` nearly equal blocks."""
    parts = min(n, parts)
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)]


def gemm(
    m: int,
    n: int,
    k: int,
    value_bytes: float,
    *,
    row_blocks: int = 4,
    col_blocks: int = 16,
    depth_blocks: int = 16,
) -> list[Slice]:
    """The tiles of an (m × k)·(k × n) matmul C = A·B, for each block of C its steps along
    k: a step reads the blocks of A and B no earlier step read (each element crosses HBM
    once, the chip keeping what it loaded), does two FLOPs per multiply-add of its
    (rows × depth)·(depth × cols) product, and the last step of a block writes it."""
    for name, v in (("m", m), ("n", n), ("k", k)):
        _count(name, v)
    _positive("value_bytes", value_bytes)
    # Row blocks of at least 1,024 rows: with fewer, the first row's reads of B cannot
    # hide behind its compute (a decode batch stays one block).
    row_blocks = max(1, min(row_blocks, m // 1024))
    rows, cols, depth = _cuts(m, row_blocks), _cuts(n, col_blocks), _cuts(k, depth_blocks)
    if len(rows) * len(cols) * len(depth) > MAX_TILES:
        raise ValueError(f"{len(rows) * len(cols) * len(depth)} tiles: use fewer blocks")
    seen: set[tuple[str, int, int]] = set()
    tiles = []
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            for d, kb in enumerate(depth):
                elements = 0
                for key, size in ((("A", i, d), r * kb), (("B", d, j), kb * c)):
                    if key not in seen:
                        seen.add(key)
                        elements += size
                last = d == len(depth) - 1
                tiles.append(
                    Slice(elements * value_bytes, 2.0 * r * c * kb, r * c * value_bytes * last)
                )
    return tiles


# --------------------------------------------------------------------------- a whole model


@dataclass(frozen=True)
class Shape:
    """A Llama-style decoder, as its config.json gives it."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    tied: bool = False


def llama_tensors(s: Shape) -> list[tuple[str, tuple[int, ...]]]:
    """Every weight tensor, by name and shape: per layer the q, k, v, o projections, the
    gated MLP's gate, up and down, two RMSNorm scales; the embedding, the final norm and the
    LM head (absent when tied to the embedding)."""
    for name in ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab"):
        _count(name, getattr(s, name))
    q, kv = s.heads * s.head_dim, s.kv_heads * s.head_dim
    out: list[tuple[str, tuple[int, ...]]] = [("embed", (s.vocab, s.hidden))]
    for i in range(s.layers):
        out += [
            (f"l{i}.q", (s.hidden, q)),
            (f"l{i}.k", (s.hidden, kv)),
            (f"l{i}.v", (s.hidden, kv)),
            (f"l{i}.o", (q, s.hidden)),
            (f"l{i}.gate", (s.hidden, s.intermediate)),
            (f"l{i}.up", (s.hidden, s.intermediate)),
            (f"l{i}.down", (s.intermediate, s.hidden)),
            (f"l{i}.attn_norm", (s.hidden,)),
            (f"l{i}.mlp_norm", (s.hidden,)),
        ]
    out.append(("norm", (s.hidden,)))
    if not s.tied:
        out.append(("lm_head", (s.hidden, s.vocab)))
    return out


def parameters(s: Shape) -> int:
    """Weights of the model: the elements of every tensor :func:`llama_tensors` lists."""
    return sum(math.prod(shape) for _, shape in llama_tensors(s))


@dataclass(frozen=True)
class Kernel:
    name: str
    bytes: float
    flops: float

    def time_s(self, peak_flops: float, bandwidth: float) -> float:
        # One kernel on its own roofline: it cannot beat its bytes nor its FLOPs.
        return max(self.bytes / bandwidth, self.flops / peak_flops)


def _kernels(
    s: Shape,
    weight_bytes: float,
    kv_bytes: float,
    tokens: int,
    keys: Sequence[int],
    kv_written: int,
) -> list[Kernel]:
    """The kernels of one forward pass over ``tokens`` tokens (the batch, or the prompt):
    each weight tensor's matmul reads the tensor once and does two FLOPs per element and
    token; the k and v projections write ``kv_written`` tokens of cache; each layer's
    attention reads the cache of every sequence (``keys``: the keys each token attends to,
    summed) and does 2·head_dim FLOPs for QKᵀ and as many for PV per head and key."""
    kernels = []
    per_layer_cache = s.kv_heads * s.head_dim * kv_bytes  # one of K or V, one token
    for name, shape in llama_tensors(s):
        elements = math.prod(shape)
        written = kv_written * per_layer_cache if name.endswith((".k", ".v")) else 0.0
        kernels.append(Kernel(name, elements * weight_bytes + written, 2.0 * elements * tokens))
    pairs = float(sum(keys))
    for i in range(s.layers):
        flops = s.heads * pairs * (2 * s.head_dim + 2 * s.head_dim)
        read = 0.0 if kv_written else 2 * pairs * per_layer_cache  # decode reads K and V
        kernels.append(Kernel(f"l{i}.attention", read, flops))
    return kernels


@dataclass(frozen=True)
class Step:
    bytes: float
    flops: float
    time_s: float


def _time(kernels: Sequence[Kernel], peak_flops: float, bandwidth: float) -> Step:
    _positive("peak_flops", peak_flops)
    _positive("bandwidth", bandwidth)
    return Step(
        sum(k.bytes for k in kernels),
        sum(k.flops for k in kernels),
        sum(k.time_s(peak_flops, bandwidth) for k in kernels),
    )


def decode_step(
    s: Shape,
    *,
    weight_bytes: float,
    kv_bytes: float,
    context: int,
    batch: int,
    peak_flops: float,
    bandwidth: float,
) -> Step:
    """One decode step of ``batch`` sequences holding ``context`` tokens each."""
    _count("context", context, 0)
    _count("batch", batch)
    return _time(
        _kernels(s, weight_bytes, kv_bytes, batch, [context] * batch, 0), peak_flops, bandwidth
    )


@dataclass(frozen=True)
class Request:
    prefill_flops: float
    prefill_s: float
    decode_s: float
    memory_bound_steps: int  # decode steps whose bytes take at least as long as their FLOPs


def request(
    s: Shape,
    *,
    weight_bytes: float,
    kv_bytes: float,
    prompt: int,
    output: int,
    batch: int,
    peak_flops: float,
    bandwidth: float,
) -> Request:
    """A prefill of ``batch`` prompts (token t of a prompt attends to its first t tokens),
    then ``output`` decode steps, the cache growing by one token a step."""
    _count("prompt", prompt)
    _count("output", output, 0)
    _count("batch", batch)
    keys = [t for _ in range(batch) for t in range(1, prompt + 1)]
    prefill = _time(
        _kernels(s, weight_bytes, kv_bytes, batch * prompt, keys, batch * prompt),
        peak_flops,
        bandwidth,
    )
    decode, memory_bound = 0.0, 0
    for i in range(output):
        step = decode_step(
            s,
            weight_bytes=weight_bytes,
            kv_bytes=kv_bytes,
            context=prompt + i,
            batch=batch,
            peak_flops=peak_flops,
            bandwidth=bandwidth,
        )
        decode += step.time_s
        # The step as a whole, from the kernels' summed bytes and FLOPs (ties go to memory).
        memory_bound += step.bytes / bandwidth >= step.flops / peak_flops
    return Request(prefill.flops, prefill.time_s, decode, memory_bound)


# --------------------------------------------------------------------------- weight formats

GROUP = 128  # weights that share one scale in GPTQ/AWQ int4


def packed_bytes_per_weight(fmt: str) -> float:
    """Bytes per weight, measured by packing one group of :data:`GROUP` weights: ``w4a16``
    as int4 nibbles two to a byte plus one fp16 scale, ``w8a8`` as one 8-bit code each
    (FP8 E4M3), ``w16a16`` as 16-bit halves."""
    rng = np.random.default_rng(0)  # the values do not matter, only their storage
    w = rng.standard_normal(GROUP).astype(np.float32)
    if fmt == "w16a16":
        return w.astype(np.float16).nbytes / GROUP
    if fmt == "w8a8":
        return np.zeros(GROUP, dtype=np.uint8).nbytes / GROUP
    if fmt == "w4a16":
        scale = np.float16(np.abs(w).max() / 7)
        q = (np.clip(np.round(w / np.float32(scale)), -8, 7).astype(np.int8) & 0xF).astype(np.uint8)
        packed = (q[0::2] | (q[1::2] << 4)).astype(np.uint8)
        return (packed.nbytes + np.asarray(scale).nbytes) / GROUP
    raise ValueError(f"format must be w16a16, w8a8 or w4a16, got {fmt!r}")
