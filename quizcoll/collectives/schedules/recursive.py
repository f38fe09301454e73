"""Recursive doubling and halving, with MPICH's fold for N that is not a power of two.

With ``p′`` the largest power of two ≤ N and ``e = N − p′``, the first ``2e`` ranks pair
up: even rank ``2i`` folds its data into rank ``2i + 1`` in an extra first round and gets
the result back in an extra last round (Thakur, Rabenseifner & Gropp 2005, §4). The
``p′`` remaining ranks ("new ranks") run the power-of-two algorithm: new rank ``i`` is
original rank ``2i + 1`` for ``i < e`` and ``i + e`` otherwise.

Every round is laid out for all ranks at once with index arithmetic (partner
``i xor mask``, aligned group ``partner & ~(mask − 1)``), so a round costs a few numpy
calls whatever N is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from quizcoll.collectives.structure import Spans, StructureBuilder

# Blocks that messages carry, given the new-rank groups ``lo[k] … hi[k] − 1`` they serve.
GroupBlocks = Callable[[np.ndarray, np.ndarray], Spans]
# Blocks that messages carry, given the original rank each message is about.
RankBlocks = Callable[[np.ndarray], Spans]


@dataclass(frozen=True)
class Fold:
    """The new-rank numbering of N ranks onto the largest power of two ``p′ ≤ N``."""

    ranks: int

    @property
    def power(self) -> int:
        return 1 << (self.ranks.bit_length() - 1)

    @property
    def extra(self) -> int:
        return self.ranks - self.power

    def member(self, newrank: np.ndarray | int) -> np.ndarray:
        """The original rank that acts as ``newrank`` (elementwise)."""
        i = np.asarray(newrank, dtype=np.int64)
        return np.where(i < self.extra, 2 * i + 1, i + self.extra)

    def first_represented(self, newrank: np.ndarray | int) -> np.ndarray:
        """The lowest original rank whose data ``newrank`` stands for after the fold-in.

        New rank ``i`` stands for ``2i, 2i + 1`` (``i < e``) or ``i + e``, so new ranks
        ``lo … hi − 1`` stand for the original ranks ``first(lo) … first(hi) − 1``."""
        i = np.asarray(newrank, dtype=np.int64)
        return i + np.minimum(i, self.extra)

    def represented(self, newrank: int) -> tuple[int, ...]:
        """The original ranks whose data ``newrank`` stands for after the fold-in."""
        if newrank < self.extra:
            return (2 * newrank, 2 * newrank + 1)
        return (newrank + self.extra,)

    def represented_blocks(self, lo: np.ndarray, hi: np.ndarray) -> Spans:
        """Blocks numbered by original rank, for the new-rank groups ``lo … hi − 1``."""
        return Spans.one(self.first_represented(lo), self.first_represented(hi))

    def folded(self) -> np.ndarray:
        """The even ranks ``2i`` (``i < e``) that fold into their odd neighbour."""
        return 2 * np.arange(self.extra, dtype=np.int64)

    def fold_in(self, builder: StructureBuilder, blocks_of: RankBlocks, *, reduce: bool) -> None:
        """Extra first round: rank ``2i`` sends ``blocks_of(2i)`` to ``2i + 1``."""
        if not self.extra:
            return
        evens = self.folded()
        builder.add_messages(evens, evens + 1, blocks_of(evens), reduce=reduce)

    def fold_out(self, builder: StructureBuilder, blocks_for: RankBlocks) -> None:
        """Extra last round: rank ``2i + 1`` sends ``blocks_for(2i)`` back to ``2i``."""
        if not self.extra:
            return
        evens = self.folded()
        builder.add_messages(evens + 1, evens, blocks_for(evens), reduce=False)


def doubling_rounds(
    builder: StructureBuilder, fold: Fold, blocks_of_groups: GroupBlocks, *, reduce: bool
) -> None:
    """Rounds with distance 1, 2, 4 …: new rank ``i`` exchanges with ``i xor mask`` the
    blocks of its aligned group of ``mask`` new ranks (all-gather: the group's own
    blocks; all-reduce by doubling: the whole buffer, whatever the group)."""
    p = fold.power
    i = np.arange(p, dtype=np.int64)
    members = fold.member(i)
    mask = 1
    while mask < p:
        lo = i & ~(mask - 1)
        builder.add_messages(
            members, members[i ^ mask], blocks_of_groups(lo, lo + mask), reduce=reduce
        )
        mask <<= 1


def halving_rounds(builder: StructureBuilder, fold: Fold, blocks_of_groups: GroupBlocks) -> None:
    """Reduce-scatter by recursive halving: at distance p′/2, p′/4 … 1 new rank ``i``
    sends its partner's half of its current range and combines the half it keeps."""
    p = fold.power
    i = np.arange(p, dtype=np.int64)
    members = fold.member(i)
    mask = p >> 1
    while mask >= 1:
        partner = i ^ mask
        lo = partner & ~(mask - 1)
        builder.add_messages(
            members, members[partner], blocks_of_groups(lo, lo + mask), reduce=True
        )
        mask >>= 1
