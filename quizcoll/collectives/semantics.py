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
    """The mathematical result of ``collective`` on ``inputs``: one entry per rank, each
    its own array. ``None`` where a rank has no defined result (non-roots of gather and
    reduce)."""
    shared = expected_outputs(collective, inputs, op=op, root=root, split_sizes=split_sizes)
    return [None if x is None else x.copy() for x in shared]


def expected_outputs(
    collective: Collective,
    inputs: Sequence[np.ndarray],
    *,
    op: Op = Op.SUM,
    root: int = 0,
    split_sizes: np.ndarray | None = None,
) -> list[np.ndarray | None]:
    """:func:`reference` without the copies: ranks with the same result share one
    read-only array, so this costs the distinct results only (one reduction)."""
    n = len(inputs)
    c = collective
    if c is Collective.BROADCAST:
        return [_shared(inputs[root])] * n
    if c is Collective.SCATTER:
        return list(np.split(_shared(inputs[root]), n))
    if c in (Collective.GATHER, Collective.ALL_GATHER):
        whole = _shared(np.concatenate(list(inputs)))
        return [whole if c is Collective.ALL_GATHER or r == root else None for r in range(n)]
    if c is Collective.ALL_TO_ALL:
        return _all_to_all(inputs, split_sizes)
    combined = _shared(reduce_stack(op, np.stack(list(inputs))))
    if c is Collective.REDUCE:
        return [combined if r == root else None for r in range(n)]
    if c is Collective.ALL_REDUCE:
        return [combined] * n
    return list(np.split(combined, n))  # reduce_scatter


def _all_to_all(
    inputs: Sequence[np.ndarray], split_sizes: np.ndarray | None
) -> list[np.ndarray | None]:
    """Rank r gets piece r of every rank, in rank order: one gather over all inputs."""
    n = len(inputs)
    if split_sizes is None:  # even pieces: a transpose of the stacked inputs
        stacked = np.stack(list(inputs)).reshape(n, n, -1)
        return list(stacked.transpose(1, 0, 2).reshape(n, -1))
    splits = np.asarray(split_sizes, dtype=np.int64)
    flat = np.concatenate(list(inputs))
    first = np.cumsum(splits.sum(axis=1)) - splits.sum(axis=1)  # where each rank's input starts
    start = first[:, None] + np.cumsum(splits, axis=1) - splits  # piece (s, r) of rank s
    lengths = splits.T.ravel()  # output order: rank r, then sender s
    ends = np.cumsum(lengths)
    index = np.arange(int(ends[-1]) if n else 0) + np.repeat(
        start.T.ravel() - (ends - lengths), lengths
    )
    return list(np.split(flat[index], np.cumsum(splits.sum(axis=0))[:-1]))


def _shared(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.setflags(write=False)
    return view
