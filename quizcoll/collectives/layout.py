"""Block layouts: how many elements each block slot of each rank holds.

A schedule moves blocks; the layout turns a rank's input into blocks and blocks back
into its output. It depends on the element count only, never on the data, so traffic and
cost can be counted exactly for any size without allocating a byte of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Layout:
    """Block sizes and the input/output block order of every rank.

    ``elems[r, b]`` is the element count of block slot ``b`` on rank ``r``;
    ``inputs[r]`` lists the slots that rank ``r``'s input fills, in input order (empty
    if the input is not used); ``outputs[r]`` lists the slots whose concatenation is rank
    ``r``'s result, or is None where the rank has no defined result.
    """

    elems: np.ndarray
    inputs: tuple[np.ndarray, ...]
    outputs: tuple[np.ndarray | None, ...]

    @property
    def ranks(self) -> int:
        return int(self.elems.shape[0])

    @property
    def nblocks(self) -> int:
        return int(self.elems.shape[1])

    @property
    def block_max(self) -> int:
        """The widest block: the padded width of a block slot in the simulation buffer."""
        return int(self.elems.max()) if self.elems.size else 0

    def holds_initially(self) -> np.ndarray:
        """``(ranks, nblocks)``: 1 where a rank's own input fills the slot, else 0."""
        held = np.zeros(self.elems.shape, dtype=np.int32)
        for r, blocks in enumerate(self.inputs):
            held[r, blocks] = 1
        return held

    def output_elems(self, rank: int) -> int:
        blocks = self.outputs[rank]
        return 0 if blocks is None else int(self.elems[rank, blocks].sum())


def balanced(count: int, pieces: int) -> np.ndarray:
    """``count`` split into ``pieces`` parts differing by at most one (larger ones first)."""
    base, extra = divmod(count, pieces)
    sizes = np.full(pieces, base, dtype=np.int64)
    sizes[:extra] += 1
    return sizes


def uniform(
    ranks: int,
    sizes: np.ndarray,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray | None],
) -> Layout:
    """Every rank has the same block sizes ``sizes``."""
    elems = np.broadcast_to(np.asarray(sizes, dtype=np.int64), (ranks, len(sizes)))
    return Layout(elems=elems, inputs=tuple(inputs), outputs=tuple(outputs))
