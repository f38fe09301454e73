"""Recursive doubling and halving, with MPICH's fold for N that is not a power of two.

With ``p′`` the largest power of two ≤ N and ``e = N − p′``, the first ``2e`` ranks pair
up: even rank ``2i`` folds its data into rank ``2i + 1`` in an extra first round and gets
the result back in an extra last round (Thakur, Rabenseifner & Gropp 2005, §4). The
``p′`` remaining ranks ("new ranks") run the power-of-two algorithm: new rank ``i`` is
original rank ``2i + 1`` for ``i < e`` and ``i + e`` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from quizcoll.collectives.schedule import ScheduleBuilder


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

    def member(self, newrank: int) -> int:
        """The original rank that acts as ``newrank``."""
        return 2 * newrank + 1 if newrank < self.extra else newrank + self.extra

    def represented(self, newrank: int) -> tuple[int, ...]:
        """The original ranks whose data ``newrank`` stands for after the fold-in."""
        if newrank < self.extra:
            return (2 * newrank, 2 * newrank + 1)
        return (newrank + self.extra,)

    def fold_in(
        self, builder: ScheduleBuilder, blocks_of: Callable[[int], Sequence[int]], *, reduce: bool
    ) -> None:
        """Extra first round: rank ``2i`` sends ``blocks_of(2i)`` to ``2i + 1``."""
        if not self.extra:
            return
        builder.begin()
        for i in range(self.extra):
            builder.send(2 * i, 2 * i + 1, blocks_of(2 * i), reduce=reduce)

    def fold_out(
        self, builder: ScheduleBuilder, blocks_for: Callable[[int], Sequence[int]]
    ) -> None:
        """Extra last round: rank ``2i + 1`` sends ``blocks_for(2i)`` back to ``2i``."""
        if not self.extra:
            return
        builder.begin()
        for i in range(self.extra):
            builder.send(2 * i + 1, 2 * i, blocks_for(2 * i), reduce=False)


def doubling_rounds(
    builder: ScheduleBuilder,
    fold: Fold,
    blocks_of_newranks: Callable[[range], Sequence[int]],
    *,
    reduce: bool,
) -> None:
    """Rounds with distance 1, 2, 4 …: new rank ``i`` exchanges with ``i xor mask`` the
    blocks of its aligned group of ``mask`` new ranks (all-gather: the group's own
    blocks; all-reduce by doubling: the whole buffer, whatever the group)."""
    p = fold.power
    mask = 1
    while mask < p:
        builder.begin()
        for i in range(p):
            lo = i & ~(mask - 1)
            builder.send(
                fold.member(i),
                fold.member(i ^ mask),
                blocks_of_newranks(range(lo, lo + mask)),
                reduce=reduce,
            )
        mask <<= 1


def halving_rounds(
    builder: ScheduleBuilder, fold: Fold, blocks_of_newranks: Callable[[range], Sequence[int]]
) -> None:
    """Reduce-scatter by recursive halving: at distance p′/2, p′/4 … 1 new rank ``i``
    sends its partner's half of its current range and combines the half it keeps."""
    p = fold.power
    mask = p >> 1
    while mask >= 1:
        builder.begin()
        for i in range(p):
            partner = i ^ mask
            lo = partner & ~(mask - 1)
            builder.send(
                fold.member(i),
                fold.member(partner),
                blocks_of_newranks(range(lo, lo + mask)),
                reduce=True,
            )
        mask >>= 1
