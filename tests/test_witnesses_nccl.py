"""The nccl group's witnesses held to hand-enumerated cases and properties, never to the
calculators' formulas."""

from __future__ import annotations

import pytest

from quizcoll.witnesses import nccl_custom_allreduce as car
from quizcoll.witnesses import nccl_gemm, nccl_routing, nccl_tree

# ---------------------------------------------------------------- tree walk


def test_tree_one_node_is_a_chain() -> None:
    # 4 GPUs in a chain 0-1-2-3: the last climbs 3 NVLink hops and comes back down.
    w = nccl_tree.tree_walk(1, 4, 1.0, 100.0)
    assert (w.intra_hops, w.inter_hops, w.latency_s) == (6, 0, 6.0)


@pytest.mark.parametrize(("nodes", "depth"), [(2, 1), (3, 1), (4, 2), (7, 2), (8, 3), (9, 3)])
def test_tree_depth_of_the_node_tree(nodes: int, depth: int) -> None:
    # Heap-ordered trees drawn by hand: 7 nodes fill two levels under the root, the 8th opens a third.
    w = nccl_tree.tree_walk(nodes, 1, 1.0, 1.0)
    assert (w.intra_hops, w.inter_hops) == (0, 2 * depth)


def test_tree_critical_path_prefers_the_slow_hops() -> None:
    # 2 nodes × 2 GPUs: the deepest GPU (node 1, second in its chain) pays 1 NVLink + 1 network hop.
    w = nccl_tree.tree_walk(2, 2, 1.0, 10.0)
    assert (w.intra_hops, w.inter_hops, w.latency_s) == (2, 2, 22.0)


def test_tree_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        nccl_tree.tree_walk(0, 8, 1.0, 1.0)


# ---------------------------------------------------------------- GEMM tiles on SMs


def test_gemm_tiles_count_partial_edges() -> None:
    # 300 × 300 with 128 × 256 tiles: rows at 0, 128, 256 and columns at 0, 256.
    assert nccl_gemm.tile_origins(300, 300, 128, 256) == [
        (0, 0), (0, 256), (128, 0), (128, 256), (256, 0), (256, 256)
    ]  # fmt: skip


def test_gemm_dispatch_small_case_by_hand() -> None:
    # 6 tiles on 4 SMs: 4 start at t=0, 2 at t=1; 6 of 8 SM-slots busy.
    d = nccl_gemm.dispatch(300, 300, 128, 256, 4)
    assert (d.tiles, d.makespan, d.last_wave_tiles) == (6, 2, 2)
    assert d.utilisation == pytest.approx(6 / 8)


def test_gemm_makespan_never_shrinks_as_sms_are_taken() -> None:
    spans = [nccl_gemm.dispatch(4096, 8192, 128, 256, s).makespan for s in range(132, 60, -1)]
    assert spans == sorted(spans)


def test_gemm_free_channels_is_the_edge_of_the_wave() -> None:
    # Fits at c (same makespan), not at c + 1.
    c = nccl_gemm.free_channels(4096, 8192, 128, 256, 132)
    alone = nccl_gemm.dispatch(4096, 8192, 128, 256, 132).makespan
    assert nccl_gemm.dispatch(4096, 8192, 128, 256, 132 - c).makespan == alone
    assert nccl_gemm.dispatch(4096, 8192, 128, 256, 132 - c - 1).makespan > alone


# ---------------------------------------------------------------- custom all-reduce


def test_one_shot_two_gpus_by_hand() -> None:
    # Each of 2 GPUs pulls the other's 1000 bytes after one barrier.
    r = car.run("one-shot", 2, 1000, 1.0, 100.0)
    assert (r.phases, r.bytes_in, r.time_s) == (1, 1000, pytest.approx(11.0))


def test_two_shot_four_gpus_by_hand() -> None:
    # 4 slices of 25 bytes: 3 peers' slice in, then 3 peers' reduced slices in.
    r = car.run("two-shot", 4, 100, 1.0, 5.0)
    assert (r.phases, r.bytes_in, r.time_s) == (2, 150, pytest.approx(2 + 150 / 5))


def test_a_schedule_that_does_not_reduce_is_refused() -> None:
    broken = [[car.Transfer(0, 1, 0, 10)]]  # rank 0 never hears from rank 1
    with pytest.raises(ValueError, match="does not all-reduce"):
        car._check_reduces(broken, 2, 10)


def test_min_ranks_is_where_two_shot_starts_winning() -> None:
    n = car.min_ranks(1 << 20, 2e-6, 371e9)
    assert (
        car.run("two-shot", n, 1 << 20, 2e-6, 371e9).time_s
        < car.run("one-shot", n, 1 << 20, 2e-6, 371e9).time_s
    )
    assert (
        car.run("two-shot", n - 1, 1 << 20, 2e-6, 371e9).time_s
        >= car.run("one-shot", n - 1, 1 << 20, 2e-6, 371e9).time_s
    )


# ---------------------------------------------------------------- expert routing


def test_route_two_nodes_of_two_gpus_by_hand() -> None:
    # 8 experts, 2 per GPU, GPUs 0-1 on node 0 and 2-3 on node 1: of 8 × 2 = 16 assignments,
    # 2 per expert; bytes per assignment 10 × 2.
    r = nccl_routing.route(8, 2, 10, 2, 8, 4, 2)
    assert (r.local_bytes, r.node_bytes, r.offnode_bytes) == (80.0, 80.0, 160.0)


def test_route_conserves_the_dispatch() -> None:
    r = nccl_routing.route(512, 8, 7168, 1, 256, 32, 8)
    assert r.local_bytes + r.sent_bytes == pytest.approx(512 * 8 * 7168)


def test_layer_traffic_backward_mirrors_forward() -> None:
    t = nccl_routing.layer_traffic(4096, 2, 4096, 2, 8)
    assert t.step_bytes == pytest.approx(2 * t.forward_bytes)
    assert t.forward_bytes == pytest.approx(2 * t.dispatch_bytes)


def test_route_refuses_uneven_blocks() -> None:
    with pytest.raises(ValueError, match="evenly"):
        nccl_routing.route(8, 2, 10, 2, 6, 4, 2)
