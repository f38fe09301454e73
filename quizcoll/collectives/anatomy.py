"""What a collective does, read off the simulator by probing it: the data direction, whether
it computes, and who ends with what.

The cheat-sheet words of the primitives ("Gather is many-to-one, no arithmetic"; "Scatter
sends a different piece to each rank") are not typed into a table here: each is observed by
running the simulated schedule on small probe buffers.

Two runs per collective. In the first, rank r's buffer holds 2^r everywhere, so every
output value is a sum of distinct powers of two and its bits say whose data it carries:

- *sources*: the ranks whose bit appears in some output;
- *arithmetic*: some output value carries more than one rank's bit (it was computed).

In the second, every element of every rank is distinct:

- *result ranks*: the ranks left with a defined output (``None`` for non-roots of gather and
  reduce);
- *result*: whether the result ranks hold the same buffer;
- *output ratio*: output elements per result rank over input elements per rank.

:func:`identify` answers the reverse question ("which primitive is one-to-many with a
different piece on each rank?") over the eight collectives.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.semantics import Collective, get_collective

# Names as the cards write them.
DISPLAY_NAMES: dict[Collective, str] = {
    Collective.BROADCAST: "Broadcast",
    Collective.SCATTER: "Scatter",
    Collective.GATHER: "Gather",
    Collective.REDUCE: "Reduce",
    Collective.ALL_REDUCE: "AllReduce",
    Collective.ALL_GATHER: "AllGather",
    Collective.REDUCE_SCATTER: "ReduceScatter",
    Collective.ALL_TO_ALL: "AllToAll",
}
MAX_PROBE_RANKS = 48  # rank r's bit 2^r: sums stay exact in a float64's 53-bit mantissa


class Direction(enum.Enum):
    ONE_TO_MANY = "one-to-many"
    MANY_TO_ONE = "many-to-one"
    MANY_TO_MANY = "many-to-many"


class Result(enum.Enum):
    ROOT_ONLY = "the root only"
    SAME = "the same on every rank"
    DIFFERENT = "a different piece on each rank"


@dataclass(frozen=True)
class Anatomy:
    """What one collective does over ``ranks`` ranks, as the simulator shows it."""

    collective: Collective
    ranks: int
    sources: int  # ranks whose input reaches an output
    result_ranks: int  # ranks with a defined output
    arithmetic: bool  # outputs combine several inputs
    result: Result
    output_ratio: float  # output elements per result rank ÷ input elements per rank

    @property
    def name(self) -> str:
        return DISPLAY_NAMES[self.collective]

    @property
    def direction(self) -> Direction:
        if self.sources == 1:
            return Direction.ONE_TO_MANY
        return Direction.MANY_TO_ONE if self.result_ranks == 1 else Direction.MANY_TO_MANY


def _outputs(collective: Collective, inputs: list[np.ndarray]) -> list[np.ndarray | None]:
    from quizcoll.collectives.api import run

    return list(run(collective, inputs).outputs)


def anatomy(collective: str | Collective, ranks: int = 4) -> Anatomy:
    """Probe ``collective`` over ``ranks`` ranks (root 0, op sum) and describe it."""
    c = get_collective(collective)
    if not isinstance(ranks, int) or not 2 <= ranks <= MAX_PROBE_RANKS:
        raise CollectiveError(f"ranks must be a whole number in [2, {MAX_PROBE_RANKS}]")
    length = ranks  # divisible by N: scatter and reduce-scatter split it into N chunks
    bits = _outputs(c, [np.full(length, 2.0**r) for r in range(ranks)])
    values = [int(v) for o in bits if o is not None for v in o]
    seen = 0
    for v in values:
        seen |= v
    distinct = _outputs(c, [np.arange(length) + 1.0 + r * length for r in range(ranks)])
    results = [o for o in distinct if o is not None]
    if len(results) == 1:
        result = Result.ROOT_ONLY
    elif all(np.array_equal(results[0], o) for o in results[1:]):
        result = Result.SAME
    else:
        result = Result.DIFFERENT
    return Anatomy(
        collective=c,
        ranks=ranks,
        sources=seen.bit_count(),
        result_ranks=len(results),
        arithmetic=any(v.bit_count() > 1 for v in values),
        result=result,
        output_ratio=len(results[0]) / length,
    )


def identify(
    *,
    direction: Direction | None = None,
    result: Result | None = None,
    arithmetic: bool | None = None,
    ranks: int = 4,
) -> tuple[Collective, ...]:
    """The collectives (in the usual order) whose probed anatomy matches every given trait."""
    out = []
    for c in Collective:
        a = anatomy(c, ranks)
        if (
            (direction is None or a.direction is direction)
            and (result is None or a.result is result)
            and (arithmetic is None or a.arithmetic is arithmetic)
        ):
            out.append(c)
    return tuple(out)
