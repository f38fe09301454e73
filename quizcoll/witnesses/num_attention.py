"""The attention matmuls of one training step, enumerated shape by shape.

For a sequence of T tokens, every layer and every query head computes two matmuls in the
forward pass: the scores S = Q·Kᵀ ((T × Q) by (Q × T)) and the output O = A·V ((T × T) by
(T × Q)), the whole T × T matrix as PaLM's accounting counts it. The backward pass of each
product C = X·Y computes the two gradients dX = dC·Yᵀ and dY = Xᵀ·dC, each of the same
shape product. A matmul of (m × k) by (k × n) costs 2·m·k·n FLOPs (a multiply and an add per
term). The weights take one multiply-add per parameter per token in the forward pass and
two in the backward (the activations' and the weights' gradients).

:func:`training_matmuls` lists the attention matmuls, :func:`attention_share` sums them and
sets them against the weights' FLOPs. The shape comes in as arguments.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Matmul:
    """One (m × k) by (k × n) product."""

    what: str
    m: int
    k: int
    n: int

    @property
    def flops(self) -> int:
        return 2 * self.m * self.k * self.n


def _backward(c: Matmul) -> tuple[Matmul, Matmul]:
    """dX = dC·Yᵀ ((m × n) by (n × k)) and dY = Xᵀ·dC ((k × m) by (m × n))."""
    return Matmul(f"d{c.what}/dx", c.m, c.n, c.k), Matmul(f"d{c.what}/dy", c.k, c.m, c.n)


def training_matmuls(layers: int, heads: int, head_dim: int, seq_len: int) -> list[Matmul]:
    """Every attention matmul of a forward and backward pass over one sequence."""
    for name, value in (("layers", layers), ("heads", heads), ("head_dim", head_dim)):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if seq_len < 1:
        raise ValueError(f"seq_len must be at least 1, got {seq_len}")
    out: list[Matmul] = []
    for _layer in range(layers):
        for _head in range(heads):
            scores = Matmul("scores", seq_len, head_dim, seq_len)
            values = Matmul("values", seq_len, seq_len, head_dim)
            out += [scores, values, *_backward(scores), *_backward(values)]
    return out


@dataclass(frozen=True)
class Share:
    attention_flops_per_token: float
    weight_flops_per_token: float
    matmuls: int

    @property
    def attention_share(self) -> float:
        total = self.attention_flops_per_token + self.weight_flops_per_token
        return self.attention_flops_per_token / total


def attention_share(
    parameters: float, layers: int, heads: int, head_dim: int, seq_len: int
) -> Share:
    """Attention's share of a training step's FLOPs per token."""
    if not parameters > 0:
        raise ValueError(f"parameters must be positive, got {parameters:g}")
    mats = training_matmuls(layers, heads, head_dim, seq_len)
    attention = sum(x.flops for x in mats) / seq_len
    multiply_adds = 1 + 2  # per parameter and token: forward, then both gradients
    return Share(attention, 2 * multiply_adds * parameters, len(mats))
