"""A decoder's weights placed on GPUs the way a pipeline split places them: layer by layer.

Provides:

- :func:`pipeline_units`: the weight tensors of a Llama-style decoder, listed with
  :func:`quizcoll.witnesses.mem_layers.decoder_layer_tensors` and grouped into the units a
  pipeline split cannot cut (Narayanan et al. 2021 §2.2: each stage holds whole layers): the
  token embedding, each decoder layer, and the final norm with the output head (no head of
  its own when the embedding is tied);
- :func:`place`: those units put on GPUs in forward order, each on the current GPU while it
  still fits in the GPU's capacity, else on a new GPU, and the GPUs counted.

Filling in order and opening a GPU only when the next unit does not fit uses the fewest
GPUs any split into consecutive stages can (a stage boundary moved earlier only leaves
more for the stages after it). A GPU count from dividing the total bytes by the capacity
is a lower bound: it is this count only when the bytes a GPU leaves unused because the
next layer does not fit never add up to another GPU.

Shapes, byte widths and capacity come in as arguments; nothing here reads a catalog.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizcoll.witnesses.mem_layers import decoder_layer_tensors


@dataclass(frozen=True)
class Unit:
    """Weights a pipeline stage holds whole: a name and its bytes."""

    name: str
    bytes: int


@dataclass(frozen=True)
class Placement:
    """The GPUs a placement used, as the units each holds."""

    gpus: tuple[tuple[Unit, ...], ...]

    @property
    def count(self) -> int:
        return len(self.gpus)

    def gpu_bytes(self) -> tuple[int, ...]:
        return tuple(sum(u.bytes for u in gpu) for gpu in self.gpus)


def _whole(name: str, value: int, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: expected a whole number of at least {least}, got {value!r}")
    return value


def _tensor_bytes(shape: tuple[int, ...], bits: int) -> int:
    """Bytes of one tensor stored at ``bits`` per value, a part byte counted whole."""
    return -(-math.prod(shape) * bits // 8)


def pipeline_units(
    layers: int,
    hidden: int,
    q_width: int,
    kv_width: int,
    intermediate: int,
    vocab: int,
    tied: bool,
    bits: int,
) -> list[Unit]:
    """The decoder's weights as pipeline units in forward order, at ``bits`` per weight."""
    for name, value in (("layers", layers), ("vocab", vocab), ("bits", bits)):
        _whole(name, value)
    layer = sum(
        _tensor_bytes(shape, bits)
        for _, shape in decoder_layer_tensors(hidden, q_width, kv_width, intermediate)
    )
    head = _tensor_bytes((hidden,), bits) + (0 if tied else _tensor_bytes((vocab, hidden), bits))
    return [
        Unit("embed_tokens", _tensor_bytes((vocab, hidden), bits)),
        *(Unit(f"layers.{i}", layer) for i in range(layers)),
        Unit("norm+lm_head", head),
    ]


def place(units: list[Unit], capacity: int) -> Placement:
    """``units`` in order on GPUs of ``capacity`` bytes each: the current GPU while the next
    unit fits, else a new one. A unit larger than a whole GPU cannot be placed."""
    _whole("capacity", capacity)
    gpus: list[list[Unit]] = []
    free = 0
    for unit in units:
        if unit.bytes > capacity:
            raise ValueError(
                f"{unit.name}: {unit.bytes:,} B does not fit on one GPU of {capacity:,} B"
            )
        if not gpus or unit.bytes > free:
            gpus.append([])
            free = capacity
        gpus[-1].append(unit)
        free -= unit.bytes
    return Placement(tuple(tuple(g) for g in gpus))
