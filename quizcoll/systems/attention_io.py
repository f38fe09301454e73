"""HBM traffic of one attention head's forward pass, counted by walking the kernel's tiles.

Standard attention (Dao et al. 2022, FlashAttention, Algorithm 0) materialises the N×N score
matrix S and the probabilities P in HBM; FlashAttention-2's forward (Dao 2023, Algorithm 1)
keeps every tile of S and P on chip and streams K and V past each block of queries. Neither
figure is a formula here: :func:`walk` replays the kernel's loads and stores, tile by tile,
into a :class:`Ledger` (the causal variant skips the tiles the mask removes), so a card can
hold the count to the paper's closed form. ``tests/test_attention_io.py`` runs the same walks
on real numbers with numpy and checks both the output (against softmax(QKᵀ)V) and the ledger.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least

MAX_SEQ = 1 << 20  # a million tokens: the walk visits at most (N/block)² tiles
MAX_TILES = 1 << 20
STATS_BYTES = 4  # FlashAttention-2 writes one fp32 logsumexp per query row


class Kernel(enum.Enum):
    STANDARD = "standard"
    FLASH2 = "flash2"


KERNELS: tuple[str, ...] = tuple(k.value for k in Kernel)


@dataclass
class Ledger:
    """Bytes read from and written to HBM, by tensor."""

    reads: dict[str, float]
    writes: dict[str, float]

    def read(self, tensor: str, nbytes: float) -> None:
        self.reads[tensor] = self.reads.get(tensor, 0) + nbytes

    def write(self, tensor: str, nbytes: float) -> None:
        self.writes[tensor] = self.writes.get(tensor, 0) + nbytes

    @property
    def read_bytes(self) -> float:
        return sum(self.reads.values())

    @property
    def write_bytes(self) -> float:
        return sum(self.writes.values())

    @property
    def total_bytes(self) -> float:
        return self.read_bytes + self.write_bytes


@dataclass(frozen=True)
class Traffic:
    kernel: Kernel
    seq: int
    head_dim: int
    read_bytes: float
    write_bytes: float
    score_bytes: float  # HBM traffic of S and P alone (standard attention)
    p_written_bytes: float  # P as written to HBM: what autograd keeps for the backward
    kv_bytes: float  # bytes of K and V read
    qkvo_bytes: float  # traffic of Q, K, V and O (re-reads included)
    tiles: int  # (query block, key block) pairs computed
    flops: float  # matmul FLOPs of the tiles computed: 4·Br·Bc·d each

    @property
    def total_bytes(self) -> float:
        return self.read_bytes + self.write_bytes

    @property
    def intensity(self) -> float:
        return self.flops / self.total_bytes


def _blocks(n: int, block: int) -> list[tuple[int, int]]:
    """[(start, length)] of the tiles of ``n`` rows in blocks of ``block``."""
    return [(s, min(block, n - s)) for s in range(0, n, block)]


def walk(
    kernel: Kernel,
    seq: int,
    head_dim: int,
    value_bytes: float,
    *,
    block_q: int = 128,
    block_k: int = 128,
    causal: bool = False,
) -> Traffic:
    """Replay one head's forward pass and count what it moves between HBM and the chip."""
    at_least("seq", seq, 1)
    at_least("head_dim", head_dim, 1)
    at_least("block_q", block_q, 1)
    at_least("block_k", block_k, 1)
    if seq > MAX_SEQ:
        raise SystemsInputError(f"seq must be at most {MAX_SEQ}, got {seq}")
    rows, cols = _blocks(seq, block_q), _blocks(seq, block_k)
    if len(rows) * len(cols) > MAX_TILES:
        raise SystemsInputError(f"{len(rows) * len(cols)} tiles: use larger blocks")
    d, e = head_dim, value_bytes
    led = Ledger({}, {})
    tiles = 0
    flops = 0.0

    def visible(q0: int, qn: int, k0: int) -> bool:
        # A causal tile is computed unless every key in it lies after every query in it.
        return not causal or k0 <= q0 + qn - 1

    if kernel is Kernel.STANDARD:
        # Algorithm 0 works on whole rows of S: Q, K and V are read once, S = QKᵀ goes to
        # HBM, P = softmax(S) goes to HBM, O = PV goes to HBM. The mask changes no traffic.
        led.read("Q", seq * d * e)
        for _k0, kn in cols:
            led.read("K", kn * d * e)
            led.write("S", seq * kn * e)
        for _k0, kn in cols:
            led.read("S", seq * kn * e)
            led.write("P", seq * kn * e)
        for _k0, kn in cols:
            led.read("P", seq * kn * e)
            led.read("V", kn * d * e)
            for _q0, qn in rows:
                tiles += 1
                flops += 4 * qn * kn * d
        led.write("O", seq * d * e)
    else:
        # FlashAttention-2 forward: one query block stays on chip while K, V stream past.
        for q0, qn in rows:
            led.read("Q", qn * d * e)
            for k0, kn in cols:
                if not visible(q0, qn, k0):
                    break
                led.read("K", kn * d * e)
                led.read("V", kn * d * e)
                tiles += 1
                flops += 4 * qn * kn * d
            led.write("O", qn * d * e)
            led.write("L", qn * STATS_BYTES)
    score = sum(led.reads.get(t, 0) + led.writes.get(t, 0) for t in ("S", "P"))
    return Traffic(
        kernel=kernel,
        seq=seq,
        head_dim=d,
        read_bytes=led.read_bytes,
        write_bytes=led.write_bytes,
        score_bytes=score,
        p_written_bytes=led.writes.get("P", 0),
        kv_bytes=led.reads.get("K", 0) + led.reads.get("V", 0),
        qkvo_bytes=sum(led.reads.get(t, 0) + led.writes.get(t, 0) for t in "QKVO"),
        tiles=tiles,
        flops=flops,
    )
