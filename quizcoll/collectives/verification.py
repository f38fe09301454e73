"""Checking outputs against a collective's definition in O(ranks × elements).

The expected result is computed once (one reduction over the stacked inputs, not one
per rank) and shared by every rank's comparison; so is the floating-point error bound.
Data movement, integers, ``max`` and ``min`` must match exactly. Floating ``sum`` and
``avg`` may differ from the definition by reassociation: at most ``4·N·ε·Σ|x|`` per
element (``/ N`` for ``avg``), where ``Σ|x|`` sums the magnitudes of the N inputs;
``prod`` by ``4·N·ε·|expected|``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quizcoll.collectives.ops import Op
from quizcoll.collectives.semantics import Collective, expected_outputs


def outputs_agree(
    collective: Collective,
    outputs: Sequence[np.ndarray | None],
    inputs: Sequence[np.ndarray],
    *,
    op: Op = Op.SUM,
    root: int = 0,
    split_sizes: np.ndarray | None = None,
) -> bool:
    """Whether every rank's output equals the definition (see the module docstring)."""
    n = len(inputs)
    if len(outputs) != n:
        return False
    expected = expected_outputs(collective, inputs, op=op, root=root, split_sizes=split_sizes)
    bounds = _bounds(collective, inputs, op, expected)
    for r, (got, want) in enumerate(zip(outputs, expected, strict=True)):
        if got is None or want is None:
            if got is not want:
                return False
            continue
        if not _rank_agrees(np.asarray(got), want, None if bounds is None else bounds[r]):
            return False
    return True


def _bounds(
    collective: Collective,
    inputs: Sequence[np.ndarray],
    op: Op,
    expected: list[np.ndarray | None],
) -> list[np.ndarray | None] | None:
    """Per-rank elementwise error bounds, or None where outputs must match exactly."""
    dtype = inputs[0].dtype
    if not collective.reduces or not np.issubdtype(dtype, np.floating) or op in (Op.MAX, Op.MIN):
        return None
    n = len(inputs)
    eps, tiny = float(np.finfo(dtype).eps), float(np.finfo(dtype).tiny)
    with np.errstate(all="ignore"):
        if op is Op.PROD:
            return [
                None if w is None else 4 * n * eps * np.abs(w.astype(np.float64)) + tiny
                for w in expected
            ]
        magnitude = np.zeros(len(inputs[0]), dtype=np.float64)
        for x in inputs:  # one pass, one buffer: O(ranks × elements), O(elements) memory
            magnitude += np.abs(x, dtype=np.float64)
        bound = 4 * n * eps * magnitude / (n if op is Op.AVG else 1) + tiny
    if collective is Collective.REDUCE_SCATTER:
        return list(np.split(bound, n))
    return [bound] * n


def _rank_agrees(got: np.ndarray, want: np.ndarray, bound: np.ndarray | None) -> bool:
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if bound is None:
        return bool(np.array_equal(got, want, equal_nan=np.issubdtype(got.dtype, np.inexact)))
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(all="ignore"):
        close = np.abs(g - w) <= bound
        same_special = (np.isnan(g) & np.isnan(w)) | (np.isinf(g) & (g == w))
    return bool((close | same_special).all())


def agrees_with(
    collective: Collective,
    got: np.ndarray,
    want: np.ndarray,
    inputs: Sequence[np.ndarray],
    op: Op,
    *,
    rank: int,
    slack: float = 1.0,
) -> bool:
    """Whether rank ``rank``'s output ``got`` equals ``want`` (another implementation's
    output for that rank) within ``slack`` times the error bound of the definition."""
    expected: list[np.ndarray | None] = [None] * len(inputs)
    expected[rank] = want
    bounds = _bounds(collective, inputs, op, expected)
    bound = None if bounds is None else bounds[rank]
    return _rank_agrees(np.asarray(got), want, None if bound is None else slack * bound)
