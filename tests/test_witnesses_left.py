"""The ``left`` witnesses held to hand-traced cases, published rows and properties."""

from __future__ import annotations

import pytest

from quizcoll.witnesses.left_dualpipe import simulate

F, B, W, FB = 2.0, 4.0, 1.0, 5.0  # forward, full backward, its weight part, F&B pair


def test_two_stages_never_idle() -> None:
    # Traced by hand: with PP = 2 both devices start with a forward of their own direction
    # and every later input is ready when its device gets to it. Each device runs 2 lone
    # forwards, m - 1 pairs of overlapped chunks (two per pair), one full backward, one
    # input-gradient backward and its deferred W.
    m = 6
    run = simulate(2, 2 * m, F, B, W, FB)
    assert run.idle == (0.0, 0.0)
    assert run.makespan == pytest.approx(2 * F + 2 * (m - 1) * FB + B + (B - W) + W)


def test_deepseek_v3_table_row() -> None:
    # DeepSeek-V3 Table 2, DualPipe: (PP/2 - 1)(F&B + B - 3W); for PP = 8 and the times
    # above, 3 * (5 + 4 - 3) = 18 time units, evaluated by hand.
    assert simulate(8, 32, F, B, W, FB).bubble == pytest.approx(18.0)


def test_bubble_does_not_grow_with_micro_batches() -> None:
    # The steady phase adds work, never idle time: the bubble is the ramps' alone.
    runs = [simulate(8, mb, F, B, W, FB) for mb in (16, 24, 64)]
    assert runs[0].bubble == pytest.approx(runs[1].bubble) == pytest.approx(runs[2].bubble)
    assert runs[0].makespan < runs[1].makespan < runs[2].makespan


def test_devices_mirror_each_other() -> None:
    # Both directions run the same schedule mirrored: device r idles as long as PP - 1 - r.
    idle = simulate(16, 32, 3.0, 6.0, 2.4, 7.5).idle
    assert idle == pytest.approx(idle[::-1])
    assert max(idle) > min(idle)  # the middle devices wait longest, the ends least


def test_a_slower_overlapped_pair_idles_longer() -> None:
    bubbles = [simulate(8, 32, F, B, W, o).bubble for o in (4.5, 5.0, 5.5)]
    assert bubbles[0] < bubbles[1] < bubbles[2]


def test_released_code_split_at_the_middle_helps() -> None:
    # deepseek-ai/DualPipe does not overlap the middle devices' first pair "to further
    # reduce bubble size": the longest idle is then shorter than the table's schedule's.
    for pp in (4, 8, 16):
        paper, code = (simulate(pp, 4 * pp, F, B, W, FB, split) for split in (False, True))
        assert code.bubble < paper.bubble


@pytest.mark.parametrize(
    ("stages", "micro_batches", "w"),
    [(3, 12, W), (8, 14, W), (8, 33, W), (8, 32, B)],
)
def test_refuses_what_dualpipe_cannot_run(stages: int, micro_batches: int, w: float) -> None:
    with pytest.raises(ValueError):
        simulate(stages, micro_batches, F, B, w, FB)
