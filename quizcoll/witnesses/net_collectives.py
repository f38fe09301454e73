"""Collectives stepped as events in time: a chain broadcast chunk by chunk and hop by hop, an
all-reduce reduced inside a switch, and synchronous steps that wait for their last rank.

Each function advances clocks (when a rank holds a chunk, when a link falls idle, when a
rank arrives) instead of evaluating the algorithms' α-β formulas, and takes its latency and
bandwidth as arguments (cited constants in the card).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from quizcoll.witnesses.net_errors import need

MAX_EVENTS = 1 << 22  # chunk-hops a chain broadcast may step
MAX_STEPS = 1000


def chain_broadcast_time(
    ranks: int, size: float, chunks: int, latency: float, bandwidth: float
) -> float:
    """When the last rank of a chain holds all of a root's ``size`` bytes, sent in ``chunks``
    equal chunks: each hop starts a chunk once its sender holds it and its link has finished
    the chunk before; a message costs ``latency`` plus its bytes over ``bandwidth``."""
    need(ranks >= 2, f"ranks: {ranks}, a chain needs two")
    need(chunks >= 1, f"chunks: {chunks}, at least one")
    need(ranks * chunks <= MAX_EVENTS, f"ranks × chunks: at most {MAX_EVENTS}")
    need(bandwidth > 0 and latency >= 0 and size > 0, "size, latency, bandwidth: positive")
    message = latency + size / chunks / bandwidth
    link_idle = [0.0] * (ranks - 1)  # hop r: rank r → rank r + 1
    done = 0.0
    for _ in range(chunks):
        held = 0.0  # the root holds every chunk from the start
        for hop in range(ranks - 1):
            start = max(held, link_idle[hop])
            held = link_idle[hop] = start + message
        done = held
    return done


@dataclass(frozen=True)
class SwitchRun:
    time_s: float
    bytes_up: float  # one GPU's bytes to the switch
    bytes_down: float  # one GPU's bytes from the switch


def switch_all_reduce(
    ranks: int, size: float, chunks: int, latency: float, bandwidth: float
) -> SwitchRun:
    """An all-reduce reduced in a switch: every GPU streams its buffer up in ``chunks``
    chunks; the switch adds chunk c once every GPU's copy has arrived and streams the sum
    down each GPU's link. A port's two directions are separate links, each carrying one
    chunk at a time at ``bandwidth``, ``latency`` per traversal."""
    need(ranks >= 2 and chunks >= 1, "ranks: at least two; chunks: at least one")
    need(bandwidth > 0 and latency >= 0 and size > 0, "size, latency, bandwidth: positive")
    piece = size / chunks
    per = piece / bandwidth
    # up: GPU g's chunk c reaches the switch when its uplink has sent chunks 0..c
    up = latency + per * np.arange(1, chunks + 1)[None, :] * np.ones((ranks, 1))
    reduced = up.max(axis=0)  # the switch waits for every GPU's copy of a chunk
    down_idle = np.zeros(ranks)
    arrived = np.zeros(ranks)
    for c in range(chunks):
        start = np.maximum(down_idle, reduced[c])
        down_idle = start + per
        arrived = down_idle + latency
    return SwitchRun(float(arrived.max()), piece * chunks, piece * chunks)


@dataclass(frozen=True)
class StepsRun:
    total_s: float
    idle_gpu_s: float
    ranks: int

    @property
    def idle_fraction(self) -> float:
        return self.idle_gpu_s / (self.ranks * self.total_s)


def synchronous_steps(
    ranks: int, slow: int, compute: float, delay: float, comm: float, steps: int = 3
) -> StepsRun:
    """``steps`` synchronous steps: every rank computes (the last ``slow`` ranks ``delay``
    longer), then waits until the last one arrives for a collective of ``comm`` seconds.
    Idle GPU-seconds are integrated over time: between two arrivals, as many GPUs wait as
    have arrived."""
    need(ranks >= 1 and 0 <= slow <= ranks, f"slow: {slow} of {ranks} ranks")
    need(1 <= steps <= MAX_STEPS, f"steps: between 1 and {MAX_STEPS}")
    need(min(compute, delay, comm) >= 0, "compute, delay, comm: not negative")
    late = np.zeros(ranks)
    late[ranks - slow :] = delay
    clock = idle = 0.0
    for _ in range(steps):
        arrivals = np.sort(clock + compute + late)
        start = arrivals[-1]
        gaps = np.diff(np.append(arrivals, start))  # to the next arrival, the last: 0
        idle += float(np.sum(np.arange(1, ranks + 1) * gaps))
        clock = start + comm
    return StepsRun(clock, idle, ranks)
