"""ZeRO's model states on one data-parallel rank, listed tensor by tensor and range by range.

ZeRO (Rajbhandari et al. 2020, §5) keeps three kinds of model state: the (fp16) weights, their
gradients and the optimizer's states. Stage 1 (P_os) partitions the optimizer states over the
data-parallel ranks, stage 2 (P_os+g) the gradients as well, stage 3 (P_os+g+p) the weights
as well; stage 0 is plain data parallelism. A partitioned tensor is a flat buffer of
``params`` values padded to a multiple of the ranks and cut into equal contiguous ranges, one
a rank (as DeepSpeed's flat partitions are).

:func:`rank_states` lists every tensor a rank keeps, builds each partitioned tensor's ranges
for every rank, and adds up the bytes of rank 0's tensors and ranges per kind.
Widths come in as bytes per value, one entry a tensor (Adam's fp32 master copy, momentum and
variance are three).
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("weights", "gradients", "optimizer_states")

# What each stage partitions: the paper's P_os, P_os+g, P_os+g+p.
PARTITIONED: dict[int, frozenset[str]] = {
    0: frozenset(),
    1: frozenset({"optimizer_states"}),
    2: frozenset({"optimizer_states", "gradients"}),
    3: frozenset(KINDS),
}

MAX_RANKS = 1 << 16


@dataclass(frozen=True)
class Held:
    """One tensor as rank 0 holds it."""

    kind: str
    values: int  # elements rank 0 stores, padding included
    bytes_per_value: float
    partitioned: bool

    @property
    def bytes(self) -> float:
        return self.values * self.bytes_per_value


@dataclass(frozen=True)
class RankStates:
    held: tuple[Held, ...]

    def bytes_of(self, kind: str) -> float:
        return sum(h.bytes for h in self.held if h.kind == kind)

    @property
    def total(self) -> float:
        return sum(h.bytes for h in self.held)


def _whole(name: str, value: int, least: int, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise ValueError(f"{name}: expected a whole number from {least} to {most}, got {value!r}")
    return value


def ranges(params: int, ranks: int) -> list[tuple[int, int]]:
    """Each rank's [start, end) of a flat buffer of ``params`` values padded to a multiple of
    ``ranks`` (the last ranges may hold padding only)."""
    size = -(-params // ranks)
    return [(r * size, (r + 1) * size) for r in range(ranks)]


def rank_states(
    params: int,
    ranks: int,
    stage: int,
    widths: dict[str, tuple[float, ...]],
) -> RankStates:
    """Rank 0's tensors at ZeRO ``stage`` over ``ranks`` (see the module docstring);
    ``widths`` gives each kind's tensors, bytes per value."""
    _whole("params", params, 1, 1 << 44)
    _whole("ranks", ranks, 1, MAX_RANKS)
    _whole("stage", stage, 0, 3)
    if set(widths) != set(KINDS):
        raise ValueError(f"widths: give {', '.join(KINDS)}")
    own = ranges(params, ranks)[0]
    held = []
    for kind in KINDS:
        split = kind in PARTITIONED[stage]
        values = own[1] - own[0] if split else params
        for width in widths[kind]:
            if not width > 0:
                raise ValueError(f"{kind}: a width must be positive, got {width!r}")
            held.append(Held(kind, values, width, split))
    return RankStates(tuple(held))
