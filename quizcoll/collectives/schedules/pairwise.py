"""Pairwise-exchange all-to-all: N − 1 rounds; in round s rank r sends to r + s.

Every rank has 2N block slots: slots ``0..N−1`` hold what it sends (slot j goes to rank
j) and slot ``N + s`` receives from rank s. The rank's own slot r never travels.
"""

from __future__ import annotations

import numpy as np

from quizcoll.collectives.schedule import ScheduleBuilder


def pairwise_rounds(builder: ScheduleBuilder) -> None:
    n = builder.ranks
    ranks = np.arange(n)[None, :]
    peer = (ranks + np.arange(1, n)[:, None]) % n  # (round, rank)
    builder.add_rounds(ranks, peer, peer, n + ranks, reduce=False)
