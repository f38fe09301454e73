"""What each collective computes: the reference definitions, in plain numpy.

The semantics are those of ``torch.distributed``. These definitions are the yardstick the
simulated schedules are checked against (``verified``); they never move data rank to rank.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from quizcoll.collectives.errors import CollectiveError, did_you_mean
from quizcoll.collectives.ops import Op, reduce_stack


class Collective(enum.Enum):
    """The eight collective primitives."""

    BROADCAST = "broadcast"
    SCATTER = "scatter"
    GATHER = "gather"
    REDUCE = "reduce"
    ALL_REDUCE = "all_reduce"
    ALL_GATHER = "all_gather"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_TO_ALL = "all_to_all"

    @property
    def reduces(self) -> bool:
        """Whether the collective combines values with an op."""
        return self in (Collective.REDUCE, Collective.ALL_REDUCE, Collective.REDUCE_SCATTER)

    @property
    def rooted(self) -> bool:
        """Whether the collective has a root rank."""
        return self in (
            Collective.BROADCAST,
            Collective.SCATTER,
            Collective.GATHER,
            Collective.REDUCE,
        )


def get_collective(name: str | Collective) -> Collective:
    """The :class:`Collective` called ``name`` (``allreduce`` and ``all-reduce`` work too)."""
    if isinstance(name, Collective):
        return name
    key = str(name).strip().lower().replace("-", "_")
    aliases = {c.value.replace("_", ""): c.value for c in Collective}
    key = aliases.get(key, key)
    try:
        return Collective(key)
    except ValueError:
        raise CollectiveError(
            f"unknown collective {name!r}; choose one of {', '.join(c.value for c in Collective)}"
            f"{did_you_mean(key, [c.value for c in Collective])}"
        ) from None


def even_splits(count: int, ranks: int, what: str) -> np.ndarray:
    """``ranks`` equal pieces of ``count`` elements, or a clear error if it does not divide."""
    if count % ranks:
        raise CollectiveError(
            f"{what}: {count} elements per rank do not split into {ranks} equal chunks "
            f"(the length must be a multiple of the number of ranks)"
        )
    return np.full(ranks, count // ranks, dtype=np.int64)


def check_split_sizes(split_sizes: object, ranks: int, lengths: Sequence[int]) -> np.ndarray:
    """Validate an all_to_all ``split_sizes`` matrix against the input lengths."""
    try:
        matrix = np.asarray(split_sizes, dtype=np.int64)
    except (TypeError, ValueError):
        raise CollectiveError("split_sizes must be an N×N matrix of whole numbers") from None
    if matrix.shape != (ranks, ranks):
        raise CollectiveError(
            f"split_sizes must be {ranks}×{ranks} (one row per rank), got shape {matrix.shape}"
        )
    if (matrix < 0).any():
        raise CollectiveError("split_sizes must not be negative")
    for r, length in enumerate(lengths):
        if int(matrix[r].sum()) != length:
            raise CollectiveError(
                f"split_sizes row {r} sums to {int(matrix[r].sum())} but rank {r} has "
                f"{length} elements"
            )
    return matrix


def reference(
    collective: Collective,
    inputs: Sequence[np.ndarray],
    *,
    op: Op = Op.SUM,
    root: int = 0,
    split_sizes: np.ndarray | None = None,
) -> list[np.ndarray | None]:
    """The mathematical result of ``collective`` on ``inputs``: one entry per rank.

    ``None`` where a rank has no defined result (non-roots of gather and reduce).
    """
    n = len(inputs)
    if collective is Collective.BROADCAST:
        return [inputs[root].copy() for _ in range(n)]
    if collective is Collective.SCATTER:
        pieces = np.split(inputs[root], n)
        return [p.copy() for p in pieces]
    if collective is Collective.GATHER:
        whole = np.concatenate(list(inputs))
        return [whole if r == root else None for r in range(n)]
    if collective is Collective.ALL_GATHER:
        whole = np.concatenate(list(inputs))
        return [whole.copy() for _ in range(n)]
    if collective is Collective.ALL_TO_ALL:
        splits = (
            split_sizes
            if split_sizes is not None
            else np.full((n, n), len(inputs[0]) // max(n, 1), dtype=np.int64)
        )
        pieces = [np.split(inputs[r], np.cumsum(splits[r])[:-1]) for r in range(n)]
        return [np.concatenate([pieces[s][r] for s in range(n)]) for r in range(n)]
    combined = reduce_stack(op, np.stack(list(inputs)))
    if collective is Collective.REDUCE:
        return [combined if r == root else None for r in range(n)]
    if collective is Collective.ALL_REDUCE:
        return [combined.copy() for _ in range(n)]
    if collective is Collective.REDUCE_SCATTER:
        return [p.copy() for p in np.split(combined, n)]
    raise AssertionError(collective)
