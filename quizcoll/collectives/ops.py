"""Reduction operations (``sum``, ``prod``, ``max``, ``min``, ``avg``) as numpy ufuncs.

``avg`` reduces with ``sum`` and divides by the number of ranks once, at the end, the
way NCCL's ``ncclAvg`` does; for integer types the division truncates toward zero.
"""

from __future__ import annotations

import enum

import numpy as np

from quizcoll.collectives.errors import CollectiveError, did_you_mean


class Op(enum.Enum):
    """A reduction operation of a reducing collective."""

    SUM = "sum"
    PROD = "prod"
    MAX = "max"
    MIN = "min"
    AVG = "avg"

    @property
    def ufunc(self) -> np.ufunc:
        """The elementwise combine step (``avg`` combines with ``add``)."""
        return _UFUNCS[self]


_UFUNCS: dict[Op, np.ufunc] = {
    Op.SUM: np.add,
    Op.PROD: np.multiply,
    Op.MAX: np.maximum,
    Op.MIN: np.minimum,
    Op.AVG: np.add,
}


def get_op(name: str | Op) -> Op:
    """The :class:`Op` called ``name``, or a clear error naming the valid choices."""
    if isinstance(name, Op):
        return name
    try:
        return Op(str(name).strip().lower())
    except ValueError:
        raise CollectiveError(
            f"unknown op {name!r}; choose one of {', '.join(o.value for o in Op)}"
            f"{did_you_mean(str(name), [o.value for o in Op])}"
        ) from None


def finish(op: Op, reduced: np.ndarray, ranks: int) -> np.ndarray:
    """The final value from a fully combined buffer: divides by ``ranks`` for ``avg``."""
    if op is not Op.AVG:
        return reduced
    if np.issubdtype(reduced.dtype, np.integer):
        quotient = np.abs(reduced) // ranks
        return np.where(reduced < 0, -quotient, quotient).astype(reduced.dtype)
    return (reduced / reduced.dtype.type(ranks)).astype(reduced.dtype)


def reduce_stack(op: Op, stacked: np.ndarray) -> np.ndarray:
    """Combine a ``(ranks, ...)`` stack over axis 0 in its own dtype, then :func:`finish`."""
    combined = op.ufunc.reduce(stacked, axis=0, dtype=stacked.dtype)
    return finish(op, combined, stacked.shape[0])
