"""The attention tile walks against real attention run tile by tile in numpy.

Each kernel is executed on small random tensors with every HBM access going through a
counting store; the output must equal softmax(QKᵀ/√d)V computed in one piece, and the
store's byte count must equal what :func:`quizcoll.systems.attention_io.walk` reports. The
walks are also held to the FlashAttention papers' own counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from quizcoll.systems import attention_io as aio
from quizcoll.systems.errors import SystemsInputError


class Hbm:
    """Tensors in "HBM": every slice read or written is counted in bytes."""

    def __init__(self, itemsize: int) -> None:
        self.itemsize = itemsize
        self.moved = 0
        self.data: dict[str, np.ndarray] = {}

    def load(self, name: str, rows: slice, cols: slice = slice(None)) -> np.ndarray:
        block = self.data[name][rows, cols]
        self.moved += block.size * (4 if name == "L" else self.itemsize)
        return block.copy()

    def store(self, name: str, rows: slice, value: np.ndarray, cols: slice = slice(None)) -> None:
        self.data[name][rows, cols] = value
        self.moved += value.size * (4 if name == "L" else self.itemsize)


def _reference(q, k, v, causal):
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.tril(np.ones_like(s, dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v


def _standard(hbm: Hbm, n: int, d: int, bk: int) -> np.ndarray:
    hbm.data["S"] = np.zeros((n, n))
    hbm.data["P"] = np.zeros((n, n))
    hbm.data["O"] = np.zeros((n, d))
    q = hbm.load("Q", slice(None))
    for k0 in range(0, n, bk):
        kb = hbm.load("K", slice(k0, k0 + bk))
        hbm.store("S", slice(None), q @ kb.T / np.sqrt(d), cols=slice(k0, k0 + bk))
    rows = np.concatenate(
        [hbm.load("S", slice(None), slice(k0, k0 + bk)) for k0 in range(0, n, bk)], axis=1
    )
    p = np.exp(rows - rows.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    for k0 in range(0, n, bk):
        hbm.store("P", slice(None), p[:, k0 : k0 + bk], cols=slice(k0, k0 + bk))
    out = np.zeros((n, d))
    for k0 in range(0, n, bk):
        out += hbm.load("P", slice(None), slice(k0, k0 + bk)) @ hbm.load("V", slice(k0, k0 + bk))
    hbm.store("O", slice(None), out)
    return hbm.data["O"]


def _flash2(hbm: Hbm, n: int, d: int, bq: int, bk: int, causal: bool) -> np.ndarray:
    hbm.data["O"] = np.zeros((n, d))
    hbm.data["L"] = np.zeros((n, 1))
    for q0 in range(0, n, bq):
        qb = hbm.load("Q", slice(q0, q0 + bq))
        rows = qb.shape[0]
        m = np.full((rows, 1), -np.inf)
        lsum = np.zeros((rows, 1))
        acc = np.zeros((rows, d))
        for k0 in range(0, n, bk):
            if causal and k0 > q0 + rows - 1:
                break
            kb, vb = hbm.load("K", slice(k0, k0 + bk)), hbm.load("V", slice(k0, k0 + bk))
            s = qb @ kb.T / np.sqrt(d)
            if causal:
                qi = np.arange(q0, q0 + rows)[:, None]
                ki = np.arange(k0, k0 + kb.shape[0])[None, :]
                s = np.where(ki <= qi, s, -np.inf)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            scale = np.exp(m - m_new)
            p = np.exp(s - m_new)
            lsum = lsum * scale + p.sum(axis=1, keepdims=True)
            acc = acc * scale + p @ vb
            m = m_new
        hbm.store("O", slice(q0, q0 + bq), acc / lsum)
        hbm.store("L", slice(q0, q0 + bq), m + np.log(lsum))
    return hbm.data["O"]


@pytest.mark.parametrize(
    ("n", "d", "bq", "bk", "causal"),
    [
        (64, 16, 16, 16, False),
        (96, 8, 32, 16, False),
        (80, 16, 16, 32, True),
        (128, 32, 32, 32, True),
        (50, 8, 16, 16, True),
    ],
)
def test_flash2_walk_counts_what_the_real_kernel_moves(n, d, bq, bk, causal) -> None:
    rng = np.random.default_rng(n + d)
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    hbm = Hbm(itemsize=2)
    hbm.data.update(Q=q, K=k, V=v)
    out = _flash2(hbm, n, d, bq, bk, causal)
    np.testing.assert_allclose(out, _reference(q, k, v, causal), rtol=1e-10, atol=1e-12)
    walk = aio.walk(aio.Kernel.FLASH2, n, d, 2, block_q=bq, block_k=bk, causal=causal)
    assert walk.total_bytes == hbm.moved


@pytest.mark.parametrize(("n", "d", "bk"), [(64, 16, 16), (96, 8, 32), (40, 8, 16)])
def test_standard_walk_counts_what_the_real_kernel_moves(n, d, bk) -> None:
    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    hbm = Hbm(itemsize=2)
    hbm.data.update(Q=q, K=k, V=v)
    out = _standard(hbm, n, d, bk)
    np.testing.assert_allclose(out, _reference(q, k, v, False), rtol=1e-10, atol=1e-12)
    walk = aio.walk(aio.Kernel.STANDARD, n, d, 2, block_k=bk)
    assert walk.total_bytes == hbm.moved


def test_standard_matches_the_papers_count() -> None:
    # Dao et al. 2022, Algorithm 0: read Q, K (2Nd), write S, read S, write P (3N²), read P
    # and V (N² + Nd), write O (Nd): 4Nd + 4N² elements.
    n, d = 1024, 64
    t = aio.walk(aio.Kernel.STANDARD, n, d, 1)
    assert t.total_bytes == 4 * n * d + 4 * n * n == 4_456_448


def test_causal_skips_about_half_the_tiles() -> None:
    full = aio.walk(aio.Kernel.FLASH2, 8192, 128, 2)
    causal = aio.walk(aio.Kernel.FLASH2, 8192, 128, 2, causal=True)
    assert full.tiles == 64 * 64 and causal.tiles == 64 * 65 // 2 == 2080
    assert causal.flops / full.flops == pytest.approx(65 / 128)


def test_refuses_bad_shapes() -> None:
    with pytest.raises(SystemsInputError):
        aio.walk(aio.Kernel.FLASH2, 0, 64, 2)
    with pytest.raises(SystemsInputError):
        aio.walk(aio.Kernel.FLASH2, 1 << 21, 64, 2)
    with pytest.raises(SystemsInputError):
        aio.walk(aio.Kernel.FLASH2, 1 << 20, 64, 2, block_q=16, block_k=16)


def test_standard_writes_p_once_and_flash_never() -> None:
    std = aio.walk(aio.Kernel.STANDARD, 2048, 128, 2)
    fl = aio.walk(aio.Kernel.FLASH2, 2048, 128, 2)
    assert std.p_written_bytes == 2048 * 2048 * 2
    assert fl.p_written_bytes == 0 and fl.score_bytes == 0
