"""Traffic and modelled time read from a schedule's structure, at any rank count.

Nothing here lays out transfer rows: every count comes from the phases of
:mod:`.structure` and the block sizes, and equals what summing the rows of the expanded
schedule gives (the tests check both ways for every algorithm).

- Message rounds: per-round, per-rank and per-link sums over the messages, which are at
  most O(N log N).
- Ring rounds: round ``s`` moves every group one hop, so a member's total is all groups
  but one, and the rounds differ only by a rotation. With one link class per phase, the
  busiest rank is the same in every round; with classes that repeat every ``g`` ranks (a
  flat ring over nodes of ``g`` GPUs) a round's cost depends on ``s mod g`` only, and
  each class's largest transfer comes from per-residue maxima.
- Pairwise rounds: every message carries one piece; with even pieces every round is
  alike.

The cost model is :mod:`.cost`'s: a round lasts as long as its busiest (rank, link
class) entry ``α · messages + max(sent, received) / bandwidth + combined / reduce_rate``.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from quizcoll.collectives.cost import CostModel, LinkModel
from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.structure import (
    MessageRounds,
    PairwiseRounds,
    Phase,
    RingRounds,
    Spans,
    Structure,
)

# Exact per-round pricing of a ring or pairwise phase whose link classes have no period
# (or with γ and mixed classes) costs rounds × ranks; beyond this it is refused.
EXACT_WORK_LIMIT = 1 << 27


class BlockBytes:
    """Bytes of blocks and of spans of blocks, by sending rank (``elems`` × itemsize ×
    ``scale``); one row serves every rank when the sizes are a broadcast row."""

    def __init__(self, elems: np.ndarray, itemsize: int, scale: int = 1) -> None:
        factor = np.int64(itemsize) * np.int64(scale)
        self.uniform = elems.shape[0] <= 1 or elems.strides[0] == 0
        self.table = (elems[:1] if self.uniform else elems).astype(np.int64) * factor

    @cached_property
    def prefix(self) -> np.ndarray:
        """Bytes of slots ``0 … b − 1`` at column ``b``, per sending rank."""
        table = self.table
        return np.concatenate(
            [np.zeros((table.shape[0], 1), dtype=np.int64), np.cumsum(table, axis=1)], axis=1
        )

    def blocks(self, src: np.ndarray, block: np.ndarray) -> np.ndarray:
        return self.table[0, block] if self.uniform else self.table[src, block]

    def spans(self, src: np.ndarray, s: Spans) -> np.ndarray:
        row = 0 if self.uniform else np.asarray(src)

        def part(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
            hi = np.maximum(hi, lo)
            return self.prefix[row, hi] - self.prefix[row, lo]

        return part(s.lo, s.hi) + part(s.lo2, s.hi2)


# --- traffic --------------------------------------------------------------------------


def traffic(
    structure: Structure, elems: np.ndarray, itemsize: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(sent, received)``: int64 bytes of every rank over the whole schedule."""
    sent, received, _ = _sums(structure, BlockBytes(elems, itemsize), None)
    return sent, received


