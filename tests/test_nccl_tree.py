"""NCCL's tree in the simulator: a double binary tree over nodes, a chain inside each node.

Expected parents are worked out by hand from NVIDIA/nccl v2.30.7-1 ``src/graph/trees.cc``
(``ncclGetBtree``/``ncclGetDtree``) and ``src/graph/connect.cc`` (``setupChannel`` chains
``treeIntra``; ``connectTrees`` hangs a child node's GPU 0 under its parent node's
``treeIntra[child0Index = 1]`` when it is the first child, ``treeIntra[child1Index = 0]``
when it is the second, for the balanced-tree pattern).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizcoll.collectives import CollectiveError, plan, run, verify
from quizcoll.collectives.schedules.double_tree import (
    chain_edges_per_node,
    nccl_tree_parents,
    root_path_hops,
)

NCCL_MAX_TREE_ARITY = 3  # src/include/device.h: setTreeDown refuses a fourth child


def test_four_nodes_of_two_gpus_by_hand() -> None:
    # tree one over nodes (ncclGetBtree, 4 ranks): 0 root; 2 under 0 (2 > 0: second
    # child → node 0's GPU 0); 1 under 2 (1 < 2: first child → node 2's GPU 1 = rank 5);
    # 3 under 2 (second child → node 2's GPU 0 = rank 4). Chains: 1 under 0, 3 under 2…
    one, two = nccl_tree_parents(4, 2)
    assert one.tolist() == [-1, 0, 5, 2, 0, 4, 4, 6]
    # tree two mirrors the nodes (m → 3 − m): node 3 is the root; node 1 under node 3's
    # GPU 0 (mirrored 2 > 0: second child); node 2 under node 1's GPU 1 (mirrored 1 < 2);
    # node 0 under node 1's GPU 0 (mirrored 3 > 2: second child)
    assert two.tolist() == [2, 0, 6, 2, 3, 4, -1, 6]


def test_one_gpu_per_node_is_the_binary_tree_over_nodes() -> None:
    # the tree pattern (one GPU): both children hang under GPU 0, so ranks are nodes.
    # ncclGetBtree(5): 1 → (1^1)|2 = 2; 2 → (2^2)|4 = 4; 3 → (3^1)|2 = 2;
    # 4 → (4^4)|8 = 8 ≥ 5, so 4^4 = 0
    one, _ = nccl_tree_parents(5, 1)
    assert one.tolist() == [-1, 2, 4, 2, 0]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 8))
def test_shape_follows_nccl(nodes: int, gpus: int) -> None:
    if nodes * gpus < 2:
        return
    for parent in nccl_tree_parents(nodes, gpus):
        assert np.count_nonzero(parent < 0) == 1
        children = np.bincount(parent[parent >= 0], minlength=len(parent))
        assert children.max() <= NCCL_MAX_TREE_ARITY
        # every node chains its GPUs: gpus − 1 edges inside it
        assert (chain_edges_per_node(parent, gpus) == gpus - 1).all()
        hops, network = root_path_hops(parent, gpus)
        # between nodes it is ncclGetBtree's depth over the nodes: ⌈log2 nNodes⌉
        assert network.max() == math.ceil(math.log2(nodes))
        # each GPU's path climbs its own node's chain and one more GPU at most per node
        assert hops.max() <= (gpus - 1) + 2 * math.ceil(math.log2(nodes))


def test_eight_nodes_of_eight_is_not_log2_of_the_gpus() -> None:
    # the audit's example: 64 GPUs as 8 × 8 — connect.cc's depth estimate is
    # nRanks/nNodes − 1 + log2i(nNodes) = 7 + 3 = 10, against ⌈log2 64⌉ = 6 over GPUs;
    # the exact deepest path also steps through GPU 1 of the first-child nodes
    one, two = nccl_tree_parents(8, 8)
    depth = max(root_path_hops(t, 8)[0].max() for t in (one, two))
    assert depth >= 10 > 6


@pytest.mark.parametrize(("nodes", "gpus"), [(2, 4), (3, 4), (4, 2), (5, 1), (1, 6)])
def test_all_reduce_on_nccl_trees_is_correct(nodes: int, gpus: int) -> None:
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal(53) for _ in range(nodes * gpus)]
    result = run("all_reduce", inputs, algorithm="nccl_tree", gpus_per_node=gpus)
    assert verify(result, inputs)
    hops = max(root_path_hops(t, gpus)[0].max() for t in nccl_tree_parents(nodes, gpus))
    # not pipelined: up the tallest tree, then down to the deepest rank
    assert result.steps == 2 * hops


def test_nccl_tree_needs_the_node_shape() -> None:
    with pytest.raises(CollectiveError, match="gpus_per_node"):
        plan("all_reduce", 8, 16, algorithm="nccl_tree")


def test_cli_runs_nccl_trees(capsys: pytest.CaptureFixture) -> None:
    import json

    from quizcoll.cli.main import main

    argv = ["sim", "all_reduce", "--algorithm", "nccl_tree", "--nodes", "8", "--gpus-per-node"]
    assert main([*argv, "8", "--size", "1MiB", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # 12 hops to the deepest GPU (worked out by hand above), up and down, not pipelined
    assert (doc["ranks"], doc["steps"], doc["verified"]) == (64, 24, True)
    assert main(["sim", "all_reduce", "--algorithm", "nccl_tree", "--ranks", "8"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs --nodes B and --gpus-per-node A" in err
