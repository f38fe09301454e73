"""How many distinct bins a stream of random picks reaches: experts a decode batch touches,
uplinks ECMP hashing fills.

Each of ``draws`` picks chooses ``k`` distinct bins of ``bins`` uniformly at random (top-k
routing picks k different experts; an ECMP hash picks one uplink). :func:`distribution`
computes the exact law of the number of bins reached by a Markov chain over "bins reached so
far" whose step is hypergeometric: from j reached bins, a pick of k adds m new ones with
probability C(bins − j, m)·C(j, k − m)/C(bins, k). The closed form the cards hold it to,
bins·(1 − (1 − k/bins)^draws), is linearity of expectation; the chain never uses it.
"""

from __future__ import annotations

import math

import numpy as np

from quizcoll.systems.errors import SystemsInputError, at_least

MAX_BINS = 512  # the chain squares a (bins + 1)² matrix about 2·log₂(draws) times
MAX_K = 64
MAX_DRAWS = 1 << 16


def _transition(bins: int, k: int) -> np.ndarray:
    """T[j, j + m]: probability that one pick of k bins adds m new ones to j reached."""
    t = np.zeros((bins + 1, bins + 1))
    total = math.comb(bins, k)
    for j in range(bins + 1):
        for m in range(0, k + 1):
            if m <= bins - j and k - m <= j:
                t[j, j + m] = math.comb(bins - j, m) * math.comb(j, k - m) / total
    return t


def distribution(bins: int, k: int, draws: int) -> np.ndarray:
    """P[j] = probability that ``draws`` picks of ``k`` distinct bins reach exactly j bins."""
    at_least("bins", bins, 1)
    at_least("k", k, 1)
    at_least("draws", draws, 0)
    if bins > MAX_BINS or draws > MAX_DRAWS or k > MAX_K:
        raise SystemsInputError(f"at most {MAX_BINS} bins, k of {MAX_K} and {MAX_DRAWS} draws")
    if k > bins:
        raise SystemsInputError(f"k {k} is larger than bins {bins}")
    t = _transition(bins, k)
    p = np.zeros(bins + 1)
    p[0] = 1.0
    # Square-and-multiply: T^draws in O(log draws) matrix products.
    power, n = t, draws
    while n:
        if n & 1:
            p = p @ power
        n >>= 1
        if n:
            power = power @ power
    return p


def draws_for(bins: int, k: int, fraction: float) -> int:
    """Fewest draws whose expected reach is at least ``fraction`` of the bins, stepping the
    chain one draw at a time (0 if MAX_DRAWS draws do not get there)."""
    distribution(bins, k, 0)  # validates bins and k
    if not 0 < fraction < 1:
        raise SystemsInputError(f"fraction must be in (0, 1), got {fraction:g}")
    t = _transition(bins, k)
    p = np.zeros(bins + 1)
    p[0] = 1.0
    reach = np.arange(bins + 1)
    for n in range(1, MAX_DRAWS + 1):
        p = p @ t
        if reach @ p >= fraction * bins * (1 - 1e-12):
            return n
    return 0


def expected_reached(bins: int, k: int, draws: int) -> float:
    """Expected number of distinct bins reached (the mean of :func:`distribution`)."""
    p = distribution(bins, k, draws)
    return float(np.arange(bins + 1) @ p)