def traffic_by_link(
    structure: Structure, elems: np.ndarray, itemsize: int, gpus_per_node: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(inside the node, to other nodes)``: int64 bytes every rank sends on each."""
    sent, _, inter = _sums(structure, BlockBytes(elems, itemsize), gpus_per_node)
    return sent - inter, inter


def _sums(
    structure: Structure, sizes: BlockBytes, gpus_per_node: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bytes every rank sends, receives, and sends to other nodes (with a node size)."""
    n = structure.ranks
    sent, received, inter = (np.zeros(n, dtype=np.int64) for _ in range(3))
    for phase in structure.phases:
        if isinstance(phase, PairwiseRounds) and sizes.uniform and _even_pieces(sizes, n):
            # every rank sends one piece to each of the others and receives one from each
            piece = sizes.table[0, 0]
            sent += (n - 1) * piece
            received += (n - 1) * piece
            if gpus_per_node is not None:
                node_size = np.minimum(
                    gpus_per_node, n - np.arange(n) // gpus_per_node * gpus_per_node
                )
                inter += (n - node_size) * piece
            continue
        src, dst, nbytes = _pair_totals(phase, sizes, n)
        sent += _sum_by(src, nbytes, n)
        received += _sum_by(dst, nbytes, n)
        if gpus_per_node is not None:
            crosses = (src // gpus_per_node) != (dst // gpus_per_node)
            inter += _sum_by(src[crosses], nbytes[crosses], n)
    return sent, received, inter


def _sum_by(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Integer sums of ``values`` by ``index`` (float sums are exact below 2^53 bytes)."""
    return np.rint(np.bincount(index, weights=values, minlength=n)).astype(np.int64)


def _pair_totals(
    phase: Phase, sizes: BlockBytes, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(src, dst, bytes)`` of a phase summed over its rounds: one entry per message
    (message rounds), per ring hop, or per pair of ranks (uneven pairwise)."""
    if isinstance(phase, MessageRounds):
        return phase.src, phase.dst, sizes.spans(phase.src, phase.blocks)
    if isinstance(phase, RingRounds):
        g = _group_bytes(phase, sizes)
        # member p sends every group but (p − lag + 1) mod L over the L − 1 rounds
        totals = g.sum(axis=1, keepdims=True) - _rotate(g, phase.lag - 1)
        return phase.rings.ravel(), _rotate(phase.rings, -1).ravel(), totals.ravel()
    src, dst = np.divmod(np.flatnonzero(~np.eye(n, dtype=bool)), n)
    return src, dst, sizes.blocks(src, dst)


def _even_pieces(sizes: BlockBytes, n: int) -> bool:
    row = sizes.table[0, :n]
    return bool((row == row[0]).all())


def _group_bytes(phase: RingRounds, sizes: BlockBytes) -> np.ndarray:
    """``(rings, L)`` bytes of every member's block group."""
    if sizes.uniform:
        g = sizes.table[0, phase.groups].sum(axis=-1)
    else:
        shape = (*phase.rings.shape, phase.groups.shape[-1])
        src = np.broadcast_to(phase.rings[:, :, None], shape)
        g = sizes.blocks(src, np.broadcast_to(phase.groups, shape)).sum(axis=-1)
    return np.broadcast_to(g, phase.rings.shape).astype(np.float64)


# --- time -----------------------------------------------------------------------------


def step_times(
    structure: Structure, elems: np.ndarray, itemsize: int, model: CostModel, *, scale: int = 1
) -> np.ndarray:
    """Modelled seconds of every round (block sizes multiplied by ``scale``)."""
    sizes = BlockBytes(elems, itemsize, scale)
    parts = [_phase_times(phase, structure.ranks, sizes, model) for phase in structure.phases]
    return np.concatenate(parts) if parts else np.zeros(0)


def _phase_times(phase: Phase, n: int, sizes: BlockBytes, model: CostModel) -> np.ndarray:
    if isinstance(phase, MessageRounds):
        return _message_times(phase, n, sizes, model)
    if isinstance(phase, RingRounds):
        return _ring_times(phase, sizes, model)
    return _pairwise_times(phase, sizes, model)


def _links(model: CostModel) -> tuple[np.ndarray, np.ndarray]:
    """Latency and bandwidth of link class 0 (inside a node) and 1 (between nodes)."""
    links: list[LinkModel] = [model.link, model.inter or model.link]
    return (
        np.array([link.latency_s for link in links]),
        np.array([link.bandwidth for link in links]),
    )


def _classes(model: CostModel, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """0 for transfers inside a node (or with one link class), 1 between nodes."""
    if model.inter is None:
        return np.zeros(np.broadcast_shapes(np.shape(src), np.shape(dst)), dtype=np.int64)
    g = model.gpus_per_node or 1
    return ((np.asarray(src) // g) != (np.asarray(dst) // g)).astype(np.int64)


# Message rounds are priced a few rounds at a time, so memory stays O(N) per chunk.
CHUNK_MESSAGES = 1 << 20


def _message_times(phase: MessageRounds, n: int, sizes: BlockBytes, model: CostModel) -> np.ndarray:
    """Every round's busiest (rank, class) entry, over the (merged) messages."""
    times = np.empty(phase.rounds)
    first = 0
    while first < phase.rounds:
        # the rounds from `first` whose messages fit a chunk (at least one round)
        limit = phase.offsets[first] + CHUNK_MESSAGES
        last = max(first + 1, int(np.searchsorted(phase.offsets, limit, side="right")) - 1)
        last = min(last, phase.rounds)
        rows = slice(int(phase.offsets[first]), int(phase.offsets[last]))
        rnd = np.repeat(np.arange(last - first), np.diff(phase.offsets[first : last + 1]))
        blocks = Spans(*(a[rows] for a in phase.blocks))
        nbytes = sizes.spans(phase.src[rows], blocks).astype(np.float64)
        times[first:last] = _chunk_times(
            rnd, phase.src[rows], phase.dst[rows], nbytes, phase.reduce[rows], n, model
        )
        first = last
    return times


def _chunk_times(
    rnd: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    nbytes: np.ndarray,
    reduce: np.ndarray,
    n: int,
    model: CostModel,
) -> np.ndarray:
    """Round times of consecutive rounds ``0 … rnd[-1]`` given as their messages."""
    rounds = int(rnd[-1]) + 1
    src, dst = src.astype(np.int64), dst.astype(np.int64)
    # adjacent messages of one round between the same pair are one message (one α)
    start = np.ones(len(src), dtype=bool)
    start[1:] = (rnd[1:] != rnd[:-1]) | (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    first = np.flatnonzero(start)
    b = np.add.reduceat(nbytes, first)
    combined = np.add.reduceat(np.where(reduce, nbytes, 0.0), first)
    rnd, src, dst = rnd[first], src[first], dst[first]
    classes = 2 if model.inter is not None else 1
    cls = _classes(model, src, dst)
    keys = np.concatenate([(rnd * n + src) * classes + cls, (rnd * n + dst) * classes + cls])
    uniq, inv = _index(keys, rounds * n * classes)
    m, u = len(b), len(uniq)
    live = (b > 0).astype(np.float64)
    sent_b = np.bincount(inv[:m], weights=b, minlength=u)
    recv_b = np.bincount(inv[m:], weights=b, minlength=u)
    messages = np.maximum(
        np.bincount(inv[:m], weights=live, minlength=u),
        np.bincount(inv[m:], weights=live, minlength=u),
    )
    latency, bandwidth = _links(model)
    reduced = 0.0
    if model.reduce_rate is not None:
        # combining work of a rank in a round, whatever link its data came over
        rank_key, rank_inv = _index(uniq // classes, rounds * n)
        per_rank = np.bincount(rank_inv[inv[m:]], weights=combined, minlength=len(rank_key))
        reduced = per_rank[rank_inv] / model.reduce_rate
    cls_u = uniq % classes
    entry = messages * latency[cls_u] + (np.maximum(sent_b, recv_b) / bandwidth[cls_u] + reduced)
    round_of = uniq // (n * classes)
    starts = np.concatenate([[0], np.flatnonzero(np.diff(round_of)) + 1])
    return np.maximum.reduceat(entry, starts)


def _index(keys: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """``(the distinct keys in order, each key's position among them)``: by marking a
    table of the ``space`` possible keys when it is not much larger than the keys, else
    by sorting."""
    if space > 4 * len(keys):
        return np.unique(keys, return_inverse=True)
    present = np.zeros(space, dtype=bool)
    present[keys] = True
    position = np.cumsum(present) - 1
    return np.flatnonzero(present), position[keys]


def _entry(
    latency: np.ndarray,
    bandwidth: np.ndarray,
    out: np.ndarray,
    into: np.ndarray,
    c_out: np.ndarray,
    c_in: np.ndarray,
    reduced: np.ndarray | float,
) -> np.ndarray:
    """Every rank's busiest class entry, sending ``out`` on class ``c_out`` and receiving
    ``into`` on ``c_in`` (one message each way)."""
    same = c_out == c_in
    both = np.maximum(out, into)
    one = (both > 0) * latency[c_out] + (both / bandwidth[c_out] + reduced)
    sending = (out > 0) * latency[c_out] + (out / bandwidth[c_out] + reduced)
    receiving = (into > 0) * latency[c_in] + (into / bandwidth[c_in] + reduced)
    return np.where(same, one, np.maximum(sending, receiving))


def _ring_times(phase: RingRounds, sizes: BlockBytes, model: CostModel) -> np.ndarray:
    g = _group_bytes(phase, sizes)
    rings, length, rounds = phase.rings, phase.length, phase.rounds
    latency, bandwidth = _links(model)
    gamma = model.reduce_rate if phase.reduce else None
    hop = None if model.inter is None else _classes(model, rings, _rotate(rings, -1))
    if hop is None or (hop == hop.flat[0]).all():
        # every round moves every group one hop: the busiest rank is the same each time
        # (hop p → p + 1 has class hop[i, p])
        into = _rotate(g, 1)  # a member sending group q received group q − 1
        reduced = 0.0 if gamma is None else into / gamma
        c = np.zeros(g.shape, dtype=np.int64) if hop is None else hop
        cost = float(_entry(latency, bandwidth, g, into, c, c, reduced).max())
        return np.full(rounds, cost)
    period = model.gpus_per_node or 1
    if gamma is None and length % period == 0 and _periodic(hop, period):
        return _periodic_ring_times(phase, g, hop[0, :period], latency, bandwidth)
    return _exact_ring_times(phase, g, hop, latency, bandwidth, gamma)


def _rotate(a: np.ndarray, k: int) -> np.ndarray:
    """``np.roll(a, k, axis=1)``, without its overhead (this runs for every ring phase)."""
    k %= a.shape[1]
    return np.concatenate((a[:, a.shape[1] - k :], a[:, : a.shape[1] - k]), axis=1) if k else a


def _periodic(hop: np.ndarray, period: int) -> bool:
    """Whether every ring's hop classes repeat with ``period`` members, alike in all."""
    count, length = hop.shape
    return bool((hop.reshape(count, length // period, period) == hop[0, :period]).all())


def _periodic_ring_times(
    phase: RingRounds,
    g: np.ndarray,
    pattern: np.ndarray,
    latency: np.ndarray,
    bandwidth: np.ndarray,
) -> np.ndarray:
    """Rounds of a ring whose hop classes repeat every ``d = len(pattern)`` members.

    Hop p carries group ``(p − k) mod L`` in round s (``k = lag + s``), so the largest
    transfer of class c is the largest group over residues ``(ρ − k) mod d`` for the ρ of
    class c: with ``top[ρ]`` the largest group of residue ρ, a round's cost depends on
    ``k mod d`` only."""
    d = len(pattern)
    count, length = g.shape
    top = g.reshape(count, length // d, d).max(axis=(0, 1))
    shifts = np.arange(d)
    cost = np.zeros(len(shifts))
    for c in (0, 1):
        residues = np.flatnonzero(pattern == c)
        if not len(residues):
            continue
        largest = _shifted_max(top, residues, shifts)
        cost = np.maximum(cost, np.where(largest > 0, latency[c] + largest / bandwidth[c], 0.0))
    return cost[(phase.lag + np.arange(phase.rounds)) % d]


def _shifted_max(top: np.ndarray, residues: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """``max(top[(residues − t) mod d])`` for every shift ``t``: directly when few
    residues are taken, or as the best value outside the few left out."""
    d = len(top)
    if len(residues) <= 64:
        return top[(residues[None, :] - shifts[:, None]) % d].max(axis=1)
    left_out = np.setdiff1d(np.arange(d), residues)
    if len(left_out) > 64:
        raise CollectiveError(
            f"link classes that repeat every {d} ranks in {len(residues)} places are too "
            "irregular to price round by round at this size"
        )
    order = np.argsort(-top, kind="stable")[: len(left_out) + 1]
    excluded = (left_out[None, :] - shifts[:, None]) % d  # (shifts, left out)
    hit = (order[None, :, None] == excluded[:, None, :]).any(axis=2)  # (shifts, candidates)
    return top[order][np.argmax(~hit, axis=1)]


def _exact_ring_times(
    phase: RingRounds,
    g: np.ndarray,
    hop: np.ndarray,
    latency: np.ndarray,
    bandwidth: np.ndarray,
    gamma: float | None,
) -> np.ndarray:
    """Round by round, every rank: O(rounds × ranks), refused beyond a bound."""
    _check_work(phase.rounds, g.size, "ring")
    hop_in = _rotate(hop, 1)
    times = np.empty(phase.rounds)
    for s in range(phase.rounds):
        k = phase.lag + s
        out = _rotate(g, k)  # out[i, p] = g[i, (p − k) mod L]
        into = _rotate(out, 1)
        reduced = 0.0 if gamma is None else into / gamma
        times[s] = _entry(latency, bandwidth, out, into, hop, hop_in, reduced).max()
    return times


def _pairwise_times(phase: PairwiseRounds, sizes: BlockBytes, model: CostModel) -> np.ndarray:
    n, rounds = phase.ranks, phase.rounds
    latency, bandwidth = _links(model)
    if model.inter is None and sizes.uniform and _even_pieces(sizes, n):
        piece = float(sizes.table[0, 0])
        cost = latency[0] + piece / bandwidth[0] if piece > 0 else 0.0
        return np.full(rounds, cost)
    _check_work(rounds, n, "all_to_all")
    rank = np.arange(n, dtype=np.int64)
    times = np.empty(rounds)
    for i, s in enumerate(range(1, n)):
        to, frm = (rank + s) % n, (rank - s) % n
        out = sizes.blocks(rank, to).astype(np.float64)
        into = sizes.blocks(frm, rank).astype(np.float64)
        c_out, c_in = _classes(model, rank, to), _classes(model, frm, rank)
        times[i] = _entry(latency, bandwidth, out, into, c_out, c_in, 0.0).max()
    return times


def _check_work(rounds: int, ranks: int, what: str) -> None:
    if rounds * ranks > EXACT_WORK_LIMIT:
        raise CollectiveError(
            f"pricing this {what} round by round over {ranks:,} ranks needs "
            f"{rounds * ranks:,} rank-rounds, over the limit of {EXACT_WORK_LIMIT:,}; "
            "use one link class or a regular node size"
        )
